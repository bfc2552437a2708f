"""``marple study-server``: serve a web study folder and collect its answers.

GET serves the folder's files. POST to ``/answers`` takes JSON Lines (the
page sends ``text/plain`` so no CORS preflight is needed) and appends each
``session`` or ``answer`` line to the responses file, flushed and fsynced one
line at a time, before replying ``{"saved": n}``. A page sends a line again
until it gets that reply, so each line carries ``client`` and ``seq`` and the
server keeps every (client, seq) once, across restarts (it reads the file on
start). The file is the desktop study's format; ``marple evaluate --responses``
scores it.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from marple_gym.study.trials import StudyError

log = logging.getLogger(__name__)

ANSWERS_PATH = "/answers"
MAX_BODY = 1 << 20  # one post holds at most a few hundred lines


class AnswerSink:
    """The responses file: appends lines once each, on disk before :meth:`append` returns."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.seen: set[tuple[str, int]] = set()
        if self.path.exists():
            self._repair_and_index()

    def _repair_and_index(self) -> None:
        raw = self.path.read_bytes()
        if raw and not raw.endswith(b"\n"):  # a crash mid-line: drop the partial line so appends stay valid
            keep = raw.rfind(b"\n") + 1
            log.warning("%s: dropping a partial last line left by a crash", self.path)
            with self.path.open("r+b") as f:
                f.truncate(keep)
                os.fsync(f.fileno())
            raw = raw[:keep]
        for line in raw.decode("utf-8").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(entry, dict) and "client" in entry and "seq" in entry:
                self.seen.add((str(entry["client"]), int(entry["seq"])))

    def append(self, entries: list[dict[str, Any]]) -> int:
        """Write the entries not written before; returns how many were new."""
        new = 0
        with self.lock, self.path.open("a", encoding="utf-8") as f:
            for entry in entries:
                key = (str(entry.get("client")), int(entry.get("seq", -1)))
                if "client" in entry and key in self.seen:
                    continue
                f.write(json.dumps(entry) + "\n")
                f.flush()
                os.fsync(f.fileno())
                self.seen.add(key)
                new += 1
        return new


def parse_lines(body: bytes) -> list[dict[str, Any]]:
    """The entries of a POST body (JSON Lines, or one JSON list); ValueError naming what is wrong."""
    text = body.decode("utf-8").strip()
    if text.startswith("["):
        entries = json.loads(text)
    else:
        entries = [json.loads(line) for line in text.splitlines() if line.strip()]
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("type") not in ("session", "answer"):
            raise ValueError("each line must be a JSON object with type 'session' or 'answer'")
        if entry["type"] == "answer":
            slider = entry.get("slider")
            if not isinstance(slider, (int, float)) or not 0 <= slider <= 100:
                raise ValueError(f"an answer's slider must be a number in 0..100, got {slider!r}")
    return entries


class StudyHandler(SimpleHTTPRequestHandler):
    """Static files of the study folder, and POST /answers."""

    sink: AnswerSink

    def __init__(self, *args: Any, sink: AnswerSink, **kwargs: Any) -> None:
        self.sink = sink
        super().__init__(*args, **kwargs)

    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")  # the folder may be hosted elsewhere
        super().end_headers()

    def do_OPTIONS(self) -> None:
        self.send_response(HTTPStatus.NO_CONTENT)
        self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "Content-Type")
        self.end_headers()

    def do_POST(self) -> None:
        if self.path.split("?")[0].rstrip("/") != ANSWERS_PATH:
            self._reply(HTTPStatus.NOT_FOUND, {"error": f"POST answers to {ANSWERS_PATH}"})
            return
        length = int(self.headers.get("Content-Length") or 0)
        if not 0 < length <= MAX_BODY:
            self._reply(HTTPStatus.BAD_REQUEST, {"error": f"body must be 1..{MAX_BODY} bytes"})
            return
        try:
            entries = parse_lines(self.rfile.read(length))
        except (ValueError, UnicodeDecodeError) as exc:
            self._reply(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
            return
        saved = self.sink.append(entries)
        self._reply(HTTPStatus.OK, {"saved": saved, "received": len(entries)})

    def _reply(self, status: HTTPStatus, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)


def make_server(folder: str | Path, out: str | Path, host: str = "127.0.0.1", port: int = 8000) -> ThreadingHTTPServer:
    """A server for ``folder`` writing answers to ``out`` (not started: call ``serve_forever``)."""
    folder = Path(folder)
    if not (folder / "index.html").is_file():
        raise StudyError(f"{folder} is not a web study folder (no index.html); build one with `marple study-web`")
    if Path(out).resolve().is_relative_to(folder.resolve()):
        raise StudyError(
            f"{out} is inside the study folder, which the server serves to anyone: put the answers elsewhere"
        )
    handler = partial(StudyHandler, directory=str(folder), sink=AnswerSink(out))
    try:
        return ThreadingHTTPServer((host, port), handler)
    except OSError as exc:
        raise StudyError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
