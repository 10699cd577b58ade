"""The dashboard in a real browser (issue 15): headless Chromium, driven by
Selenium, against a real three-node loopback cluster.  The grid shows three
workstations and one master; the sample workflow submitted from the form
shows four bars reaching 100 % and its DAG turning green; a broken file
shows the checker's file:line errors; a cancel button (with its
confirmation) cancels; the page fits a phone.  Screenshots go to
build/screenshots/ for people to look at.

Debian's chromium, chromium-driver and python3-selenium (make integration
installs them); Selenium is taken from Debian's python3 when the python
running the tests has none."""
import json
import os
import re
import sys
import unittest
import urllib.request

import harness
from harness import ROOT, TIMEOUT, Cluster, params_file

try:
    import selenium  # noqa: F401
except ImportError:  # Debian's python3-selenium, seen from another python
    sys.path.append("/usr/lib/python3/dist-packages")
if not harness.WRAP:
    from selenium import webdriver
    from selenium.common.exceptions import (NoSuchElementException,
                                            StaleElementReferenceException)
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SHOTS = os.path.join(ROOT, "build", "screenshots")
GREEN = "rgb(46, 157, 87)"  # --Terminated in style.css


def sample_workflow(params):
    """conf/workflow.xml with its parameters file named absolutely: the
    node reads the file, not the browser."""
    with open(os.path.join(ROOT, "conf", "workflow.xml")) as f:
        text = f.read()
    return text.replace("<params>params.xml</params>",
                        "<params>%s</params>" % params)


@unittest.skipIf(harness.WRAP, "a browser against nodes under valgrind "
                 "proves nothing more than test_api does")
class Browser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cl = Cluster(("a", "b", "c"), extra="<http>127.0.0.1:0</http>")
        cls.cl.start()
        cls.cl.master()
        cls.a = cls.cl.nodes["a"]
        m = cls.a.wait_log(r"dashboard and API on (http://127\.0\.0\.1:\d+/)")
        cls.url = m.group(1)
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                    "--disable-dev-shm-usage", "--window-size=1280,900"):
            options.add_argument(arg)
        try:
            cls.d = webdriver.Chrome(service=Service(CHROMEDRIVER),
                                     options=options)
        except Exception:
            cls.cl.cleanup()
            raise
        os.makedirs(SHOTS, exist_ok=True)

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
            return WebDriverWait(
                self.d, timeout, poll_frequency=0.05, ignored_exceptions=(
                    NoSuchElementException, StaleElementReferenceException)
            ).until(cond)
        except Exception:
            self.shot("failed-" + self.id().split(".")[-1])
            raise AssertionError("the page never showed %s" % what)

    def shot(self, name):
        self.d.save_screenshot(os.path.join(SHOTS, name + ".png"))

    def open(self, route):
        self.d.get("about:blank")  # a fresh page, whatever the last test left
        self.d.get(self.url + route)
        self.wait(lambda d: d.find_element(By.ID, "live").text == "live",
                  "the live event stream")

    def js(self, selector, expression):
        """expression (of e) for every element selector matches, read in
        one go: the page redraws as events come."""
        return self.d.execute_script(
            "return [...document.querySelectorAll(arguments[0])]"
            ".map(e => %s)" % expression, selector)

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
        self.d.find_element(By.ID, "wf-submit").click()

    def submit_workflow(self, duration_ms):
        """The sample workflow through the form; its uuid, from where the
        page goes once it is accepted."""
        self.submit(sample_workflow(params_file(self.a.dir, duration_ms)))
        m = self.wait(lambda d: re.match(r".*#/workflow/([0-9a-f-]{36})$",
                                         d.current_url), "the new workflow")
        return m.group(1)

    def test_the_grid_shows_three_workstations_and_one_master(self):
        self.open("#/")
        cards = self.wait(lambda d: len(d.find_elements(
            By.CSS_SELECTOR, "#pool .card.node")) == 3 and d.find_elements(
            By.CSS_SELECTOR, "#pool .card.node"), "three workstations")
        self.assertEqual(sorted(c.get_attribute("data-node") for c in cards),
                         ["a", "b", "c"])
        masters = [c for c in cards if c.get_attribute("data-role") == "master"]
        self.assertEqual(len(masters), 1)
        self.assertIn("master", masters[0].text)
        for c in cards:
            self.assertEqual(c.get_attribute("data-state"), "dedicated")
        self.shot("pool")

    def test_the_sample_workflow_from_the_form_runs_to_green(self):
        wf = self.submit_workflow(1500)
        self.wait(lambda d: len(d.find_elements(
            By.CSS_SELECTOR, "#dag g[data-task]")) == 4, "the four tasks' DAG")
        # Edges are labelled by the outputs they carry (I->G carries 1,2,3).
        self.assertIn("1,2,3", self.js("#dag .edge-label", "e.textContent"))
        self.wait(lambda d: d.find_elements(
            By.CSS_SELECTOR, "#dag g[data-state=Running]"), "a task running")
        self.shot("workflow-running")

        self.wait(lambda d: self.js(
            "tr[data-task] .bar > span", "e.style.width") == ["100%"] * 4,
            "four bars at 100 %", timeout=TIMEOUT + 10)
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
        first = self.wait(lambda d: d.find_element(
            By.CSS_SELECTOR, "tr[data-task] a"), "the tasks table")
        uuid = self.api("/api/tasks?workflow=" + wf)[0]["uuid"]
        self.assertEqual(first.text, "import")
        first.click()
        button = self.wait(lambda d: d.find_element(
            By.CSS_SELECTOR, "[data-cancel='%s']" % uuid), "a cancel button")
        self.wait(lambda d: "Running" in self.task_text(),
                  "the task running")
        self.shot("task")
        # Dismissed, nothing happens.
        button.click()
        WebDriverWait(self.d, TIMEOUT).until(EC.alert_is_present())
        self.d.switch_to.alert.dismiss()
        self.assertEqual(self.api("/api/tasks/" + uuid)["state"], "Running")
        # Accepted, the task and those that depend on it are cancelled.
        self.d.find_element(By.CSS_SELECTOR,
                            "[data-cancel='%s']" % uuid).click()
        WebDriverWait(self.d, TIMEOUT).until(EC.alert_is_present())
        self.d.switch_to.alert.accept()
        self.wait(lambda d: "Cancelled" in self.task_text(),
                  "the task cancelled")
        self.assertEqual([t["state"] for t in self.api(
            "/api/tasks?workflow=" + wf)], ["Cancelled"] * 4)

    def test_the_page_fits_a_phone(self):
        self.d.set_window_size(390, 844)
        for route in ("#/", "#/workflows", "#/submit"):
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


if __name__ == "__main__":
    unittest.main()
