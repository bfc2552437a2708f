"""``marple study-server``: serve a web study folder and collect its answers, fit to face the internet.

GET and HEAD serve the folder's files (never a directory listing). POST to
``/answers`` takes JSON Lines (the page sends ``text/plain``) with the study's
write key in the ``X-Study-Key`` header (written into the built page, so that
pages of other sites and blind scripts cannot write). Each line is read with
the reader scoring uses (:func:`~marple.study.responses.check_entry`) and
checked against the study (:mod:`~marple.study.sink`); a POST with a line
scoring would refuse gets a 400 and nothing of it is written. Accepted lines
are on disk (fsynced) before the reply ``{"saved": n, "received": m}``; when
they cannot be written the reply is a 503 and the page sends them again.

Limits keep one client from taking the server from others (:class:`Limits`):
request size and lines per request, a timeout on every socket read and a
deadline for the whole request, a cap on open connections and a smaller one per
client address (more get a 503 at once, so idle sockets of one address cannot
take every slot) and a listen backlog; answers are written in group commits by one
thread, so a client sending many lines costs others one fsync. No response
carries ``Access-Control-Allow-Origin``: the page posts to the server that
served it. Every malformed request gets a 4xx.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import os
import selectors
import signal
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from marple.study.responses import check_entry
from marple.study.sink import AnswerSink, LineRefused, SinkUnavailable, StudyIndex
from marple.study.trials import StudyError
from marple.study.web import read_web_study
from marple_gym.validation import message_error, parse_json

log = logging.getLogger(__name__)

ANSWERS_PATH = "/answers"
KEY_HEADER = "X-Study-Key"
LINGER = 2.0  # seconds a connection turned away with a 503 is read from before it closes
MAX_TURNED_AWAY = 1024  # connections lingering at once; past this one closes at once


@dataclass(frozen=True)
class Limits:
    """What one request and all connections together may take."""

    max_body: int = 256 * 1024  # bytes of one POST (the page sends at most 100 lines of a few hundred bytes)
    max_lines: int = 200  # lines of one POST
    max_line: int = 16 * 1024  # bytes of one line (a session line lists every trial of a sequence)
    socket_timeout: float = 10.0  # seconds any one read from or write to a client may take
    request_deadline: float = 30.0  # seconds a connection may stay open in all
    max_connections: int = 256  # open connections; more are answered 503 and closed at once
    # Open connections from one client address; more from it get a 503 as above (0: no cap). A browser opens at most
    # 6 to a server, so 32 leaves room for a few participants behind one NAT. Behind a reverse proxy every
    # connection comes from the proxy's address: set 0 there and let the proxy cap each client (docs/study.md).
    max_per_address: int = 32
    backlog: int = 1024  # connections the kernel queues before the server accepts them
    commit_wait: float = 30.0  # seconds a POST waits for its lines to be on disk before a 503


class RequestRefused(Exception):
    """A request answered with ``status`` and an error message."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


class StudyServer(ThreadingHTTPServer):
    """Serves a study folder and writes answers to an :class:`AnswerSink` (start with ``serve_forever``)."""

    daemon_threads = True
    block_on_close = False

    def __init__(
        self, address: tuple[str, int], folder: Path, sink: AnswerSink, key: str | None, limits: Limits
    ) -> None:
        self.folder, self.sink, self.key, self.limits = folder, sink, key, limits
        self.request_queue_size = limits.backlog
        self._open: dict[socket.socket, tuple[float, str]] = {}  # connection -> (deadline, monotonic; its address)
        self._per_address: dict[str, int] = {}  # client address -> its open connections (addresses with some only)
        self._warned_per_address = False  # the per-address cap was hit and logged once (it may mean a proxy)
        self._turned_away: dict[socket.socket, float] = {}  # answered 503, read until closed or this time
        self._lock = threading.Lock()
        self._stop = threading.Event()
        super().__init__(address, StudyHandler)
        self._reaper = threading.Thread(target=self._reap, name="deadline-reaper", daemon=True)
        self._reaper.start()

    def process_request(self, request: socket.socket, client_address: Any) -> None:
        address = str(client_address[0] if isinstance(client_address, tuple) else client_address)
        with self._lock:
            refused = self._refusal(address)
            if refused is None:
                self._open[request] = (time.monotonic() + self.limits.request_deadline, address)
                self._per_address[address] = self._per_address.get(address, 0) + 1
        if refused is not None:  # answered here, without a thread: a flood of connections cannot exhaust them
            self._log_refusal(refused, address)
            self._turn_away(request)
            return
        super().process_request(request, client_address)

    def _refusal(self, address: str) -> str | None:
        """Why a new connection from ``address`` gets no slot (None: it gets one); called holding the lock."""
        if len(self._open) >= self.limits.max_connections:
            return "full"
        cap = self.limits.max_per_address
        if cap and self._per_address.get(address, 0) >= cap:
            return "per address"
        return None

    def _log_refusal(self, refused: str, address: str) -> None:
        # The first time one address fills its share, say so loudly: behind a proxy that has not been declared
        # (every connection from one address) it turns participants away, and only the log can tell.
        if refused == "per address" and not self._warned_per_address:
            self._warned_per_address = True
            log.warning(
                "%s holds %d connections, the most one address may: more from it get a 503 (behind a reverse "
                "proxy every connection comes from the proxy: start the server with --max-per-address 0)",
                address,
                self.limits.max_per_address,
            )
        else:
            log.debug("%s turned away: %s", address, refused)

    def _turn_away(self, request: socket.socket) -> None:
        """Answer 503 and close gently: the reaper reads what the client still sends.

        Closing a socket with unread request bytes makes the kernel send a reset,
        which can destroy the 503 before the client reads it; so the reply is
        followed by a half close, and the socket closes only when the client
        closes its side or after ``LINGER`` seconds.
        """
        try:
            request.settimeout(1.0)
            request.sendall(b"HTTP/1.0 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n")
            request.shutdown(socket.SHUT_WR)
        except OSError:
            request.close()
            return
        with self._lock:
            if len(self._turned_away) >= MAX_TURNED_AWAY:  # a flood: no room to linger
                request.close()
                return
            request.setblocking(False)
            self._turned_away[request] = time.monotonic() + LINGER

    def close_request(self, request: socket.socket) -> None:
        with self._lock:
            opened = self._open.pop(request, None)
            if opened is not None:  # an address without open connections leaves the table: it cannot grow for ever
                address = opened[1]
                self._per_address[address] -= 1
                if not self._per_address[address]:
                    del self._per_address[address]
        super().close_request(request)

    def _reap(self) -> None:
        """Cut connections past their deadline (a slow client trickling bytes never times out a single read).

        Between sweeps it drains the connections turned away with a 503 and
        closes each once its client has closed or its linger time is over.
        """
        pause = min(1.0, self.limits.request_deadline / 4, LINGER / 4)
        with selectors.DefaultSelector() as watching:
            while not self._stop.is_set():
                self._drain_turned_away(watching, pause)
                now = time.monotonic()
                with self._lock:
                    late = [conn for conn, (deadline, _) in self._open.items() if deadline < now]
                for conn in late:
                    with contextlib.suppress(OSError):
                        conn.shutdown(socket.SHUT_RDWR)
        with self._lock:
            for conn in self._turned_away:
                conn.close()
            self._turned_away.clear()

    def _drain_turned_away(self, watching: selectors.BaseSelector, pause: float) -> None:
        with self._lock:
            for conn in self._turned_away:
                if watching.get_map().get(conn) is None:
                    watching.register(conn, selectors.EVENT_READ)
        if not watching.get_map():
            self._stop.wait(pause)
            return
        done = set()
        for key, _ in watching.select(pause):
            try:
                if not key.fileobj.recv(65536):
                    done.add(key.fileobj)
            except BlockingIOError:
                pass
            except OSError:
                done.add(key.fileobj)
        now = time.monotonic()
        with self._lock:
            done |= {conn for conn, until in self._turned_away.items() if until < now}
            for conn in done:
                self._turned_away.pop(conn, None)
        for conn in done:
            watching.unregister(conn)
            conn.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that went away or was cut at its deadline: nothing to report but a debug line.
        log.debug("connection from %s ended with an error", client_address, exc_info=True)

    def server_close(self) -> None:
        self._stop.set()
        super().server_close()
        self.sink.close()


class StudyHandler(SimpleHTTPRequestHandler):
    """Static files of the study folder, and POST /answers."""

    server: StudyServer
    server_version = "marple-study"
    sys_version = ""
    default_request_version = "HTTP/1.0"  # an HTTP/0.9-style request line still gets a status line

    def __init__(self, request: Any, client_address: Any, server: StudyServer) -> None:
        self.timeout = server.limits.socket_timeout  # every read and write on the socket
        super().__init__(request, client_address, server, directory=str(server.folder))

    # ---- what every response carries --------------------------------------------------------------------
    def end_headers(self) -> None:
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")  # the URL carries the participant's platform id
        self.send_header("X-Frame-Options", "DENY")
        super().end_headers()

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # An unknown method or HTTP version is the client's error, not a missing feature of the server.
        if code == HTTPStatus.NOT_IMPLEMENTED:
            code, message = HTTPStatus.METHOD_NOT_ALLOWED, "only GET, HEAD and POST /answers"
        elif code == HTTPStatus.HTTP_VERSION_NOT_SUPPORTED:
            code, message = HTTPStatus.BAD_REQUEST, "only HTTP/1.0 and HTTP/1.1"
        super().send_error(code, message, explain)

    def send_head(self) -> Any:
        # A path no file can have (a NUL, a lone surrogate from %ED%A0%80) makes open() raise ValueError, which
        # the base class lets through and the connection would close without a status.
        path = self.translate_path(self.path)
        try:
            if "\x00" not in path:
                os.fsencode(path)
                return super().send_head()
        except UnicodeEncodeError:
            pass
        self.send_error(HTTPStatus.BAD_REQUEST, "the path is not a file name")
        return None

    def list_directory(self, path: str | Path) -> None:
        self.send_error(HTTPStatus.NOT_FOUND, "no such file")
        return None

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    # ---- answers ----------------------------------------------------------------------------------------
    def do_POST(self) -> None:
        try:
            entries = self._read_answers()
            saved = self.server.sink.submit(entries, self.server.limits.commit_wait)
        except RequestRefused as exc:
            self._reply(exc.status, {"error": str(exc)})
        except TimeoutError:
            self.close_connection = True
            self._reply(HTTPStatus.REQUEST_TIMEOUT, {"error": "the request took too long to arrive"})
        except LineRefused as exc:
            log.warning("%s: refused: %s", self.address_string(), exc)
            self._reply(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
        except SinkUnavailable as exc:
            self._reply(HTTPStatus.SERVICE_UNAVAILABLE, {"error": str(exc)}, {"Retry-After": "1"})
        else:
            self._reply(HTTPStatus.OK, {"saved": saved, "received": len(entries)})

    def _read_answers(self) -> list[dict[str, Any]]:
        """The checked lines of a POST /answers; :class:`RequestRefused` says why not."""
        limits = self.server.limits
        if self.path.split("?")[0].rstrip("/") != ANSWERS_PATH:
            raise RequestRefused(HTTPStatus.NOT_FOUND, f"POST answers to {ANSWERS_PATH}")
        if self.server.key is None:
            raise RequestRefused(HTTPStatus.FORBIDDEN, "this study was built without --post: it takes no answers")
        if not hmac.compare_digest(self.headers.get(KEY_HEADER, "").encode(), self.server.key.encode()):
            raise RequestRefused(HTTPStatus.FORBIDDEN, f"missing or wrong {KEY_HEADER}")
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            raise RequestRefused(HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length, not chunked")
        length = self.headers.get("Content-Length")
        if length is None:
            raise RequestRefused(HTTPStatus.LENGTH_REQUIRED, "a POST needs a Content-Length")
        size = byte_count(length)
        if size is None or not 0 < size <= limits.max_body:
            self.close_connection = True  # the body is not read: the connection cannot carry another request
            status = HTTPStatus.REQUEST_ENTITY_TOO_LARGE if size else HTTPStatus.BAD_REQUEST
            if status == HTTPStatus.REQUEST_ENTITY_TOO_LARGE and size <= 4 * limits.max_body:
                self.rfile.read(size)  # read a body a little too large, so that a proxy still sending it
                # gets the 413 rather than a reset connection (which it would pass on as a 502)
            raise RequestRefused(status, f"Content-Length must be a number of bytes in 1..{limits.max_body}")
        body = self.rfile.read(size)
        if len(body) < size:
            self.close_connection = True
            raise RequestRefused(HTTPStatus.BAD_REQUEST, "the body is shorter than its Content-Length")
        return parse_lines(body, limits)

    def _reply(self, status: HTTPStatus, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in {"Cache-Control": "no-store", "Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def byte_count(header: str) -> int | None:
    """The size a ``Content-Length`` header gives, or None when it is not a decimal number (``str.isdigit`` alone
    takes "²", which ``int`` refuses). A number of more digits than any body has is read as 10**18."""
    digits = header.strip()
    if not (digits.isascii() and digits.isdigit()):
        return None
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 18 else 10**18


def parse_lines(body: bytes, limits: Limits = Limits()) -> list[dict[str, Any]]:
    """The lines of a POST body, each read as scoring reads it and carrying the web page's ``client`` and ``seq``;
    :class:`RequestRefused` (400 or 413) naming the first line that is not."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestRefused(HTTPStatus.BAD_REQUEST, f"the body is not UTF-8 text (byte {exc.start})") from None
    lines = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
    if not lines:
        raise RequestRefused(HTTPStatus.BAD_REQUEST, "no lines in the body")
    if len(lines) > limits.max_lines:
        raise RequestRefused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"at most {limits.max_lines} lines per request")
    error = message_error(lambda message: RequestRefused(HTTPStatus.BAD_REQUEST, message))
    entries = []
    for n, line in lines:
        if len(line) > limits.max_line:
            raise RequestRefused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"line {n}: longer than {limits.max_line} bytes")
        try:
            entry = check_entry(parse_json(line, None, error, where=f"line {n}"), None, n)
        except StudyError as exc:
            raise RequestRefused(HTTPStatus.BAD_REQUEST, str(exc)) from None
        if entry.get("source") != "web" or entry.get("client") is None or entry.get("seq") is None:
            raise RequestRefused(HTTPStatus.BAD_REQUEST, f"line {n}: a web study line needs source, client and seq")
        entries.append(entry)
    return entries


def make_server(
    folder: str | Path, out: str | Path, host: str = "127.0.0.1", port: int = 8000, limits: Limits = Limits()
) -> StudyServer:
    """A server for the study ``folder`` writing answers to ``out`` (not started: call ``serve_forever``)."""
    folder = Path(folder)
    if not (folder / "index.html").is_file():
        raise StudyError(f"{folder} is not a web study folder (no index.html); build one with `marple study-web`")
    if Path(out).resolve().is_relative_to(folder.resolve()):
        raise StudyError(
            f"{out} is inside the study folder, which the server serves to anyone: put the answers elsewhere"
        )
    study = read_web_study(folder)
    sink = AnswerSink(out, StudyIndex.of(study))
    try:
        return StudyServer((host, port), folder, sink, study.get("write_key"), limits)
    except OSError as exc:
        sink.close()
        raise StudyError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def _quiet(server: StudyServer) -> None:
    """Tell no one (the default of :func:`serve_study`'s ``ready``)."""


def serve_study(
    folder: str | Path,
    out: str | Path,
    host: str = "127.0.0.1",
    port: int = 8000,
    ready: Callable[[StudyServer], None] = _quiet,
    limits: Limits | None = None,
) -> None:
    """Serve the study ``folder``, its answers appended to ``out``, until Ctrl-C or SIGTERM (a service manager
    stopping it), either of which stops it cleanly: what is queued is written first. ``ready(server)`` is called
    once it listens (its ``server_address`` has the port when ``port`` is 0); ``limits`` default to
    :class:`Limits`'. Call it from the main thread (it sets the SIGTERM handler)."""
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be in 0..65535, got {port}")
    server = make_server(folder, out, host, port, limits or Limits())
    ready(server)
    # SIGTERM stops it as Ctrl-C does. The handler runs in this thread, inside serve_forever, and shutdown() waits
    # for serve_forever to return: called from here it would wait for itself, so another thread calls it.
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown, daemon=True).start())
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
