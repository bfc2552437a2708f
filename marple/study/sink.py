"""The answers file of a web study: each line checked against the study, written whole by one thread.

:class:`AnswerSink` is what ``marple study-server`` writes through. A POST's
lines arrive already read strictly (:func:`~marple.study.responses.check_entry`,
the reader scoring uses); here they are checked against the built study and
what the file already holds, so that nothing scoring would refuse is written:

* a session line must be one of the study's trial sequences (seed, trials, practice trials, modality), and each
  page (``client``) sends one;
* an answer must follow its page's session line, for that session's participant, and name the trial at its
  index with that trial's horizon and evidence steps; each evidence point is answered once per page;
* an attention check must be one the study asks, with the side it asks for;
* a line already written (the same ``client`` and ``seq``: a page sending again what it was not told was
  saved) is left out, so every line is written once, across restarts.

A POST is all or nothing: if one line is refused, none of its lines is written.

One writer thread takes the accepted POSTs off a queue and commits them in
groups: every POST waiting in the queue is written with one ``write`` and one
``fsync``, then each is acknowledged. One client sending many lines therefore
costs others one fsync, not one per line. A group that cannot be written
whole (disk full, a file size limit, an I/O error) is cut off the file again
and not acknowledged, so the file never holds a partial line and the pages
send those lines again later.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from marple.study.families import shown_test
from marple.study.responses import FAMILIES, PRACTICE, read_entries, session_mismatch
from marple.study.trials import StudyError

log = logging.getLogger(__name__)

MAX_GROUP_LINES = 20_000
"""Most lines one commit takes off the queue (the rest wait for the next one)."""


class LineRefused(StudyError):
    """A line the study would not score (the POST gets a 400 and nothing of it is written)."""


class SinkUnavailable(StudyError):
    """The answers could not be written (disk full, I/O error): the POST gets a 503 and the page sends again."""


@dataclass(frozen=True)
class StudyIndex:
    """What a built study (``study-data.js``) allows a line to say."""

    modality: str
    trial_set: str
    sequences: tuple[tuple[int, tuple[str, ...]], ...]  # (seed, item ids in order) of each trial sequence
    practice: tuple[str, ...]  # episode ids of the practice trials
    episodes: dict[str, tuple[str, int, tuple[int, ...]]]  # episode id -> (scenario, horizon, evidence steps)
    checks: tuple[str, ...]  # the side each attention check asks for
    family: str = "whodunit"  # or "beliefs", "expectations" (marple/study/family_web.py)
    confidence: bool = False  # belief questions answered on a confidence slider rather than with a choice

    @classmethod
    def of(cls, study: dict[str, Any]) -> StudyIndex:
        views = study["views"]
        family = study.get("family") or "whodunit"
        item = FAMILIES[family].view_key  # a view shows a whodunit pair (its episode), a question or a trial
        return cls(
            modality=study["modality"],
            trial_set=study["trial_set"],
            sequences=tuple((int(s["seed"]), tuple(views[v][item] for v in s["views"])) for s in study["sequences"]),
            practice=tuple(views[p["view"]]["episode_id"] for p in study.get("practice", [])),
            episodes={  # whodunit pairs: what an answer's evidence point must fit
                v["episode_id"]: (v["scenario"], int(v["horizon"]), tuple(v["evidence_steps"]))
                for v in views.values()
                if "evidence_steps" in v
            },
            checks=tuple(c["expected"] for c in study.get("checks", [])),
            family=family,
            confidence=bool(study.get("confidence")),
        )

    def session_problem(self, session: dict[str, Any]) -> str | None:
        """Why a session line is not one of this study's (None when it is)."""
        k = session.get("sequence")
        if k is None or k >= len(self.sequences):
            return f"sequence {k!r} is not one of the study's {len(self.sequences)} trial sequences"
        seed, trials = self.sequences[k]
        wanted = {"seed": seed, "trials": list(trials), "practice": list(self.practice)}
        wanted |= {"modality": self.modality, "trial_set": self.trial_set, "source": "web"}
        for key, value in wanted.items():
            if session.get(key) != value:
                return f"{key} is not that of the study's trial sequence {k}"
        if (session.get("family") or "whodunit") != self.family:
            return f"a session of {session.get('family') or 'whodunit'} in a study of {self.family}"
        return None

    def line_problem(self, entry: dict[str, Any], session: dict[str, Any]) -> str | None:
        """Why an answer, choice, rating or check line (of ``session``, checked before) does not fit the study
        (None when it fits)."""
        if entry["type"] == "check":
            k = entry["check"]
            if k >= len(self.checks) or entry["expected"] != self.checks[k]:
                return f"attention check {k} asking for {entry['expected']!r} is not one of the study's"
            return None
        if entry["type"] == "choice":
            if self.confidence != (entry.get("slider") is not None):
                return "this study asks for a " + ("confidence slider" if self.confidence else "choice of a or b")
            return None
        if entry["type"] == "rating":
            test = shown_test(session, entry["trial_id"])
            if entry.get("test", test) != test:
                return f"{entry['trial_id']} shows this session its {test} test, not its {entry['test']} one"
            return None
        if entry.get("block") == PRACTICE and entry["episode_id"] not in self.practice:
            return f"{entry['episode_id']} is not a practice trial of the study"
        return self.answer_problem(entry)

    def answer_problem(self, answer: dict[str, Any]) -> str | None:
        """Why an answer does not fit its trial as the study shows it (None when it fits)."""
        scenario, horizon, steps = self.episodes[answer["episode_id"]]  # in the session: checked before
        point = answer["evidence_point"]
        if answer["scenario"] != scenario or answer["horizon"] != horizon:
            return f"scenario and horizon are not those of {answer['episode_id']}"
        if point >= len(steps) or answer["tau"] != steps[point]:
            return f"evidence point {point} at step {answer['tau']} is not one of {answer['episode_id']}'s"
        return None


@dataclass
class _Ledger:
    """What the file holds (or, staged on top of it, what a commit is about to add): each page's session line,
    the (client, seq) of every line, and the points each page answered."""

    parent: _Ledger | None = None
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    keys: set[tuple[str, int]] = field(default_factory=set)
    points: set[tuple[Any, ...]] = field(default_factory=set)

    def session(self, client: str) -> dict[str, Any] | None:
        found = self.sessions.get(client)
        return found if found is not None or self.parent is None else self.parent.session(client)

    def has_key(self, key: tuple[str, int]) -> bool:
        return key in self.keys or (self.parent is not None and self.parent.has_key(key))

    def has_point(self, point: tuple[Any, ...]) -> bool:
        return point in self.points or (self.parent is not None and self.parent.has_point(point))

    def add(self, entry: dict[str, Any]) -> None:
        client = entry.get("client")
        if client is None:
            return
        self.keys.add((client, entry["seq"]))
        if entry["type"] == "session":
            self.sessions[client] = entry
        else:
            self.points.add(_point(entry))

    def merge_into_parent(self) -> None:
        self.parent.sessions.update(self.sessions)
        self.parent.keys |= self.keys
        self.parent.points |= self.points


def _point(entry: dict[str, Any]) -> tuple[Any, ...]:
    """What a page answers once: an evidence point of a trial (of a block), an attention check, a belief
    question or an expectation trial."""
    if entry["type"] == "check":
        return (entry["client"], "check", entry["check"])
    if entry["type"] in ("choice", "rating"):
        return (entry["client"], entry["type"], entry["trial_index"])
    return (entry["client"], entry.get("block"), entry["episode_id"], entry["evidence_point"])


@dataclass
class _Post:
    """One POST's lines on their way through the writer."""

    entries: list[dict[str, Any]]
    done: threading.Event = field(default_factory=threading.Event)
    saved: int = 0
    error: StudyError | None = None


class AnswerSink:
    """The answers file of a study: lines checked against ``index``, written by one thread in group commits."""

    def __init__(self, path: str | Path, index: StudyIndex) -> None:
        self.path = Path(path)
        self.index = index
        self.ledger = _Ledger()
        created = not self.path.exists()
        if not created:  # a damaged file stops the start, named; a line cut short by a crash is dropped
            for entry in read_entries(self.path, repair=True):
                self.ledger.add(entry)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        except OSError as exc:
            raise StudyError(f"{self.path}: cannot open the answers file: {exc.strerror}") from None
        if created:  # the new file's name is on disk too, not only its content
            _fsync_folder(self.path.parent)
        self._queue: queue.Queue[_Post | None] = queue.Queue()
        self._broken: str | None = None  # why nothing can be written any more (a failed roll-back)
        self._writer = threading.Thread(target=self._write_loop, name="answers-writer", daemon=True)
        self._writer.start()

    # ---- the handlers' side ---------------------------------------------------------------------------
    def submit(self, entries: list[dict[str, Any]], timeout: float | None = None) -> int:
        """Write ``entries`` (all or none) and return how many were new, once they are on disk.

        Raises :class:`LineRefused` for a line the study would not score and :class:`SinkUnavailable` when the
        lines could not be written (or not within ``timeout`` seconds; they may still be written later).
        """
        post = _Post(entries)
        self._queue.put(post)
        if not post.done.wait(timeout):
            raise SinkUnavailable("the answers file is busy; send again")
        if post.error is not None:
            raise post.error
        return post.saved

    def close(self) -> None:
        """Write what is queued, then stop the writer and close the file."""
        if self._writer.is_alive():
            self._queue.put(None)
            self._writer.join()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    # ---- the writer thread ----------------------------------------------------------------------------
    def _write_loop(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            group, lines = [first], len(first.entries)
            while lines < MAX_GROUP_LINES:
                try:
                    post = self._queue.get_nowait()
                except queue.Empty:
                    break
                if post is None:  # close() asked: finish this group, then stop
                    self._queue.put(None)
                    break
                group.append(post)
                lines += len(post.entries)
            self._commit(group)

    def _commit(self, group: list[_Post]) -> None:
        staged = _Ledger(parent=self.ledger)
        accepted, chunks = [], []
        for post in group:
            lines = _Ledger(parent=staged)
            try:
                chunks.append(b"".join(self._accept(entry, lines) for entry in post.entries))
            except LineRefused as exc:
                post.error = exc
                post.done.set()
                continue
            post.saved = len(lines.keys)
            lines.merge_into_parent()
            accepted.append(post)
        data = b"".join(chunks)
        error = self._write(data) if data else None
        if error is None:
            staged.merge_into_parent()
        for post in accepted:
            post.error = error
            post.done.set()

    def _accept(self, entry: dict[str, Any], lines: _Ledger) -> bytes:
        """The line to write for ``entry`` (empty when it was written before), recorded in ``lines``."""
        client, seq = entry["client"], entry["seq"]
        if lines.has_key((client, seq)):
            return b""
        session = lines.session(client)
        if entry["type"] == "session":
            problem = "this page sent its session line already" if session is not None else None
            problem = problem or self.index.session_problem(entry)
        elif session is None:
            problem = "no session line from this page (client) came before it"
        else:
            problem = session_mismatch(entry, session) or self.index.line_problem(entry, session)
            if problem is None and lines.has_point(_point(entry)):
                problem = "this page answered that already"
        if problem is not None:
            raise LineRefused(f"line with seq {seq}: {problem}")
        if entry["type"] == "rating":  # the page is not told which test it shows: the line says so on disk
            entry = {**entry, "test": shown_test(session, entry["trial_id"])}
        lines.add(entry)
        return (json.dumps(entry) + "\n").encode()

    def _write(self, data: bytes) -> SinkUnavailable | None:
        """Append ``data`` whole and fsync it; on failure cut the file back to where it was (None: written)."""
        if self._broken is not None:
            return SinkUnavailable(self._broken)
        start = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
            os.fsync(self._fd)
            return None
        except OSError as exc:
            reason = f"{self.path}: answers not saved: {exc.strerror or exc}"
        try:
            os.ftruncate(self._fd, start)
            os.fsync(self._fd)
        except OSError as exc:  # the file may now end in a partial line: write nothing more (a restart repairs it)
            self._broken = f"{self.path}: cannot write ({exc.strerror or exc}); restart the server"
            log.error("%s", self._broken)
        log.error("%s", reason)
        return SinkUnavailable(reason)


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
