"""The families' results files side by side: Markdown tables and the per-type plot (what ``marple report`` and
``marple evaluate`` print for a belief or an expectation results file)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from marple_eval.beliefs import BeliefResults, format_table, plot_scores
from marple_eval.beliefs import results as belief_results
from marple_eval.expectations import RatingResults, plot_accuracy
from marple_eval.expectations import format_table as format_accuracy
from marple_eval.expectations import results as rating_results
from marple_gym.beliefs.questions.question import QUESTION_TYPES

FAMILY_FORMATS = {belief_results.FORMAT: "beliefs", rating_results.FORMAT: "expectations"}


def results_family(path: str | os.PathLike) -> str | None:
    """``beliefs`` or ``expectations`` for a family's results file, else None (a whodunit one, or unreadable:
    its own reader says what is wrong)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return FAMILY_FORMATS.get(data.get("format")) if isinstance(data, dict) else None


def belief_tables(runs: Sequence[BeliefResults]) -> str:
    """Accuracy per type with intervals and n (chance 0.5), then the Brier score against the normative
    posterior, one column per run."""
    scores = {r.method: r.scores for r in runs}
    rows = [k for k in (*QUESTION_TYPES, "belief", "goal", "all") if any(k in s for s in scores.values())]
    brier = ["| type | " + " | ".join(scores) + " |", "| --- |" + " --- |" * len(scores)]
    for row in rows:
        label = f"{row} {QUESTION_TYPES[row]}" if row in QUESTION_TYPES else row
        cells = [f"{s[row]['brier']:.3f}" if row in s else "" for s in scores.values()]
        brier.append(f"| {label} | " + " | ".join(cells) + " |")
    return (
        "Accuracy per question type, 95 % bootstrap intervals (chance 0.5):\n\n"
        + format_table(scores)
        + "\n\nBrier score against the normative posterior (0: as sure as the evidence allows):\n\n"
        + "\n".join(brier)
    )


def expectation_tables(runs: Sequence[RatingResults]) -> str:
    """Pairwise accuracy per type, scenario and all with intervals (chance 0.5), then each run's generalisation
    tests."""
    parts = [
        "Pairwise accuracy, 95 % bootstrap intervals (chance 0.5):\n\n"
        + format_accuracy({r.method: r.table() for r in runs})
    ]
    for run in runs:
        for name, table in run.generalisation_tables().items():
            pooled = table and all(hasattr(v, "accuracy") for v in table.values())
            shown = {f"{run.method} {name}": table} if pooled else {f"{label}": t for label, t in table.items()}
            parts.append(f"Generalisation, {name} ({run.method}):\n\n" + format_accuracy(shown))
    return "\n\n".join(parts)


def load_family_results(paths: Sequence[str | os.PathLike]) -> tuple[list[BeliefResults], list[RatingResults]]:
    """The belief and the expectation results files among ``paths`` (each read strictly)."""
    beliefs, expectations = [], []
    for path in paths:
        family = results_family(path)
        if family == "beliefs":
            beliefs.append(BeliefResults.load(path))
        elif family == "expectations":
            expectations.append(RatingResults.load(path))
    return beliefs, expectations


def family_report(paths: Sequence[str | os.PathLike], plot: str | os.PathLike | None = None) -> str:
    """The tables of the family results files among ``paths`` (and, with ``plot``, their per-type plot; with
    both families, ``-beliefs`` and ``-expectations`` before its suffix)."""
    beliefs, expectations = load_family_results(paths)
    parts = []
    plots = []
    both = bool(beliefs) and bool(expectations)
    if beliefs:
        parts.append(belief_tables(beliefs))
        if plot:
            where = _suffixed(plot, "-beliefs") if both else Path(plot)
            plots.append(plot_scores({r.method: r.scores for r in beliefs}, where, "Belief and goal questions"))
    if expectations:
        parts.append(expectation_tables(expectations))
        if plot:
            where = _suffixed(plot, "-expectations") if both else Path(plot)
            plots.append(plot_accuracy({r.method: r.table() for r in expectations}, where, "Expectation trials"))
    parts += [f"plot: {p}" for p in plots]
    return "\n\n".join(parts)


def _suffixed(path: str | os.PathLike, tag: str) -> Path:
    path = Path(path)
    return path.with_name(f"{path.stem}{tag}{path.suffix}")
