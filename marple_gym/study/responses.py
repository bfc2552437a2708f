"""The responses file: JSON Lines, written one answer at a time and forced to disk.

The first line describes the session; each later line is one answer::

    {"type": "session", "participant": "p01", "seed": 7, "dataset": "data/marple", "scenario": "laundry",
     "modality": "vision", "trials": ["laundry/h03/017", ...], "started": "2025-01-01T10:00:00+00:00"}
    {"type": "answer", "participant": "p01", "episode_id": "laundry/h03/017", "scenario": "laundry",
     "trial_index": 0, "culprit_shown_as": "B", "evidence_point": 0, "tau": 0, "horizon": 51,
     "slider": 50, "time": "2025-01-01T10:00:12.345+00:00", "rt_ms": 4210}

``time`` has millisecond resolution; ``rt_ms`` is the response time: milliseconds
from the question appearing at this evidence point to the answer. The web study
(:mod:`~marple_gym.study.web`) writes the same lines with ``"source": "web"``.

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

log = logging.getLogger(__name__)

MODALITIES = ("vision", "vision+language+audio")
SESSION_KEYS = ("participant", "seed", "dataset", "scenario", "modality", "trials", "started")


def now() -> str:
    """The current time, ISO-8601 to the millisecond with the UTC offset."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


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

    def record(self, trial: Trial, point: int, slider: int, rt_ms: int | None = None) -> dict[str, Any]:
        """Append one answer (``rt_ms``: its response time) and make sure it is on disk before returning it."""
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
            "rt_ms": None if rt_ms is None else int(rt_ms),
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
    raw = path.read_bytes()
    if not raw.endswith(b"\n"):  # the app died while writing: drop the partial line so appends stay valid
        keep = raw.rfind(b"\n") + 1
        log.warning("%s: dropping a partial last line (%d bytes) left by a crash", path, len(raw) - keep)
        with path.open("r+b") as f:
            f.truncate(keep)
            f.flush()
            os.fsync(f.fileno())
        raw = raw[:keep]
    session, answers = None, []
    for n, line in enumerate(raw.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            raise StudyError(f"{path}: line {n} is not valid JSON; not a responses file?") from None
        if entry.get("type") == "session":
            session = session or entry
        elif entry.get("type") == "answer":
            answers.append(entry)
    if session is None:
        raise StudyError(f"{path}: no session line; not a responses file of `marple study`")
    return session, answers


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
