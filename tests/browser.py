"""Headless Chromium from the system's packages, driven by Playwright, for the HTML report's
browser tests and benchmark. Playwright is pointed at the installed browser and never
downloads one. Where no browser is installed the tests skip, saying what is missing;
``.ci/run`` installs one (Debian's ``chromium``) before the tests."""

from __future__ import annotations

import contextlib
import shutil

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def browser_path() -> str | None:
    return next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)


def missing() -> str | None:
    """Why no browser test can run here, if none can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    if browser_path() is None:
        return "no Chromium on PATH (apt-get install chromium; .ci/run does it)"
    return None


@contextlib.contextmanager
def chromium():
    """A headless Chromium, or a skip that says why there is none."""
    reason = missing()
    if reason:
        pytest.skip(f"browser tests need a browser: {reason}")
    from playwright.sync_api import Error, sync_playwright

    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=browser_path(), args=["--no-sandbox", "--disable-gpu"])
        except Error as exc:  # a browser that is there but cannot start here
            pytest.skip(f"browser tests need a browser: Chromium would not start: {str(exc).splitlines()[0]}")
        try:
            yield browser
        finally:
            browser.close()


class Watched:
    """A page, with every request it made and every console message and page error."""

    def __init__(self, browser, url: str):
        self.page = browser.new_page(viewport={"width": 1280, "height": 1400})
        self.requests: list[str] = []
        self.problems: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: self.problems.append(f"{m.type}: {m.text}")
                     if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.url = url
        self.open()

    def open(self) -> None:
        self.page.goto(self.url)
        self.page.wait_for_function("document.body.dataset.ready === 'true'", timeout=60_000)
