"""Headless Chromium for the dashboard's tests: Debian's chromium and
chromium-driver, driven by Selenium (Debian's python3-selenium, taken
from Debian's python3 when the python running the tests has none)."""
import os
import sys

try:
    import selenium  # noqa: F401
except ImportError:
    sys.path.append("/usr/lib/python3/dist-packages")
from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import (  # noqa: E402,F401
    NoSuchElementException, StaleElementReferenceException)
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402,F401
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402,F401
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SHOTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "build", "screenshots")


def chrome(width=1280, height=900):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--window-size=%d,%d"
                % (width, height)):
        options.add_argument(arg)
    os.makedirs(SHOTS, exist_ok=True)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def wait(d, cond, timeout):
    """cond(d) true, the page redrawing under it as events come."""
    return WebDriverWait(d, timeout, poll_frequency=0.05, ignored_exceptions=(
        NoSuchElementException, StaleElementReferenceException)).until(cond)


def shot(d, name):
    d.save_screenshot(os.path.join(SHOTS, name + ".png"))


def js(d, selector, expression):
    """expression (of e) for every element selector matches, read in one
    go: the page redraws as events come."""
    return d.execute_script("return [...document.querySelectorAll("
                            "arguments[0])].map(e => %s)" % expression,
                            selector)
