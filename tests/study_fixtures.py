"""For the web study's tests: a study written by hand with lines as its page writes them, `marple study-server`
in a child process, and a port that outlives the servers behind it.

The hand-written study has no frames (the server and scoring need only its description), so tests using it need
no dataset. Servers bind port 0 and report the port they got, so tests never race for a port; a page that must
reach a server restarted on a new port talks to a :class:`Relay`, which forwards to whichever server is up.
"""

from __future__ import annotations

import contextlib
import json
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

from marple.study.web import WEB_FORMAT, WEB_VERSION
from marple_gym.recording.records import evidence_steps

KEY = "test-write-key-0123456789"
EPISODES = {"v000": ("pillow/h00/000", 20), "v001": ("pillow/h01/000", 7), "p000": ("pillow/practice/000", 12)}


def study_description() -> dict:
    views = {
        view: {
            "episode_id": episode,
            "scenario": "pillow",
            "horizon": horizon,
            "evidence_steps": evidence_steps(horizon),
            "question": "Which agent is more likely to have picked up the pillow?",
            "frames": f"frames/{view}/",
        }
        for view, (episode, horizon) in EPISODES.items()
    }
    return {
        "format": WEB_FORMAT,
        "version": WEB_VERSION,
        "seed": 3,
        "dataset": "study-data",
        "scenario": "pillow",
        "modality": "vision",
        "trial_set": "0123456789abcdef",
        "post_url": "answers",
        "write_key": KEY,
        "completion": None,
        "no_consent": None,
        "minutes": 5,
        "pages": {"consent": "<p>consent</p>", "instructions": "<p>how</p>"},
        "sequences": [{"seed": 3, "views": ["v000", "v001"]}],
        "practice": [{"view": "p000", "answer": "In this practice trial, Agent A (left) picked up the pillow."}],
        "checks": [{"after": 1, "expected": "B"}],
        "views": views,
    }


# ---- lines as the page writes them -------------------------------------------------------------------------
def session(client: str, participant: str, seq: int = 0, **change) -> dict:
    return {
        "type": "session",
        "participant": participant,
        "seed": 3,
        "sequence": 0,
        "dataset": "study-data",
        "scenario": "pillow",
        "modality": "vision",
        "trials": ["pillow/h00/000", "pillow/h01/000"],
        "practice": ["pillow/practice/000"],
        "trial_set": "0123456789abcdef",
        "started": "2026-11-26T10:00:00.000+00:00",
        "source": "web",
        "client": client,
        "seq": seq,
        **change,
    }


def answer(client: str, participant: str, seq: int, trial: int, point: int, slider: int = 70, **change) -> dict:
    episode, horizon = EPISODES[f"v{trial:03d}"]
    line = {
        "type": "answer",
        "participant": participant,
        "episode_id": episode,
        "scenario": "pillow",
        "trial_index": trial,
        "evidence_point": point,
        "tau": evidence_steps(horizon)[point],
        "horizon": horizon,
        "slider": slider,
        "time": "2026-11-26T10:00:01.000+00:00",
        "rt_ms": 800,
        "source": "web",
        "client": client,
        "seq": seq,
    }
    return {**line, **change}


def check(client: str, participant: str, seq: int, slider: int, expected: str = "B") -> dict:
    """An attention check's line (the study asks for one, "B", after the first trial)."""
    line = {"type": "check", "participant": participant, "check": 0, "expected": expected, "slider": slider}
    return {
        **line,
        "time": "2026-11-26T10:00:02.000+00:00",
        "rt_ms": 900,
        "source": "web",
        "client": client,
        "seq": seq,
    }


def participant_lines(client: str, participant: str) -> list[dict]:
    """A whole session: the session line and the 22 answers of both trials."""
    out = [session(client, participant)]
    for trial in (0, 1):
        for point in range(11):
            out.append(answer(client, participant, len(out), trial, point, slider=10 * point))
    return out


def body(*lines: dict) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


class ChildServer:
    """``marple study-server FOLDER --out OUT --port 0`` in its own process (to kill it, or limit its file size)."""

    def __init__(self, folder: Path, out: Path, file_size_limit: int | None = None) -> None:
        def limit() -> None:
            if file_size_limit is not None:
                resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

        argv = [sys.executable, "-m", "marple.cli.main", "study-server", str(folder), "--out", str(out)]
        self.process = subprocess.Popen(
            [*argv, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=limit, text=True
        )
        first = self.process.stdout.readline()  # "serving FOLDER at http://127.0.0.1:PORT/ ; ..."
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", first)
        if not match:
            self.process.kill()
            raise AssertionError(f"the study server did not start: {first!r}")
        self.port = int(match.group(1))

    def kill(self) -> None:
        """SIGKILL: no chance to flush anything; only what is on disk counts."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        """SIGTERM, as a service manager stops it: the server writes what it has queued and exits cleanly."""
        self.process.send_signal(signal.SIGTERM)
        assert self.process.wait() == 0


class Relay:
    """A listening port of its own that forwards each connection to ``target`` (a port, or None: refuse)."""

    def __init__(self) -> None:
        self.target: int | None = None
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._forward, args=(client,), daemon=True).start()

    def _forward(self, client: socket.socket) -> None:
        try:
            server = socket.create_connection(("127.0.0.1", self.target), timeout=60) if self.target else None
        except OSError:
            server = None
        if server is None:
            client.close()  # no server now: the page sees a network error and sends again later
            return
        upstream = threading.Thread(target=_pipe, args=(client, server), daemon=True)
        upstream.start()
        _pipe(server, client)
        upstream.join(60)
        client.close()
        server.close()

    def close(self) -> None:
        self.listener.close()


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    """Copy until ``src`` ends, then end ``dst``'s sending side."""
    with contextlib.suppress(OSError):
        while data := src.recv(65536):
            dst.sendall(data)
        dst.shutdown(socket.SHUT_WR)
