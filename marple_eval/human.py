"""Scoring human-study responses like any model.

``marple study`` writes JSON Lines: a ``session`` line, then one ``answer``
line per evidence point as soon as it is given::

    {"type": "answer", "participant": "p01", "episode_id": "laundry/h00/003", "scenario": "laundry",
     "trial_index": 0, "culprit_shown_as": "B", "evidence_point": 3, "tau": 15, "horizon": 51,
     "slider": 70, "time": "..."}

The slider runs from 0 ("definitely Agent A") to 100 ("definitely Agent B"),
so the probability given to the culprit is ``(100 - slider) / 100`` when the
culprit was shown as A and ``slider / 100`` when shown as B.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from marple_eval.results import ResultsError, RunResults, TrialResult

log = logging.getLogger(__name__)


def p_culprit(slider: float, culprit_shown_as: str) -> float:
    if not 0 <= slider <= 100:
        raise ValueError(f"slider value {slider} is outside 0..100")
    if culprit_shown_as not in ("A", "B"):
        raise ValueError(f"culprit_shown_as must be 'A' or 'B', got {culprit_shown_as!r}")
    return (100 - slider) / 100 if culprit_shown_as == "A" else slider / 100


def _answers(path: Path) -> tuple[list[dict], list[dict]]:
    sessions, answers = [], []
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such responses file") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            if n == len(lines):  # the last line may be cut short by a crash
                log.warning("%s: ignoring a truncated last line", path)
                continue
            raise ResultsError(f"{path}: line {n} is not valid JSON") from None
        (sessions if entry.get("type") == "session" else answers).append(entry)
    return sessions, answers


def read_responses(paths: list[str | Path], points: int = 11) -> RunResults:
    """All complete trials of one or more response files as one run (method "human")."""
    trials: dict[tuple[str, str], dict] = {}
    sessions_seen = []
    for path in map(Path, paths):
        sessions, answers = _answers(path)
        sessions_seen += sessions
        for a in answers:
            try:
                key = (a["participant"], a["episode_id"])
                trial = trials.setdefault(key, {"scenario": a["scenario"], "horizon": a["horizon"], "points": {}})
                trial["points"][int(a["evidence_point"])] = (
                    int(a["tau"]),
                    p_culprit(a["slider"], a["culprit_shown_as"]),
                )
            except KeyError as exc:
                raise ResultsError(f"{path}: an answer lacks the field {exc}") from None
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
        # People answer at every point: no cutoff applies (a cut view is still available, see with_cutoff).
        "protocol": {"cutoff": None, "margin": 10, "points": 11, "last_point": "T"},
    }
    return RunResults("human", settings, complete)
