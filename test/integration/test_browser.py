"""The dashboard in a real browser (issue 15): headless Chromium, driven by
Selenium, against a real three-node loopback cluster.  The grid shows three
workstations and one master; the sample workflow submitted from the form
shows four bars reaching 100 % and its DAG turning green; a broken file
shows the checker's file:line errors; a cancel button (with its
confirmation) cancels; the page fits a phone.  Screenshots go to
build/screenshots/ for people to look at (browser.py).  Another host's
login is in test_lan (browser_login.py, in that host's namespace)."""
import json
import os
import random
import re
import subprocess
import time
import unittest
import urllib.request

import harness
from harness import ROOT, TIMEOUT, Cluster, params_file

# The page's JavaScript is the same whichever build serves it: it is
# driven against the plain build; test_api makes the same requests of the
# node under the sanitizers and valgrind.
PLAIN = harness.VOLERY == os.path.join(ROOT, "volery") and not harness.WRAP
if PLAIN:
    from browser import EC, By, WebDriverWait, chrome, js, shot, wait

GREEN = "rgb(46, 157, 87)"  # --Terminated in style.css


def sample_workflow(params):
    """conf/workflow.xml with its parameters file named absolutely: the
    node reads the file, not the browser."""
    with open(os.path.join(ROOT, "conf", "workflow.xml")) as f:
        text = f.read()
    return text.replace("<params>params.xml</params>",
                        "<params>%s</params>" % params)


@unittest.skipUnless(PLAIN, "the browser drives the plain build")
class Browser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cl = Cluster.with_dashboard()
        cls.a = cls.cl.nodes["a"]
        cls.url = "http://127.0.0.1:%d/" % cls.a.http_port()
        try:
            cls.d = chrome()
        except Exception:
            cls.cl.cleanup()
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            cls.d.quit()
        finally:
            cls.cl.cleanup()

    def setUp(self):
        self.d.set_window_size(1280, 900)

    def wait(self, cond, what, timeout=TIMEOUT):
        try:
            return wait(self.d, cond, timeout)
        except Exception:
            self.shot("failed-" + self.id().split(".")[-1])
            raise AssertionError("the page never showed %s" % what)

    def shot(self, name):
        shot(self.d, name)

    def open(self, route):
        self.d.get("about:blank")  # a fresh page, whatever the last test left
        self.d.get(self.url + route)
        self.wait(lambda d: d.find_element(By.ID, "live").text == "live",
                  "the live event stream")

    def js(self, selector, expression):
        return js(self.d, selector, expression)

    def click(self, selector, what):
        """Click what selector finds, again if a redraw took it away."""
        self.wait(lambda d: d.find_element(By.CSS_SELECTOR, selector).click()
                  or True, what)

    def click_for_alert(self, selector, what):
        """Click until the page asks (a redraw may take the button away
        just as it is clicked, and the click lands on nothing)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            self.click(selector, what)
            try:
                WebDriverWait(self.d, 2).until(EC.alert_is_present())
                return
            except Exception:
                if time.monotonic() > deadline:
                    raise AssertionError("%s never asked" % what)

    def task_text(self):
        return self.d.execute_script(
            "const e = document.getElementById('task');"
            "return e ? e.textContent : ''")

    def api(self, path):
        with urllib.request.urlopen(self.url + path.lstrip("/"),
                                    timeout=TIMEOUT) as r:
            return json.load(r)

    def submit(self, text, name="workflow.xml"):
        self.open("#/submit")
        box = self.wait(lambda d: d.find_element(By.ID, "wf-text"),
                        "the submit form")
        n = self.d.find_element(By.ID, "wf-name")
        n.clear()
        n.send_keys(name)
        box.send_keys(text)
        self.click("#wf-submit", "the submit button")

    def submit_workflow(self, duration_ms):
        """The sample workflow through the form; its uuid, from where the
        page goes once it is accepted."""
        self.submit(sample_workflow(params_file(self.a.dir, duration_ms)))
        m = self.wait(lambda d: re.match(r".*#/workflow/([0-9a-f-]{36})$",
                                         d.current_url), "the new workflow")
        return m.group(1)

    def test_the_grid_shows_three_workstations_and_one_master(self):
        self.open("#/")
        cards = self.wait(lambda d: len(self.js(
            "#pool .card.node", "e.dataset.node")) == 3 and self.js(
            "#pool .card.node", "[e.dataset.node, e.dataset.role, "
            "e.dataset.state, e.querySelector('h3').textContent]"),
            "three workstations")
        self.assertEqual(sorted(c[0] for c in cards), ["a", "b", "c"])
        masters = [c for c in cards if c[1] == "master"]
        self.assertEqual(len(masters), 1)
        self.assertIn("master", masters[0][3])
        self.assertEqual([c[2] for c in cards], ["dedicated"] * 3)
        self.shot("pool")

    def test_the_sample_workflow_from_the_form_runs_to_green(self):
        wf = self.submit_workflow(400)
        self.wait(lambda d: len(d.find_elements(
            By.CSS_SELECTOR, "#dag g[data-task]")) == 4, "the four tasks' DAG")
        # Edges are labelled by the outputs they carry (I->G carries 1,2,3).
        self.assertIn("1,2,3", self.js("#dag .edge-label", "e.textContent"))
        self.wait(lambda d: d.find_elements(
            By.CSS_SELECTOR, "#dag g[data-state=Running]"), "a task running")
        self.shot("workflow-running")

        self.wait(lambda d: self.js(
            "tr[data-task] .bar > span", "e.style.width") == ["100%"] * 4,
            "four bars at 100 %")
        self.wait(lambda d: self.js("#dag g", "e.dataset.state")
                  == ["Terminated"] * 4, "every box Terminated")
        self.assertEqual(self.js("#dag g rect:first-child",
                                 "getComputedStyle(e).fill"), [GREEN] * 4)
        self.shot("workflow-done")
        # The node agrees: what the page shows is what the API says.
        tasks = self.api("/api/tasks?workflow=" + wf)
        self.assertEqual([t["state"] for t in tasks], ["Terminated"] * 4)

    def test_a_broken_file_shows_its_errors_and_schedules_nothing(self):
        before = len(self.api("/api/tasks"))
        broken = sample_workflow(params_file(self.a.dir, 100)).replace(
            'name="segmentation"', 'name="segmentaton"').replace(
            '<input task="S" output="1"/>', '<input task="X" output="1"/>')
        self.submit(broken, name="broken.xml")
        items = self.wait(lambda d: d.find_elements(
            By.CSS_SELECTOR, "#wf-result .problems li"), "the problems")
        text = [i.text for i in items]
        self.assertTrue(any(re.match(r"broken\.xml:\d+: .*segmentaton", t)
                            for t in text), text)
        self.assertTrue(any(re.match(r"broken\.xml:\d+: .*X", t)
                            for t in text), text)
        self.assertIn("#/submit", self.d.current_url)
        self.shot("submit-errors")
        self.assertEqual(len(self.api("/api/tasks")), before)

    def test_cancel_asks_first_then_cancels(self):
        wf = self.submit_workflow(60000)
        uuid = self.api("/api/tasks?workflow=" + wf)[0]["uuid"]
        link = "tr[data-task='%s'] a" % uuid
        self.wait(lambda d: self.js(link, "e.textContent") == ["import"],
                  "the tasks table")
        self.click(link, "the task's link")
        self.wait(lambda d: "Running" in self.task_text(),
                  "the task running")
        self.shot("task")
        button = "#task ~ p [data-cancel='%s']" % uuid
        # Dismissed, nothing happens.
        self.click_for_alert(button, "a cancel button")
        self.d.switch_to.alert.dismiss()
        self.assertEqual(self.api("/api/tasks/" + uuid)["state"], "Running")
        # Accepted, the task and those that depend on it are cancelled.
        self.click_for_alert(button, "the cancel button again")
        self.d.switch_to.alert.accept()
        self.wait(lambda d: "Cancelled" in self.task_text(),
                  "the task cancelled")
        self.assertEqual([t["state"] for t in self.api(
            "/api/tasks?workflow=" + wf)], ["Cancelled"] * 4)

    def test_one_command_run_from_the_page(self):
        self.open("#/submit")
        box = self.wait(lambda d: d.find_element(By.ID, "run-line"),
                        "the run form")
        box.send_keys("echo from the page")
        self.click("#run-go", "the run button")
        m = self.wait(lambda d: re.match(r".*#/task/([0-9a-f-]{36})$",
                                         d.current_url), "the task's page")
        self.wait(lambda d: "Terminated" in self.task_text(),
                  "the task done")
        t = self.api("/api/tasks/" + m.group(1))
        self.assertEqual(t["command"], ["/bin/sh", "-c",
                                        "echo from the page"])
        self.assertEqual(t["exit_code"], 0)
        # A refusal is shown where the button is.
        self.open("#/submit")
        self.wait(lambda d: d.find_element(By.ID, "run-line"), "the run form")
        self.d.find_element(By.ID, "run-cwd").send_keys("relative/dir")
        self.d.find_element(By.ID, "run-line").send_keys("true")
        self.click("#run-go", "the run button")
        self.wait(lambda d: self.js("#run-result .problems", "e.textContent"),
                  "the refusal")

    def run_from_page(self, line, deadline_in=None, strict=False):
        """line through the run form, to end within deadline_in s of the
        moment the "End by" field is filled in, if given, as a person
        picks a date and time there (to the millisecond, which the field
        takes, so that a deadline seconds ahead is not cut short)."""
        self.open("#/submit")
        box = self.wait(lambda d: d.find_element(By.ID, "run-line"),
                        "the run form")
        box.send_keys(line)
        if deadline_in is not None:
            at = time.time() + deadline_in
            self.d.execute_script(
                "document.getElementById('run-deadline').value = "
                "arguments[0]", time.strftime("%Y-%m-%dT%H:%M:%S",
                                              time.localtime(at)) +
                ".%03d" % (at % 1 * 1000))
        if strict:
            self.click("#run-strict", "the refuse-if-late box")
        self.click("#run-go", "the run button")

    def test_a_deadline_from_the_page_is_answered_with_its_forecast(self):
        self.run_from_page("sleep 3")        # a run of sleep to learn from
        self.wait(lambda d: "Terminated" in self.task_text(), "it done")
        self.run_from_page("sleep 3", deadline_in=3600)
        m = self.wait(lambda d: re.match(r".*#/task/([0-9a-f-]{36})$",
                                         d.current_url), "the task's page")
        self.wait(lambda d: re.match(r"Expected to end .+ \(deadline .+\)\.$",
                                     "".join(self.js("#told",
                                                     "e.textContent"))),
                  "the forecast told at submit")
        self.wait(lambda d: re.search(r"Deadline.*: expected to end .*, "
                                      r"5\dm to spare", self.task_text()),
                  "the slack while it runs")
        self.shot("deadline-task")
        self.wait(lambda d: re.search(r"Deadline.*: met, 5\dm to spare",
                                      self.task_text()), "the deadline met")
        self.assertGreater(self.api("/api/tasks/" + m.group(1))
                           ["deadline_ms"], (time.time() + 3000) * 1000)
        # Refuse if late: a 3-s program cannot end in 2 s (and 2 s are
        # enough for the click to reach the node before the deadline).
        before = len(self.api("/api/tasks"))
        self.run_from_page("sleep 3", deadline_in=2, strict=True)
        self.wait(lambda d: "cannot meet its deadline" in "".join(self.js(
            "#run-result .problems", "e.textContent")), "the refusal")
        self.assertEqual(len(self.api("/api/tasks")), before)
        # A workflow file's: told at submit, then its own line.
        self.open("#/submit")
        self.wait(lambda d: d.find_element(By.ID, "wf-text"), "the form")
        self.d.execute_script(
            "document.getElementById('wf-deadline').value = arguments[0]",
            time.strftime("%Y-%m-%dT%H:%M", time.localtime(time.time() +
                                                            7200)))
        self.d.find_element(By.ID, "wf-text").send_keys(
            '<workflow><command id="s"><arg>sh</arg><arg>-c</arg>'
            '<arg>sleep 3</arg></command></workflow>')
        self.click("#wf-submit", "the submit button")
        self.wait(lambda d: "".join(self.js("#told", "e.textContent"))
                  .startswith("Expected to end "), "the workflow's forecast")
        self.wait(lambda d: re.match(r"Deadline .+: met, 11\dm to spare$",
                                     "".join(self.js("#wf-deadline",
                                                     "e.textContent"))),
                  "the workflow's deadline met")

    def test_the_log_search_box_and_a_tasks_log(self):
        wf = self.submit_workflow(50)
        uuid = self.api("/api/tasks?workflow=" + wf)[0]["uuid"]
        self.wait(lambda d: self.js("#dag g", "e.dataset.state")
                  == ["Terminated"] * 4, "the workflow done")
        # The task's page lists its own log lines.
        self.open("#/task/" + uuid)
        self.wait(lambda d: any("state{Terminated}" in m for m in self.js(
            "#task-log tr", "e.textContent")), "the task's log lines")
        self.assertTrue(all(uuid in m for m in self.js(
            "#task-log tr td:last-child", "e.textContent")))
        # The search box: an expression and a level, as volery log takes.
        self.open("#/log")
        box = self.wait(lambda d: d.find_element(By.ID, "log-regex"),
                        "the search box")
        box.send_keys("state\\{Terminated\\}")	# logged by every node
        self.d.find_element(By.ID, "log-task").send_keys(uuid)
        self.click("#log-search", "the search button")
        rows = self.wait(lambda d: self.js("#log-result tr",
                                           "e.textContent"), "the lines found")
        # One end (a node may log it again as its confirmation comes).
        self.assertEqual(len(set(rows)), 1, rows)
        self.assertIn(uuid, rows[0])
        self.shot("log")
        box.clear()
        box.send_keys("(unclosed")
        self.click("#log-search", "the search button")
        self.wait(lambda d: "regular expression" in "".join(self.js(
            "#log-result .problems", "e.textContent")), "the bad expression")

    def test_the_charts_count_what_finished_and_how_the_days_went(self):
        wf = self.submit_workflow(50)
        self.wait(lambda d: self.js("#dag g", "e.dataset.state")
                  == ["Terminated"] * 4, "the workflow done")
        self.open("#/charts")
        self.wait(lambda d: self.js("#finished-chart rect", "1"),
                  "bars of finished tasks")
        stats = self.api("/api/stats?hours=6")
        self.assertGreaterEqual(sum(b["finished"] for b in stats["buckets"]),
                                4)
        self.assertTrue(self.js("#times-chart polyline", "1"))
        # Every workstation's day so far: given (dedicated), and the time
        # some of them ran tasks.
        rows = self.wait(lambda d: len(self.js("#days-chart tr[data-node]",
                                               "1")) == 3 and self.js(
            "#days-chart tr[data-node]", "[e.dataset.node, "
            "[...e.querySelectorAll('[data-state]')].map(s => "
            "s.dataset.state), e.querySelector('.run span') !== null]"),
            "three workstations' days")
        self.assertEqual(sorted(r[0] for r in rows), ["a", "b", "c"])
        self.assertTrue(all(r[1] == ["dedicated"] for r in rows), rows)
        self.assertTrue(any(r[2] for r in rows), rows)
        self.d.set_window_size(1280, 1250)
        self.shot("charts")
        # Another range is another question to the node.
        self.click("[data-hours='24']", "the 24 h button")
        self.wait(lambda d: self.js("[data-hours='24'].primary", "1") and
                  self.js("#finished-chart rect", "1"), "the last 24 h")

    def test_the_page_fits_a_phone(self):
        self.d.set_window_size(390, 844)
        for route in ("#/", "#/workflows", "#/submit", "#/log", "#/charts"):
            self.open(route)
            self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "main > *"),
                      "the page drawn")
            wide = self.d.execute_script(
                "return document.documentElement.scrollWidth - "
                "document.documentElement.clientWidth")
            self.assertLessEqual(wide, 0, "%s scrolls sideways" % route)
        self.open("#/")
        self.wait(lambda d: len(d.find_elements(
            By.CSS_SELECTOR, "#pool .card.node")) == 3, "three workstations")
        self.shot("phone")


@unittest.skipUnless(PLAIN, "the browser drives the plain build")
class Demo(unittest.TestCase):
    def test_make_demo_prints_the_dashboard_where_its_workflows_run_live(self):
        base = random.randrange(20000, 29000, 100)
        d = chrome()	# before the demo: its tasks will not wait for it
        self.addCleanup(d.quit)
        demo = subprocess.Popen(
            ["bash", os.path.join(ROOT, "tools", "demo.sh")],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True,
            env=dict(os.environ, VOLERY=harness.VOLERY, VOLERY_DEMO_MS="600",
                     VOLERY_DEMO_PORT=str(base)))
        self.addCleanup(demo.wait)
        self.addCleanup(demo.kill)
        url = None
        for line in demo.stdout:
            m = re.match(r"== dashboard: (http://127\.0\.0\.1:\d+/) ", line)
            if m:
                url = m.group(1)
                break
        self.assertEqual(url, "http://127.0.0.1:%d/" % (base + 80))
        d.get(url)
        # Three workflows, tasks running on the three workstations' cards.
        wait(d, lambda d: len(js(d, "#workflows tr[data-workflow]",
                                 "e.dataset.workflow")) == 3
             and js(d, "#pool .card.node .bar", "e.dataset.state"), TIMEOUT)
        self.assertEqual(len(js(d, "#pool .card.node", "e.dataset.node")), 3)
        shot(d, "demo")
        rest = demo.stdout.read()
        self.assertEqual(demo.wait(timeout=TIMEOUT * 3), 0, rest)
        self.assertIn("== all 12 tasks completed", rest)


if __name__ == "__main__":
    unittest.main()
