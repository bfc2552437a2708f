"""Scoring human-study responses like any model.

``marple study`` writes JSON Lines: a ``session`` line, then one ``answer``
line per evidence point as soon as it is given::

    {"type": "answer", "participant": "p01", "episode_id": "laundry/h00/003", "scenario": "laundry",
     "trial_index": 0, "culprit_shown_as": "B", "evidence_point": 3, "tau": 15, "horizon": 51,
     "slider": 70, "time": "..."}

The web study (``marple study-web``) writes the same lines with ``"source":
"web"`` but without ``culprit_shown_as``, so its page does not reveal the
answer; the side is recomputed from the session line's seed and trial list
exactly as the study drew it (:func:`marple.study.trials.culprit_sides`).

The slider runs from 0 ("definitely Agent A") to 100 ("definitely Agent B"),
so the probability given to the culprit is ``(100 - slider) / 100`` when the
culprit was shown as A and ``slider / 100`` when shown as B.

What is scored (:func:`collect`):

* **One session per participant.** A session is a session line and the lines
  after it from the same page (``client``) or, on the desktop, the same file.
  When one participant id has several sessions (the same ``PROLIFIC_PID`` in a
  second browser, a second file), the one that started first counts (by its
  ``started`` time; without one, by the order of the files and lines given);
  the others are reported as repeat sessions and none of their answers is
  scored.
* Answers to **practice trials** (``"block": "practice"``) are not scored.
* **Attention checks** are not scored; each participant's checks passed are
  reported (``settings["attention"]``), and with ``exclude_inattentive`` a
  participant who failed one is left out.
* An evidence point answered twice in one session keeps its first answer; the
  later ones are counted per participant (``settings["repeated_answers"]``) and
  named in one warning, since a page that sends answers twice is a bug worth
  seeing, not a detail to drop silently.

:func:`write_csv` writes every answer and check line, one row each, with
whether it was scored and why not.
"""

from __future__ import annotations

import csv
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from marple.study.responses import FAMILIES, PRACTICE, check_passed, read_entries, session_mismatch
from marple.study.trials import culprit_sides
from marple_eval.results import ResultsError, RunResults, TrialResult
from marple_eval.settings import ProtocolSettings
from marple_gym.files import atomic_write

log = logging.getLogger(__name__)

CSV_COLUMNS = (
    *("file", "participant", "session", "kind", "scored", "why_not_scored", "scenario", "episode_id"),
    *("trial_index", "culprit_shown_as", "evidence_point", "tau", "horizon", "evidence_fraction", "slider"),
    *("p_culprit", "check", "expected", "passed", "time", "rt_ms"),
)
ANSWERED_BEFORE = "answered before"  # why an answer to an evidence point its session answered already is not scored


def p_culprit(slider: float, culprit_shown_as: str) -> float:
    if not 0 <= slider <= 100:
        raise ValueError(f"slider value {slider} is outside 0..100")
    if culprit_shown_as not in ("A", "B"):
        raise ValueError(f"culprit_shown_as must be 'A' or 'B', got {culprit_shown_as!r}")
    return (100 - slider) / 100 if culprit_shown_as == "A" else slider / 100


@dataclass
class Session:
    """One sitting of one participant: its session line and the lines that belong to it."""

    file: Path
    order: int  # position among every session read, in the order of the files and their lines
    line: dict[str, Any]
    lines: list[dict[str, Any]] = field(default_factory=list)
    counts: bool = True  # False for a participant's later sessions

    @property
    def participant(self) -> str:
        return self.line["participant"]

    @property
    def name(self) -> str:
        """How reports name the session: the page's client id, or the file of a desktop session."""
        return self.line.get("client") or self.file.name

    def first_start(self) -> tuple[int, str, int]:
        """Sort key: sessions with a start time by it, then the others in reading order."""
        started = self.line.get("started")
        return (0, started, self.order) if started else (1, "", self.order)


@dataclass
class Responses:
    """Every session of the files read, with the rule applied: which counts, which are repeats."""

    files: list[Path]
    sessions: list[Session]

    @property
    def counted(self) -> list[Session]:
        return [s for s in self.sessions if s.counts]

    @property
    def repeats(self) -> list[Session]:
        return [s for s in self.sessions if not s.counts]

    def attention(self) -> dict[str, dict[str, int]]:
        """Participant -> checks passed and asked, in the session that counts (participants with checks only)."""
        out = {}
        for session in self.counted:
            checks = [line for line in session.lines if line["type"] == "check"]
            if checks:
                out[session.participant] = {"passed": sum(map(check_passed, checks)), "checks": len(checks)}
        return out


def collect(paths: list[str | Path]) -> Responses:
    """Read response files strictly and sort their lines into sessions, the first of each participant counting. A
    line that is the same as one read before (a page's download beside the server's file, or files joined twice) is
    read once, with a warning."""
    files = [Path(p) for p in paths]
    sessions: list[Session] = []
    read: set[str] = set()
    again = 0
    for path in files:
        if not path.is_file():
            raise ResultsError(f"{path}: no such responses file")
        by_client: dict[Any, Session] = {}
        for n, entry in enumerate(read_entries(path), 1):
            line = json.dumps(entry, sort_keys=True)
            if line in read:
                again += 1
                continue
            read.add(line)
            client = entry.get("client")
            if entry["type"] == "session":
                by_client[client] = Session(path, len(sessions), entry)
                sessions.append(by_client[client])
                continue
            session = by_client.get(client)
            if session is None:
                raise ResultsError(f"{path}: line {n}: no session line of this page (client {client!r}) before it")
            problem = session_mismatch(entry, session.line)
            if problem is not None:
                raise ResultsError(f"{path}: line {n}: {problem}")
            session.lines.append(entry)
    if again:
        log.warning("read %d line(s) once that the responses files hold twice", again)
    first: dict[str, Session] = {}
    for session in sorted(sessions, key=Session.first_start):
        if session.participant in first:
            session.counts = False
        else:
            first[session.participant] = session
    return Responses(files, sessions)


def whodunit_sessions(responses: Responses) -> Responses:
    """``responses``, refused with a :class:`ResultsError` when a file holds sessions of another family (belief
    questions or expectation trials, which ``marple study-score`` scores)."""
    for session in responses.sessions:
        family = session.line.get("family")
        if family is not None and FAMILIES[family].line != "answer":
            raise ResultsError(
                f"{session.file}: a session of {family} (participant {session.participant!r}), not of whodunit "
                f"trials; score it with `marple study-score {session.file} --set SET`"
            )
    return responses


def culprit_side(answer: dict[str, Any], session: dict[str, Any]) -> str:
    """Where the culprit was shown for this answer: recorded (desktop) or recomputed from its session (web)."""
    if "culprit_shown_as" in answer:
        return answer["culprit_shown_as"]
    if session.get("seed") is None or not session.get("trials"):
        raise ResultsError(f"session of {session['participant']}: an answer without culprit_shown_as needs a seed")
    return culprit_sides(len(session["trials"]), int(session["seed"]))[answer["trial_index"]]


def _scored_answers(responses: Responses, exclude_inattentive: bool) -> tuple[list[tuple[Session, dict]], dict]:
    """The answers scoring uses, and for every answer line left out, why (keyed by its id)."""
    attention = responses.attention()
    inattentive = {p for p, a in attention.items() if a["passed"] < a["checks"]} if exclude_inattentive else set()
    scored, why_not, seen = [], {}, set()
    for session in responses.sessions:
        for line in session.lines:
            if line["type"] != "answer":
                continue
            point = (session.participant, line["episode_id"], line["evidence_point"])
            if not session.counts:
                why_not[id(line)] = "repeat session"
            elif line.get("block") == PRACTICE:
                why_not[id(line)] = "practice"
            elif session.participant in inattentive:
                why_not[id(line)] = "failed an attention check"
            elif point in seen:
                why_not[id(line)] = ANSWERED_BEFORE
            else:
                seen.add(point)
                scored.append((session, line))
    return scored, why_not


def read_responses(paths: list[str | Path], points: int = 11, exclude_inattentive: bool = False) -> RunResults:
    """All complete trials of one or more response files as one run (method "human"; see the module docs for
    which answers count)."""
    responses = whodunit_sessions(collect(paths))
    scored, why_not = _scored_answers(responses, exclude_inattentive)
    trials: dict[tuple[str, str], dict] = {}
    for session, a in scored:
        key = (session.participant, a["episode_id"])
        trial = trials.setdefault(key, {"scenario": a["scenario"], "horizon": a["horizon"], "points": {}})
        side = culprit_side(a, session.line)
        trial["points"][a["evidence_point"]] = (a["tau"], p_culprit(a["slider"], side))
    complete, partial = [], 0
    for (participant, episode_id), t in trials.items():
        if sorted(t["points"]) != list(range(points)):
            partial += 1
            continue
        ordered = [t["points"][k] for k in range(points)]
        complete.append(
            TrialResult(
                episode_id,
                t["scenario"],
                t["horizon"],
                [tau for tau, _ in ordered],
                [p for _, p in ordered],
                [{"participant": participant}],
            )
        )
    repeated = repeated_answers(why_not, responses)
    _warn_about(responses, repeated, partial)
    if not complete:
        raise ResultsError("no complete trial in the responses")
    counted = responses.counted
    participants = sorted({p for p, _ in trials})
    attention = responses.attention()
    settings = {
        "label": run_label(responses.files, participants),
        "files": [str(p) for p in responses.files],
        "participants": participants,
        "modality": sorted({s.line.get("modality") for s in counted if s.line.get("modality")}),
        "seeds": sorted({s.line.get("seed") for s in counted if s.line.get("seed") is not None}),
        "incomplete_trials": partial,
        "practice_answers": sum(1 for reason in why_not.values() if reason == "practice"),
        "repeated_answers": repeated,
        "attention": attention,
        "excluded_inattentive": sorted(p for p, a in attention.items() if a["passed"] < a["checks"])
        if exclude_inattentive
        else [],
        "repeat_sessions": [
            {"participant": s.participant, "session": s.name, "file": str(s.file), "started": s.line.get("started")}
            for s in responses.repeats
        ],
        # People answer at every point: no cutoff applies (a cut view is still available, see with_cutoff), and
        # no combination rule (their answer is the slider's).
        "protocol": ProtocolSettings(cutoff=None, points=points).record(),
        "combines_query_probabilities": False,
    }
    return RunResults("human", settings, complete)


def _warn_about(responses: Responses, repeated: dict[str, int], partial: int) -> None:
    """The warnings of a scoring run: what was read but is not scored, one line per kind of thing (repeat sessions
    and failed checks, one per session or participant: each is a decision the researcher must see)."""
    for session in responses.repeats:
        log.warning(
            "%s: participant %s took part again (session %s): that session is not scored (the first one counts)",
            session.file,
            session.participant,
            session.name,
        )
    for participant, a in responses.attention().items():
        if a["passed"] < a["checks"]:
            log.warning("participant %s passed %d of %d attention checks", participant, a["passed"], a["checks"])
    if repeated:
        log.warning(
            "ignored %d repeated answer(s) to evidence points already answered in the same session, keeping the "
            "first: %s",
            sum(repeated.values()),
            ", ".join(f"{participant} {n}" for participant, n in repeated.items()),
        )
    if partial:
        log.warning("left out %d trial(s) with answers missing at some evidence points", partial)


def repeated_answers(why_not: dict[int, str], responses: Responses) -> dict[str, int]:
    """Participant -> answers left out because their session had answered that evidence point before
    (participants with such answers only, sorted)."""
    counts: dict[str, int] = {}
    for session in responses.counted:
        for line in session.lines:
            if why_not.get(id(line)) == ANSWERED_BEFORE:
                counts[session.participant] = counts.get(session.participant, 0) + 1
    return dict(sorted(counts.items()))


def run_label(files: list[Path], participants: list[str]) -> str:
    """How reports name a run of responses: its files and its participants, e.g.
    ``human: pilot.jsonl (sim-distance)`` or ``human: 3 files (24 participants)``."""
    names = ", ".join(p.name for p in files) if len(files) <= 2 else f"{len(files)} files"
    who = ", ".join(participants) if len(participants) <= 3 else f"{len(participants)} participants"
    return f"human: {names} ({who})"


def write_csv(paths: list[str | Path], out: str | Path, exclude_inattentive: bool = False) -> int:
    """Every answer and attention-check line of the response files as one CSV row (columns :data:`CSV_COLUMNS`),
    saying whether scoring uses it and why not; returns the number of rows. Written atomically."""
    responses = whodunit_sessions(collect(paths))
    _, why_not = _scored_answers(responses, exclude_inattentive)
    rows = []
    for session in responses.sessions:
        for line in session.lines:
            row = {
                "file": session.file.name,
                "participant": session.participant,
                "session": session.name,
                "kind": "check" if line["type"] == "check" else line.get("block") or "trial",
                "scored": line["type"] == "answer" and id(line) not in why_not,
                "why_not_scored": why_not.get(id(line), "attention check" if line["type"] == "check" else ""),
                **{k: line.get(k) for k in ("time", "rt_ms", "slider")},
            }
            if line["type"] == "check":
                row |= {"check": line["check"], "expected": line["expected"], "passed": check_passed(line)}
            else:
                row |= {k: line[k] for k in ("scenario", "episode_id", "trial_index", "evidence_point", "tau")}
                row |= {"horizon": line["horizon"], "evidence_fraction": line["evidence_point"] / 10}
                if line.get("block") != PRACTICE:
                    side = culprit_side(line, session.line)
                    row |= {"culprit_shown_as": side, "p_culprit": p_culprit(line["slider"], side)}
            rows.append(row)
    with atomic_write(out) as f:
        writer = csv.DictWriter(f, CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return len(rows)
