"""One HTTP POST bounded in time and size: how the LLM client reaches its server.

A socket timeout bounds each read, not a request: a server that drips its reply
a byte at a time would hold a run for ever. Here a timer shuts the request's
sockets once its whole time is up (:class:`Deadline`), and a reply is read only
up to a size limit, so one reply can neither stall a run nor fill the disk with
its cache. urllib does the rest as usual (proxies from the environment, TLS,
redirects).
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from email.message import Message
from typing import Any

CHUNK = 65536


class TimedOut(TimeoutError):
    """The whole exchange took longer than its time."""


class TooLarge(ValueError):
    """The reply is larger than the limit (``size``: its declared length, or what was read before stopping)."""

    def __init__(self, size: int) -> None:
        super().__init__(f"a reply of more than {size} bytes")
        self.size = size


@dataclass(frozen=True)
class Answer:
    """A server's reply: its status, headers and whole body (whatever the status)."""

    status: int
    headers: Message
    body: bytes


class Deadline:
    """Shuts every socket opened for one request once ``seconds`` have passed since :meth:`start`."""

    def __init__(self, seconds: float) -> None:
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._passed = self._stopped = False
        self._timer = threading.Timer(seconds, self._cut)
        self._timer.daemon = True

    def start(self) -> Deadline:
        self._timer.start()
        return self

    def stop(self) -> bool:
        """Stop watching; whether the time ran out first."""
        with self._lock:
            self._timer.cancel()
            self._stopped = True
            return self._passed

    def watch(self, sock: socket.socket) -> socket.socket:
        with self._lock:
            self._sockets.append(sock)
            if self._passed:
                _shut(sock)
        return sock

    def connection(self, cls: type[http.client.HTTPConnection]) -> Callable[..., http.client.HTTPConnection]:
        """A factory of ``cls`` connections whose sockets this deadline watches (urllib calls it as the class)."""

        def connect(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
            conn = cls(*args, **kwargs)
            create = conn._create_connection  # the raw socket, before TLS wraps it: a stalled handshake is cut too
            conn._create_connection = lambda *a, **k: self.watch(create(*a, **k))
            return conn

        return connect

    def _cut(self) -> None:
        with self._lock:
            if self._stopped:
                return
            self._passed = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)  # a blocked read returns at once; the owner still closes the socket


class _Watched:
    """Mixed into urllib's HTTP and HTTPS handlers: their connections' sockets are watched by ``deadline``."""

    deadline: Deadline

    def do_open(self, http_class: Any, req: urllib.request.Request, **kwargs: Any) -> Any:
        return super().do_open(self.deadline.connection(http_class), req, **kwargs)


class _HTTPHandler(_Watched, urllib.request.HTTPHandler):
    pass


class _HTTPSHandler(_Watched, urllib.request.HTTPSHandler):
    pass


def _opener(deadline: Deadline) -> urllib.request.OpenerDirector:
    """urllib's usual opener (proxies, redirects, TLS), its HTTP(S) connections watched by ``deadline``."""
    handlers = [_HTTPHandler(), _HTTPSHandler()]
    for handler in handlers:
        handler.deadline = deadline
    return urllib.request.build_opener(*handlers)


def post(url: str, data: bytes, headers: dict[str, str], timeout_s: float, max_bytes: int) -> Answer:
    """POST ``data`` to ``url`` and read the whole reply within ``timeout_s`` seconds in all.

    Raises :class:`TimedOut` when the time runs out (connecting, waiting or reading), :class:`TooLarge` for a reply
    of more than ``max_bytes`` bytes (refused from its declared length, unread, where it declares one), and
    ``OSError`` or ``http.client.HTTPException`` when the connection fails.
    """
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    deadline = Deadline(timeout_s).start()
    opener = _opener(deadline)
    try:
        try:
            response = opener.open(request, timeout=timeout_s)
        except urllib.error.HTTPError as exc:  # a reply all the same: its status and body are the caller's to judge
            response = exc
        try:
            answer = Answer(response.status, response.headers, read_limited(response, max_bytes))
        finally:
            response.close()
    except (OSError, http.client.HTTPException):
        if deadline.stop():
            raise TimedOut(f"no whole reply within {timeout_s:g} s") from None
        raise
    if deadline.stop():  # a reply without a length ends where the socket was shut: it may be cut short
        raise TimedOut(f"no whole reply within {timeout_s:g} s")
    return answer


def read_limited(response: Any, max_bytes: int) -> bytes:
    """A response's body, refused (:class:`TooLarge`) once it passes ``max_bytes``."""
    declared = (response.headers.get("Content-Length") or "").strip()
    if declared.isascii() and declared.isdigit() and (len(declared) > 18 or int(declared) > max_bytes):
        raise TooLarge(max_bytes)
    chunks, size = [], 0
    while chunk := response.read(min(CHUNK, max_bytes + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge(max_bytes)
    return b"".join(chunks)
