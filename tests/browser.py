"""A real headless browser for tests: Debian's chromium and chromium-driver through Selenium.

``.ci/run`` installs both; where neither can be had, :func:`chromium` skips the test and says why.
Playwright's own browser download cannot be reached from the test machines, so the system browser is used.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import struct
import tempfile
import threading
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


class Relay:
    """A TCP relay on a port of its own, forwarding every connection to the server on port ``target``.

    The page keeps one origin (the relay's) while the server behind it dies and comes back on whatever port
    the system gives it: no test waits for a released port to be free again. While ``target`` is None, or
    nothing listens there, a connection is reset at once, as a dead server's would be.
    """

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.target: int | None = None
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # closed
                return
            threading.Thread(target=self._connect, args=(client,), daemon=True).start()

    def _connect(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target))
        except (OSError, TypeError):
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # reset, not a clean close
            client.close()
            return
        threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()
        _pipe(client, upstream)


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    """Copy ``source`` to ``sink`` until either end closes, then close both."""
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    for end in (source, sink):
        with contextlib.suppress(OSError):
            end.shutdown(socket.SHUT_RDWR)
        end.close()
