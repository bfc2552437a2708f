"""A real headless browser for tests: Debian's chromium and chromium-driver through Selenium.

``.ci/run`` installs both; where neither can be had, :func:`chromium` skips the test and says why.
Playwright's own browser download cannot be reached from the test machines, so the system browser is used.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator

import pytest

BROWSER = os.environ.get("MARPLE_CHROMIUM", "/usr/bin/chromium")
DRIVER = os.environ.get("MARPLE_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1120",
)


def missing() -> str | None:
    """Why no browser test can run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    for path, package in ((BROWSER, "chromium"), (DRIVER, "chromium-driver")):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            return f"no {path}: install it with `apt-get install -y {package}` (.ci/run does)"
    return None


@contextlib.contextmanager
def chromium(downloads: str | None = None) -> Iterator:
    """A fresh headless chromium (its own profile); ``downloads``: where downloads land."""
    reason = missing()
    if reason:
        pytest.skip(f"browser tests need a browser: {reason}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="marple-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        if downloads:
            driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait_for(condition: Callable[[], object], timeout: float = 60.0, what: str = "the page") -> object:
    """Poll ``condition`` until it returns something truthy; fail naming ``what`` after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with contextlib.suppress(Exception):
            value = condition()
            if value:
                return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
