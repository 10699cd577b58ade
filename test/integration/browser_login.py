"""The dashboard from another host, in a real browser: run inside that
host's network namespace by test_lan.  The page asks to log in and shows
the `volery auth` command; its output pasted in, the pool appears.

usage: browser_login.py URL VOLERY KEYFILE TIMEOUT
Exit status 0 when the operator got in; the reason on stderr otherwise."""
import subprocess
import sys

from browser import By, chrome, js, shot, wait


def main():
    url, volery, key, timeout = sys.argv[1:5]
    timeout = float(timeout)
    d = chrome()
    try:
        d.get(url)
        command = wait(d, lambda d: d.find_element(By.ID, "login-command"),
                       timeout).text
        shot(d, "login")
        challenge = command.split()[-1]
        assert command == "volery auth " + challenge, command
        # A wrong answer: the page says so and offers a new challenge.
        box = d.find_element(By.ID, "login-answer")
        box.send_keys("AUTH " + "0" * 64)
        d.find_element(By.ID, "login-go").click()
        wait(d, lambda d: "wrong answer" in d.find_element(
            By.ID, "login-result").text, timeout)
        command = d.find_element(By.ID, "login-command").text
        assert command.split()[-1] != challenge, "the same challenge again"
        printed = subprocess.run([volery, "auth", "-k", key,
                                  command.split()[-1]], check=True,
                                 capture_output=True, text=True).stdout
        d.find_element(By.ID, "login-answer").send_keys(printed.strip())
        d.find_element(By.ID, "login-go").click()
        wait(d, lambda d: js(d, "#pool .card.node", "e.dataset.node"),
             timeout)
        wait(d, lambda d: d.find_element(By.ID, "live").text == "live",
             timeout)
        assert d.find_element(By.ID, "logout").is_displayed()
        # The cookie is the server's: a script cannot read it.
        assert "volery_session" not in d.execute_script(
            "return document.cookie")
        shot(d, "remote-pool")
        d.find_element(By.ID, "logout").click()
        wait(d, lambda d: d.find_element(By.ID, "login-command"), timeout)
    except Exception as e:
        shot(d, "failed-remote-login")
        print("browser_login: %r" % e, file=sys.stderr)
        return 1
    finally:
        d.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
