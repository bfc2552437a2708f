"""The responses file: JSON Lines, written one answer at a time and forced to disk.

The first line describes the session; each later line is one answer::

    {"type": "session", "participant": "p01", "seed": 7, "dataset": "data/marple", "scenario": "laundry",
     "modality": "vision", "trials": ["laundry/h03/017", ...], "started": "2025-01-01T10:00:00+00:00"}
    {"type": "answer", "participant": "p01", "episode_id": "laundry/h03/017", "scenario": "laundry",
     "trial_index": 0, "culprit_shown_as": "B", "evidence_point": 0, "tau": 0, "horizon": 51,
     "slider": 50, "time": "2025-01-01T10:00:12.345+00:00", "rt_ms": 4210}

``time`` has millisecond resolution; ``rt_ms`` is the response time: milliseconds
from the question appearing at this evidence point to the answer. The web study
(:mod:`~marple.study.web`) writes the same lines with ``"source": "web"``.

Answers to the practice trials (the habituation block before the scored trials,
listed in the session's ``practice``) carry ``"block": "practice"``; scoring
leaves them out. The web study's attention checks are ``check`` lines::

    {"type": "check", "participant": "p01", "check": 0, "expected": "B", "slider": 97, "time": "...", "rt_ms": 1830}

The participant was asked to move the slider to ``expected``'s end; scoring
reports each participant's checks passed (:func:`check_passed`) and scores none.

The web study of belief questions and of expectation trials (:mod:`~marple.study.family_web`) writes the same
session line with ``"family": "beliefs"`` or ``"expectations"`` and its items' ids as ``trials``, then one line
per item: a belief question's ``choice`` line (``"choice": "a"`` or ``"b"``; with a confidence slider
``"slider"``, 0 = surely (a), 100 = surely (b), instead) and an expectation trial's ``rating`` line (the surprise
slider, 0-100, of the one test shown; the server adds the test's name)::

    {"type": "choice", "participant": "p01", "question_id": "test/h003/0012/2.3/41", "trial_index": 0,
     "choice": "b", "time": "...", "rt_ms": 5120}
    {"type": "rating", "participant": "p01", "trial_id": "goal_preferences/1.1/test/00000", "trial_index": 0,
     "slider": 83, "test": "surprising", "time": "...", "rt_ms": 7400}

``marple study-score`` scores them (:mod:`~marple.study.family_scores`).

``marple_eval`` scores whodunit files like any model (``marple evaluate --responses``).
Every line is flushed and fsynced before the app goes on, so a crash loses at
most the answer being given. Opening an existing file resumes its session: the
recorded seed and trial order are kept, answers are appended, and a last line
cut short by a crash is dropped.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from marple.study.trials import StudyError, StudyTrial
from marple_gym.validation import Fields, message_error, read_json_lines

log = logging.getLogger(__name__)

MODALITIES = ("vision", "vision+language+audio")


@dataclass(frozen=True)
class StudyKind:
    """What a family's study shows (its modalities), the kind of line each of its answers is, and the key of a
    built study's view naming the item it shows."""

    modalities: tuple[str, ...]
    line: str
    view_key: str = "item"


FAMILIES: dict[str, StudyKind] = {
    "whodunit": StudyKind(MODALITIES, "answer", "episode_id"),
    "beliefs": StudyKind(("text+frames",), "choice"),
    "expectations": StudyKind(("vision",), "rating"),
}
"""The families the study shows, each with what it shows and its answer lines: whodunit trials (a slider at each
evidence point), belief questions (a choice), expectation trials (a surprise rating)."""
ITEM_KEYS = {"answer": "episode_id", "choice": "question_id", "rating": "trial_id"}
"""Per kind of answer line, the key naming its item (a session's ``trials`` lists these ids)."""
TESTS = ("expected", "surprising")
SESSION_KEYS = ("participant", "seed", "dataset", "scenario", "modality", "trials", "practice", "started")
ANSWER_KEYS = (
    *("participant", "episode_id", "scenario", "trial_index", "culprit_shown_as"),
    *("evidence_point", "tau", "horizon", "slider", "time"),
)
WEB_KEYS = ("source", "client", "seq")  # the web study's lines also carry these (marple/study/web.py)
WEB_SESSION_KEYS = (*WEB_KEYS, "sequence", "trial_set", "study_id", "session_id", "user_agent", "family")
CHECK_KEYS = ("participant", "check", "expected", "slider", "time")
CHOICE_KEYS = ("participant", "question_id", "trial_index", "time")
RATING_KEYS = ("participant", "trial_id", "trial_index", "slider", "time")
PRACTICE = "practice"
"""The ``block`` of an answer to a practice trial (scored answers have no block)."""
CHECK_MARGIN = 20
"""An attention check passes when the slider ends within this many points of the end it asked for."""
MAX_SEQ = 2**31 - 1
MAX_SEED = 2**63 - 1
"""The largest seed a session may record (the commands' ``--seed`` takes up to this)."""
MAX_COUNT = 2**53 - 1
"""The largest count a line may hold (a seed, an index, a step, milliseconds): the largest integer a web page's
numbers hold exactly, and far beyond any real one; a larger one is refused naming its line, never overflows later."""


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
        session["practice"] = list(session["practice"] or [])
        path.parent.mkdir(parents=True, exist_ok=True)
        log_file = cls(path, session, [])
        log_file._append(session)
        return log_file

    def answered(self, episode_id: str) -> dict[int, int]:
        """Evidence point -> slider of the answers already given for a trial."""
        return {a["evidence_point"]: a["slider"] for a in self.answers if a["episode_id"] == episode_id}

    def record(
        self, trial: StudyTrial, point: int, slider: int, rt_ms: int | None = None, practice: bool = False
    ) -> dict[str, Any]:
        """Append one answer (``rt_ms``: its response time; ``practice``: to a practice trial, not scored) and make
        sure it is on disk before returning it."""
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
        if practice:
            answer["block"] = PRACTICE
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
    read = read_json_lines(path, message_error(StudyError), "responses file", drop_torn_tail=True)
    if repair and read.torn_tail:
        _truncate(path, path.stat().st_size - read.torn_tail)
    elif repair and not path.read_bytes().endswith(b"\n") and read.entries:
        with path.open("ab") as f:  # a whole last line without its newline: add it before appending
            f.write(b"\n")
    return [check_entry(entry, path, n) for n, entry in read.entries]


def _truncate(path: Path, keep: int) -> None:
    with path.open("r+b") as f:
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())


def check_entry(entry: Any, path: str | Path | None, n: int) -> dict[str, Any]:
    """One line of a responses file, a session, an answer or an attention check, every field typed and in range."""
    f = Fields(entry, f"line {n}", message_error(StudyError), None if path is None else str(path))
    kind = f.str("type", choices=("session", "answer", "check", "choice", "rating"))
    for key in ("source", "client"):
        f.str(key, None)
    f.int("seq", None, low=0, high=MAX_SEQ)
    if kind == "session":
        f.allow(("type", *SESSION_KEYS, *WEB_SESSION_KEYS)).require("participant", "modality")
        for key in ("participant", "dataset", "scenario", "started", "trial_set", "study_id", "session_id"):
            f.str(key, None)
        f.str("user_agent", None)
        f.int("sequence", None, low=0, high=MAX_COUNT)
        f.int("seed", None, low=0, high=MAX_SEED)
        f.str("modality", choices=FAMILIES[f.str("family", "whodunit", choices=tuple(FAMILIES))].modalities)
        for key in ("trials", "practice"):
            for i, trial in enumerate(f.list(key, [])):
                if not isinstance(trial, str):
                    raise f.fail(f"{key}[{i}]", f"expected an episode id, got {trial!r}")
        return entry
    if kind == "check":
        f.allow(("type", *CHECK_KEYS, "rt_ms", *WEB_KEYS)).require(*CHECK_KEYS)
        f.str("participant")
        f.str("time")
        f.int("check", low=0, high=MAX_COUNT)
        f.str("expected", choices=("A", "B"))
        f.int("rt_ms", None, low=0, high=MAX_COUNT)
        f.number("slider", low=0, high=100)
        return entry
    if kind in ("choice", "rating"):
        return _check_item_line(f, kind)
    # The web page leaves out culprit_shown_as (so it does not give the answer away): scoring recomputes it.
    f.allow(("type", *ANSWER_KEYS, "rt_ms", "block", *WEB_KEYS)).require(
        *(k for k in ANSWER_KEYS if k != "culprit_shown_as")
    )
    for key in ("participant", "episode_id", "scenario", "time"):
        f.str(key)
    for key in ("trial_index", "evidence_point", "tau", "horizon"):
        f.int(key, low=0, high=MAX_COUNT)
    f.str("culprit_shown_as", None, choices=("A", "B"))
    f.str("block", None, choices=(PRACTICE,))
    f.int("rt_ms", None, low=0, high=MAX_COUNT)
    f.number("slider", low=0, high=100)
    return entry


def _check_item_line(f: Fields, kind: str) -> dict[str, Any]:
    """A belief question's ``choice`` line or an expectation trial's ``rating`` line (see the module docs)."""
    keys = CHOICE_KEYS if kind == "choice" else RATING_KEYS
    extra = ("choice", "slider") if kind == "choice" else ("test",)
    f.allow(("type", *keys, *extra, "rt_ms", *WEB_KEYS)).require(*keys)
    for key in ("participant", ITEM_KEYS[kind], "time"):
        f.str(key)
    f.int("trial_index", low=0, high=MAX_COUNT)
    f.int("rt_ms", None, low=0, high=MAX_COUNT)
    f.number("slider", None, low=0, high=100)
    if kind == "rating":
        f.str("test", None, choices=TESTS)
    elif (f.str("choice", None, choices=("a", "b")) is None) == (f.get("slider") is None):
        raise f.fail("choice", "a choice line holds either a choice (a or b) or a confidence slider, not both")
    return f.raw


def check_passed(check: dict[str, Any]) -> bool:
    """Did an attention check's slider end near the end it asked for (within :data:`CHECK_MARGIN` points)?"""
    if check["expected"] == "A":
        return check["slider"] <= CHECK_MARGIN
    return check["slider"] >= 100 - CHECK_MARGIN


def session_mismatch(line: dict[str, Any], session: dict[str, Any]) -> str | None:
    """Why an answer or check line cannot belong to ``session`` (None when it can): another participant, or an
    answer whose trial is not the session's trial at its index (its practice trials for a practice answer)."""
    if line["participant"] != session.get("participant"):
        return f"participant {line['participant']!r} is not its session's {session.get('participant')!r}"
    if line["type"] not in ITEM_KEYS:
        return None
    family = session.get("family") or "whodunit"
    if line["type"] != FAMILIES[family].line:
        return f"a {line['type']} line does not belong to a session of {family}"
    item = line[ITEM_KEYS[line["type"]]]
    order = session.get(PRACTICE if line.get("block") == PRACTICE else "trials") or []
    index = line["trial_index"]
    if index >= len(order) or order[index] != item:
        return f"the answer for {item} is not its session's trial {index}"
    return None


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
