"""Headless Chromium from the system's packages, driven by Selenium, for the HTML report's
browser tests. Where no browser is installed the tests skip, saying what is missing;
``.ci/run`` installs one (Debian's ``chromium`` and ``chromium-driver``) before the tests."""

from __future__ import annotations

import json
import shutil

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    if not any(shutil.which(b) for b in BROWSERS):
        return "no Chromium on PATH (apt-get install chromium chromium-driver; .ci/run does it)"
    if not shutil.which("chromedriver"):
        return "no chromedriver on PATH (apt-get install chromium-driver; .ci/run does it)"
    return None


def start_browser():
    """A headless Chromium that logs console messages and network events, or a skip."""
    reason = _missing()
    if reason:
        pytest.skip(f"browser tests need a browser: {reason}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = next(shutil.which(b) for b in BROWSERS if shutil.which(b))
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1800", "--no-first-run", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    try:
        return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    except Exception as exc:  # a browser that is there but cannot start here
        pytest.skip(f"browser tests need a browser: Chromium would not start: {str(exc).splitlines()[0]}")


def requested_urls(driver) -> list[str]:
    """Every URL the page asked for since the last call (from the performance log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def wait_ready(driver, timeout: float = 30) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(lambda d: d.execute_script("return document.body.dataset.ready") == "true")
