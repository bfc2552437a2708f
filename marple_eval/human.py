"""Scoring human-study responses like any model.

``marple study`` writes JSON Lines: a ``session`` line, then one ``answer``
line per evidence point as soon as it is given::

    {"type": "answer", "participant": "p01", "episode_id": "laundry/h00/003", "scenario": "laundry",
     "trial_index": 0, "culprit_shown_as": "B", "evidence_point": 3, "tau": 15, "horizon": 51,
     "slider": 70, "time": "..."}

The web study (``marple study-web``) writes the same lines with ``"source":
"web"`` but without ``culprit_shown_as``, so its page does not reveal the
answer; the side is recomputed from the session line's seed and trial list
exactly as the study drew it (:func:`marple_gym.study.trials.culprit_sides`).

The slider runs from 0 ("definitely Agent A") to 100 ("definitely Agent B"),
so the probability given to the culprit is ``(100 - slider) / 100`` when the
culprit was shown as A and ``slider / 100`` when shown as B.
"""

from __future__ import annotations

import logging
from pathlib import Path

from marple_eval.results import ResultsError, RunResults, TrialResult
from marple_eval.settings import ProtocolSettings
from marple_gym.study.responses import read_entries
from marple_gym.study.trials import culprit_sides

log = logging.getLogger(__name__)


def p_culprit(slider: float, culprit_shown_as: str) -> float:
    if not 0 <= slider <= 100:
        raise ValueError(f"slider value {slider} is outside 0..100")
    if culprit_shown_as not in ("A", "B"):
        raise ValueError(f"culprit_shown_as must be 'A' or 'B', got {culprit_shown_as!r}")
    return (100 - slider) / 100 if culprit_shown_as == "A" else slider / 100


def _answers(path: Path) -> tuple[list[dict], list[dict]]:
    """The session lines and answer lines of one responses file (read strictly)."""
    if not path.is_file():
        raise ResultsError(f"{path}: no such responses file")
    entries = read_entries(path)
    return [e for e in entries if e["type"] == "session"], [e for e in entries if e["type"] == "answer"]


def _session_of(answer: dict, sessions: list[dict]) -> dict | None:
    """The session line an answer belongs to: the same page (``client``) if recorded, else the same participant."""
    for key in ("client", "participant"):
        if answer.get(key) is not None:
            found = [s for s in sessions if s.get(key) == answer[key]]
            if found:
                return found[-1]
    return None


def culprit_side(answer: dict, sessions: list[dict], path: Path) -> str:
    """Where the culprit was shown for this answer: recorded (desktop) or recomputed from its session (web)."""
    if "culprit_shown_as" in answer:
        return answer["culprit_shown_as"]
    session = _session_of(answer, sessions)
    if session is None or session.get("seed") is None or not session.get("trials"):
        raise ResultsError(f"{path}: an answer without culprit_shown_as and no session line with seed and trials")
    index, order = int(answer["trial_index"]), session["trials"]
    if not 0 <= index < len(order) or order[index] != answer["episode_id"]:
        raise ResultsError(f"{path}: answer for {answer['episode_id']} does not match its session's trial {index}")
    return culprit_sides(len(order), int(session["seed"]))[index]


def read_responses(paths: list[str | Path], points: int = 11) -> RunResults:
    """All complete trials of one or more response files as one run (method "human")."""
    trials: dict[tuple[str, str], dict] = {}
    sessions_seen = []
    for path in map(Path, paths):
        sessions, answers = _answers(path)
        sessions_seen += sessions
        for a in answers:  # every field is there and typed: read_entries checked them
            key = (a["participant"], a["episode_id"])
            trial = trials.setdefault(key, {"scenario": a["scenario"], "horizon": a["horizon"], "points": {}})
            side = culprit_side(a, sessions, path)
            trial["points"][int(a["evidence_point"])] = (int(a["tau"]), p_culprit(a["slider"], side))
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
    if partial:
        log.warning("left out %d trial(s) with answers missing at some evidence points", partial)
    if not complete:
        raise ResultsError("no complete trial in the responses")
    settings = {
        "participants": sorted({p for p, _ in trials}),
        "modality": sorted({s.get("modality") for s in sessions_seen if s.get("modality")}),
        "seeds": sorted({s.get("seed") for s in sessions_seen if s.get("seed") is not None}),
        "incomplete_trials": partial,
        # People answer at every point: no cutoff applies (a cut view is still available, see with_cutoff), and
        # no combination rule (their answer is the slider's).
        "protocol": ProtocolSettings(cutoff=None, points=points).record(),
        "combines_query_probabilities": False,
    }
    return RunResults("human", settings, complete)
