"""Scoring answers to belief and goal questions: accuracy per type with intervals and chance, and calibration.

* **accuracy**, MMToM-QA's measure: a method's choice is the option it gives more probability (a tie counts
  half, as a coin would on average); the score of a type is the share of its questions chosen right, with a
  95 % percentile bootstrap interval over questions (:func:`marple_eval.metrics.bootstrap_interval`).
  Chance is 0.5 for every type.
* **Brier score against the normative posterior**, which MMToM-QA could not report: the mean of
  ``(P_method(a) - P_observer(a))**2`` over questions (0: the method is as sure as the evidence allows, no
  more and no less; a method that always answers one half scores the mean of ``(P_observer(a) - 0.5)**2``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from marple_eval.metrics import (
    BOOTSTRAP_SEED,
    MIN_TRIALS,
    Bootstrap,
    bootstrap_interval,
    few_trials_warning,
    seed_mean_interval,
)
from marple_eval.plots import plot_accuracy_bars
from marple_gym.beliefs.questions.question import QUESTION_TYPES, BeliefQuestion

CHANCE = 0.5


def credit(answer: tuple[float, float], correct: int) -> float:
    """1 if ``answer`` favours option ``correct``, 0 if the other, 0.5 for a tie."""
    a, b = answer
    if a == b:
        return 0.5
    return float((a > b) == (correct == 0))


def _group(credits: np.ndarray, brier: np.ndarray, seed: int) -> dict[str, Any]:
    low, high = bootstrap_interval(credits[:, None], seed=seed)
    return {
        "n": int(len(credits)),
        "accuracy": float(credits.mean()),
        "low": float(low[0]),
        "high": float(high[0]),
        "chance": CHANCE,
        "brier": float(brier.mean()),
        "warning": few_trials_warning(len(credits)),
    }


def score(
    questions: Sequence[BeliefQuestion], answers: Sequence[tuple[float, float]], seed: int = BOOTSTRAP_SEED
) -> dict[str, Any]:
    """Per type (``"1.1"`` ... ``"2.4"``, those that have questions), per category (``"belief"``: 1.x,
    ``"goal"``: 2.x) and ``"all"``: ``n``, ``accuracy`` with its interval ``low``-``high``, ``chance`` and
    ``brier`` (see the module docs)."""
    if len(questions) != len(answers):
        raise ValueError(f"{len(questions)} questions but {len(answers)} answers")
    if not questions:
        raise ValueError("no questions to score")
    credits = np.array([credit(a, q.answer) for q, a in zip(questions, answers)])
    brier = np.array([(float(a[0]) / (a[0] + a[1]) - q.posterior) ** 2 for q, a in zip(questions, answers)])
    types = np.array([q.type for q in questions])
    out: dict[str, Any] = {}
    for kind in QUESTION_TYPES:
        mask = types == kind
        if mask.any():
            out[kind] = _group(credits[mask], brier[mask], seed)
    for category, prefix in (("belief", "1."), ("goal", "2.")):
        mask = np.char.startswith(types.astype(str), prefix)
        if mask.any():
            out[category] = _group(credits[mask], brier[mask], seed)
    out["all"] = _group(credits, brier, seed)
    return out


def score_seeds(
    questions: Sequence[BeliefQuestion], answers: Sequence[Sequence[tuple[float, float]]], boot: Bootstrap | None = None
) -> dict[str, Any]:
    """:func:`score`'s groups for a method trained with several seeds (``answers``: one list per seed, every seed
    answering every question): the accuracy over seeds and questions, its interval from the two-way bootstrap
    over seeds and questions (:func:`marple_eval.metrics.seed_mean_interval`), each seed's own accuracy
    (``per_seed``) and ``seeds``."""
    boot = Bootstrap() if boot is None else boot
    per_seed = [score(questions, a, boot.seed) for a in answers]
    credits = np.array([[credit(a, q.answer) for q, a in zip(questions, seed)] for seed in answers])
    types = np.array([q.type for q in questions])
    groups = {kind: types == kind for kind in QUESTION_TYPES}
    groups |= {
        "belief": np.char.startswith(types.astype(str), "1."),
        "goal": np.char.startswith(types.astype(str), "2."),
    }
    groups["all"] = np.ones(len(questions), dtype=bool)
    out: dict[str, Any] = {}
    for kind, mask in groups.items():
        if not mask.any():
            continue
        interval = seed_mean_interval([c[mask][:, None] for c in credits], boot)
        out[kind] = {
            "n": int(mask.sum()),
            "accuracy": interval["value"][0],
            "low": interval["low"][0],
            "high": interval["high"][0],
            "chance": CHANCE,
            "brier": float(np.mean([s[kind]["brier"] for s in per_seed])),
            "warning": few_trials_warning(int(mask.sum())),
            "seeds": len(answers),
            "per_seed": [s[kind]["accuracy"] for s in per_seed],
        }
    return out


def format_table(scores: dict[str, dict[str, Any]]) -> str:
    """Methods' scores side by side, one row per type: ``scores`` maps a method's name to :func:`score`'s (or
    :func:`score_seeds`') result. A type no method has questions of is listed as missing, and a group of fewer
    than :data:`~marple_eval.metrics.MIN_TRIALS` questions is flagged: its figures are too uncertain to compare."""
    rows = [k for k in (*QUESTION_TYPES, "belief", "goal", "all") if any(k in s for s in scores.values())]
    names = list(scores)
    lines = ["| type | n | " + " | ".join(names) + " |", "| --- | --- |" + " --- |" * len(names)]
    few = False
    for row in (*QUESTION_TYPES, "belief", "goal", "all"):
        label = f"{row} {QUESTION_TYPES[row]}" if row in QUESTION_TYPES else row
        if row not in rows:
            if row in QUESTION_TYPES:
                lines.append(f"| {label} | 0 | " + " | ".join(["missing"] * len(names)) + " |")
            continue
        n = next(s[row]["n"] for s in scores.values() if row in s)
        cells = []
        for name in names:
            g = scores[name].get(row)
            cells.append("" if g is None else f"{g['accuracy']:.2f} [{g['low']:.2f}, {g['high']:.2f}]")
        flag = "" if few_trials_warning(n) is None else " (few)"
        few = few or bool(flag)
        lines.append(f"| {label} | {n}{flag} | " + " | ".join(cells) + " |")
    missing = [k for k in QUESTION_TYPES if k not in rows]
    if missing:
        lines.append(f"\nNo questions of type {', '.join(missing)}: the set is too small to have every type.")
    if few:
        lines.append(f"\n(few): fewer than {MIN_TRIALS} questions; the figures are too uncertain to compare.")
    return "\n".join(lines)


def plot_scores(scores: dict[str, dict[str, Any]], path: str | Path, title: str | None = None) -> Path:
    """Save a PNG of accuracy per type (and overall) with 95 % intervals, one bar per method, chance dashed:
    ``scores`` as :func:`format_table` takes them."""
    columns = [k for k in (*QUESTION_TYPES, "all") if any(k in s for s in scores.values())]
    bars = {m: {k: (g["accuracy"], g["low"], g["high"]) for k, g in s.items()} for m, s in scores.items()}
    return plot_accuracy_bars(bars, columns, path, "accuracy", title, chance=CHANCE)
