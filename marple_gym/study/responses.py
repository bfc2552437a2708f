"""The responses file: JSON Lines, written one answer at a time and forced to disk.

The first line describes the session; each later line is one answer::

    {"type": "session", "participant": "p01", "seed": 7, "dataset": "data/marple", "scenario": "laundry",
     "modality": "vision", "trials": ["laundry/h03/017", ...], "started": "2025-01-01T10:00:00+00:00"}
    {"type": "answer", "participant": "p01", "episode_id": "laundry/h03/017", "scenario": "laundry",
     "trial_index": 0, "culprit_shown_as": "B", "evidence_point": 0, "tau": 0, "horizon": 51,
     "slider": 50, "time": "2025-01-01T10:00:12+00:00"}

``marple_eval`` scores this file like any model (``marple evaluate --responses``).
Every line is flushed and fsynced before the app goes on, so a crash loses at
most the answer being given. Opening an existing file resumes its session: the
recorded seed and trial order are kept, answers are appended, and a last line
cut short by a crash is dropped.
"""

from __future__ import annotations

import json
import logging
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from marple_gym.study.trials import StudyError, Trial
from marple_gym.validation import Fields, message_error

log = logging.getLogger(__name__)

MODALITIES = ("vision", "vision+language+audio")
SESSION_KEYS = ("participant", "seed", "dataset", "scenario", "modality", "trials", "started")
ANSWER_KEYS = (
    *("participant", "episode_id", "scenario", "trial_index", "culprit_shown_as"),
    *("evidence_point", "tau", "horizon", "slider", "time"),
)


def now() -> str:
    """The current time, ISO-8601 with the UTC offset."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class ResponseLog:
    """An append-only responses file and the answers already in it."""

    def __init__(self, path: Path, session: dict[str, Any], answers: list[dict[str, Any]]) -> None:
        self.path = path
        self.session = session
        self.answers = answers

    @classmethod
    def open(cls, path: str | Path, session: dict[str, Any]) -> ResponseLog:
        """Start a new file with ``session``'s line, or resume the session already in ``path``.

        On resume ``session`` is checked against the file (participant, dataset,
        modality, and the seed if one is given) and the file's session wins.
        """
        path = Path(path)
        if path.exists() and path.stat().st_size > 0:
            recorded, answers = _read(path)
            _check_same(path, recorded, session)
            log.info("resuming %s: %d answers already given", path, len(answers))
            return cls(path, recorded, answers)
        if session.get("modality") not in MODALITIES:
            raise StudyError(f"modality must be one of {MODALITIES}, got {session.get('modality')!r}")
        session = {"type": "session", **{k: session.get(k) for k in SESSION_KEYS}}
        session["started"] = session["started"] or now()
        path.parent.mkdir(parents=True, exist_ok=True)
        log_file = cls(path, session, [])
        log_file._append(session)
        return log_file

    def answered(self, episode_id: str) -> dict[int, int]:
        """Evidence point -> slider of the answers already given for a trial."""
        return {a["evidence_point"]: a["slider"] for a in self.answers if a["episode_id"] == episode_id}

    def record(self, trial: Trial, point: int, slider: int) -> dict[str, Any]:
        """Append one answer and make sure it is on disk before returning it."""
        if not 0 <= slider <= 100:
            raise ValueError(f"slider must be in 0..100, got {slider}")
        answer = {
            "type": "answer",
            "participant": self.session["participant"],
            "episode_id": trial.episode_id,
            "scenario": trial.episode.scenario,
            "trial_index": trial.index,
            "culprit_shown_as": trial.culprit_shown_as,
            "evidence_point": int(point),
            "tau": int(trial.evidence_steps[point]),
            "horizon": int(trial.horizon),
            "slider": int(slider),
            "time": now(),
        }
        self._append(answer)
        self.answers.append(answer)
        return answer

    def _append(self, entry: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
            f.flush()
            os.fsync(f.fileno())


def _read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The session line and answers of an existing file; a half-written last line is cut off."""
    entries = read_entries(path, repair=True)
    sessions = [e for e in entries if e["type"] == "session"]
    if not sessions:
        raise StudyError(f"{path}: no session line; not a responses file of `marple study`")
    return sessions[0], [e for e in entries if e["type"] == "answer"]


def read_entries(path: str | Path, repair: bool = False) -> list[dict[str, Any]]:
    """Every line of a responses file, each checked (:func:`check_entry`).

    A last line cut short by a crash is left out with a warning; with ``repair``
    it is also cut from the file, so that appending goes on from a whole line.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise StudyError(f"{path}: cannot read the responses file: {exc.strerror or exc}") from None
    lines = raw.split(b"\n")
    if lines[-1].strip() and not _parses(lines[-1]):  # the app died while writing this line
        log.warning("%s: dropping a partial last line (%d bytes) left by a crash", path, len(lines[-1]))
        if repair:
            _truncate(path, len(raw) - len(lines[-1]))
        lines = lines[:-1]
    elif lines[-1].strip() and repair:  # a whole last line without its newline: add it before appending
        with path.open("ab") as f:
            f.write(b"\n")
    entries = []
    for n, line in enumerate(lines, 1):
        if line.strip():
            entries.append(check_entry(_parse_line(path, n, line), path, n))
    return entries


def _parses(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def _parse_line(path: Path, n: int, line: bytes) -> Any:
    try:
        return json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        raise StudyError(f"{path}: line {n} is not UTF-8 text; not a responses file?") from None
    except ValueError:
        raise StudyError(f"{path}: line {n} is not valid JSON; not a responses file?") from None


def _truncate(path: Path, keep: int) -> None:
    with path.open("r+b") as f:
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())


def check_entry(entry: Any, path: str | Path, n: int) -> dict[str, Any]:
    """One line of a responses file, a session or an answer, with every field typed and in range."""
    f = Fields(entry, f"line {n}", message_error(StudyError), str(path))
    if f.str("type", choices=("session", "answer")) == "session":
        f.allow(("type", *SESSION_KEYS)).require("participant", "modality")
        for key in ("participant", "dataset", "scenario", "started"):
            f.str(key, None)
        f.int("seed", None, low=0)
        f.str("modality", choices=MODALITIES)
        for i, trial in enumerate(f.list("trials", [])):
            if not isinstance(trial, str):
                raise f.fail(f"trials[{i}]", f"expected an episode id, got {trial!r}")
        return entry
    f.allow(("type", *ANSWER_KEYS)).require(*ANSWER_KEYS)
    for key in ("participant", "episode_id", "scenario", "time"):
        f.str(key)
    for key in ("trial_index", "evidence_point", "tau", "horizon"):
        f.int(key, low=0)
    f.str("culprit_shown_as", choices=("A", "B"))
    f.number("slider", low=0, high=100)
    return entry


def _check_same(path: Path, recorded: dict[str, Any], wanted: dict[str, Any]) -> None:
    for key in ("participant", "dataset", "modality"):
        if wanted.get(key) is not None and recorded.get(key) != wanted[key]:
            raise StudyError(
                f"{path} holds a session with {key} {recorded.get(key)!r}, not {wanted[key]!r}; "
                "choose another --out file to start a new session"
            )
    if wanted.get("seed") is not None and recorded.get("seed") != wanted["seed"]:
        raise StudyError(
            f"{path} was started with seed {recorded.get('seed')}, not {wanted['seed']}; leave out --seed to resume it"
        )
