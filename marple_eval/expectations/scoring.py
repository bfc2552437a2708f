"""Scoring as AGENT scores: the fraction of (surprising, expected) pairs whose surprise ratings are ordered right.

Each test trial pairs one surprising and one expected test sharing the
familiarisation. As AGENT scores, a pair counts 1 only when the surprising test
is rated strictly more surprising, so a tie is wrong (a constant rater scores
0); beside it, the tie-as-half figure counts a tie 0.5 (a constant rater scores
0.5, and a rule and its opposite add up to 1, which is what the shortcut panel's
band needs). :func:`accuracy_table` gives both per type, per scenario and over
all trials, each with a 95 % percentile bootstrap interval over trials
(:func:`marple_eval.metrics.bootstrap_interval`: 2000 resamples, seed 0) and
the number of trials; groups of fewer than :data:`marple_eval.metrics.MIN_TRIALS`
trials carry a warning. :func:`seeded_table` pools a learned method's training
seeds, its intervals resampling the seeds as well as the pairs.

:func:`standardise` z-scores each participant's ratings (AGENT's human
baseline), :func:`generalisation_tests` lists the train/test type splits of
AGENT's four generalisation tests, and :func:`plot_accuracy` draws a table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from marple_eval.expectations.methods import Rating
from marple_eval.metrics import MIN_TRIALS, bootstrap_interval, few_trials_warning, seed_mean_interval
from marple_eval.plots import plot_accuracy_bars, plot_accuracy_matrix
from marple_gym.expectations.scenarios import EXPECTATION_SCENARIOS, all_types, scenario_of

ALL = "all"


def pair_score(rating: Rating, tie: float = 0.0) -> float:
    """1 if the surprising test is rated more surprising than the expected one, ``tie`` on a tie (0: AGENT's
    strict count; 0.5: the tie-as-half figure), else 0."""
    if rating.surprising > rating.expected:
        return 1.0
    return tie if rating.surprising == rating.expected else 0.0


@dataclass(frozen=True)
class Accuracy:
    """Pairwise accuracy of a group of trials, strict (``accuracy``) and tie-as-half (``half``), each with its 95 %
    bootstrap interval, and the group's size."""

    accuracy: float
    low: float
    high: float
    trials: int
    half: float
    half_low: float
    half_high: float
    seeds: int = 1
    """How many training seeds the figure pools (its interval then resamples them too: :func:`seeded_table`)."""

    @property
    def warning(self) -> str | None:
        return few_trials_warning(self.trials)

    def to_dict(self) -> dict:
        out = {"accuracy": self.accuracy, "low": self.low, "high": self.high, "trials": self.trials,
               "half": self.half, "half_low": self.half_low, "half_high": self.half_high}  # fmt: skip
        return out if self.seeds == 1 else {**out, "seeds": self.seeds}


def accuracy_of(ratings: Sequence[Rating]) -> Accuracy:
    """The pairwise accuracy of ``ratings`` (at least one), strict and tie-as-half."""
    if not ratings:
        raise ValueError("no ratings to score")
    return accuracy_of_scores(np.array([[pair_score(r, 0.0), pair_score(r, 0.5)] for r in ratings]))


def accuracy_of_scores(scores: np.ndarray) -> Accuracy:
    """An :class:`Accuracy` from an (n_pairs, 2) array of strict and tie-as-half pair scores."""
    low, high = bootstrap_interval(scores)
    mean = scores.mean(axis=0)
    return Accuracy(float(mean[0]), float(low[0]), float(high[0]), len(scores), float(mean[1]), float(low[1]),
                    float(high[1]))  # fmt: skip


def accuracy_table(ratings: Iterable[Rating]) -> dict[str, Accuracy]:
    """Pairwise accuracy per type ("1.1", ...), per scenario ("goal_preferences", ...) and over all trials
    (:data:`ALL`), for the groups the ratings cover, in AGENT's order."""
    return {name: accuracy_of(group) for name, group in _groups(list(ratings)).items()}


def seeded_table(runs: Sequence[Sequence[Rating]]) -> dict[str, Accuracy]:
    """:func:`accuracy_table` of one method trained with several seeds, each run rating the same trials: the mean
    over every (seed, pair) cell, with a two-way bootstrap interval that resamples the pairs and the seeds
    (:func:`marple_eval.metrics.seed_mean_interval`, as the whodunit seeds are pooled)."""
    if not runs:
        raise ValueError("no runs to score")
    by_trial = [{r.trial: r for r in run} for run in runs]
    if any(set(b) != set(by_trial[0]) for b in by_trial):
        raise ValueError("every seed's run must rate the same trials")
    table = {}
    for name, group in _groups(list(runs[0])).items():
        scores = np.array(
            [[[pair_score(b[r.trial], 0.0), pair_score(b[r.trial], 0.5)] for r in group] for b in by_trial]
        )
        pooled = seed_mean_interval(list(scores))
        mean, low, high = pooled["value"], pooled["low"], pooled["high"]
        table[name] = Accuracy(mean[0], low[0], high[0], len(group), mean[1], low[1], high[1], len(runs))
    return table


def _groups(ratings: list[Rating]) -> dict[str, list[Rating]]:
    """The ratings of each type, each scenario and all (:data:`ALL`), for the groups they cover, in AGENT's order."""
    groups: dict[str, list[Rating]] = {}
    for scenario in EXPECTATION_SCENARIOS.values():
        for kind in scenario.types:
            group = [r for r in ratings if r.type == kind]
            if group:
                groups[kind] = group
        group = [r for r in ratings if r.scenario == scenario.name]
        if group:
            groups[scenario.name] = group
    if ratings:
        groups[ALL] = ratings
    return groups


def format_table(tables: Mapping[str, Mapping[str, Accuracy]]) -> str:
    """A Markdown table: one row per method, one column per type, scenario and all: strict accuracy [low, high],
    and the tie-as-half figure after it where ties make it differ (``0.00 [0.00, 0.00] (½ 0.50)``); a last row
    gives each column's number of pairs."""
    columns = [
        c for c in list(all_types()) + list(EXPECTATION_SCENARIOS) + [ALL] if any(c in t for t in tables.values())
    ]
    head = "| method | " + " | ".join(_short(c) for c in columns) + " |"
    lines = [head, "|" + " --- |" * (len(columns) + 1)]
    for method, table in tables.items():
        cells = [cell(table[c]) if c in table else "-" for c in columns]
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    pairs = [max(t[c].trials for t in tables.values() if c in t) for c in columns]
    lines.append("| pairs (n) | " + " | ".join(str(n) for n in pairs) + " |")
    small = [f"{c} ({n})" for c, n in zip(columns, pairs) if n < MIN_TRIALS and c in all_types()]
    if small:
        lines.append("")
        lines.append(f"(fewer than {MIN_TRIALS} pairs, too few to compare: {', '.join(small)})")
    return "\n".join(lines)


def cell(a: Accuracy) -> str:
    """One table cell: strict accuracy with its interval, and the tie-as-half figure where ties count."""
    text = f"{a.accuracy:.2f} [{a.low:.2f}, {a.high:.2f}]"
    return text if a.half == a.accuracy else f"{text} (½ {a.half:.2f})"


def _short(column: str) -> str:
    return EXPECTATION_SCENARIOS[column].title if column in EXPECTATION_SCENARIOS else column


# ---- humans ----------------------------------------------------------------------------------------------------------
def standardise(ratings: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """Each participant's ratings (participant -> {test id: 0-100 rating}) z-scored over that participant's
    ratings, so raters who use the slider differently compare (a participant whose ratings are all equal
    gets zeros)."""
    out = {}
    for participant, given in ratings.items():
        values = np.array(list(given.values()), dtype=float)
        sd = values.std() if len(values) > 1 else 0.0
        z = (values - values.mean()) / sd if sd > 0 else np.zeros_like(values)
        out[participant] = dict(zip(given, z.tolist()))
    return out


# ---- generalisation --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GeneralisationSplit:
    """One training run of a generalisation test: train on ``train`` types, test on ``test`` types."""

    test_name: str
    label: str
    train: tuple[str, ...]
    test: tuple[str, ...]


GENERALISATION_TESTS = ("all", "leave_one_type_out", "leave_one_scenario_out", "single_type", "single_scenario")
POOLED_TESTS = ("all", "leave_one_type_out", "leave_one_scenario_out")
"""The generalisation tests whose splits test different types: one table each, each type scored by the model that
held it out."""
"""AGENT's protocol: all types; G1 leave one type out (within its scenario); G2 leave one scenario out; G3 single
type (tested on the other types of its scenario); G4 single scenario (tested on the other scenarios)."""


def generalisation_tests(name: str, types: Sequence[str] | None = None) -> list[GeneralisationSplit]:
    """The train/test splits of generalisation test ``name`` (one of :data:`GENERALISATION_TESTS`) over
    ``types`` (all types by default)."""
    types = tuple(all_types() if types is None else types)
    by_scenario: dict[str, list[str]] = {}
    for t in types:
        by_scenario.setdefault(scenario_of(t).name, []).append(t)
    if name == "all":
        return [GeneralisationSplit(name, "all types", types, types)]
    if name == "leave_one_type_out":
        return [
            GeneralisationSplit(name, f"without {t}", tuple(o for o in group if o != t), (t,))
            for group in by_scenario.values()
            if len(group) > 1
            for t in group
        ]
    if name == "leave_one_scenario_out":
        return [
            GeneralisationSplit(name, f"without {s}", tuple(t for t in types if scenario_of(t).name != s), tuple(g))
            for s, g in by_scenario.items()
            if len(by_scenario) > 1
        ]
    if name == "single_type":
        return [
            GeneralisationSplit(name, f"only {t}", (t,), tuple(o for o in group if o != t))
            for group in by_scenario.values()
            if len(group) > 1
            for t in group
        ]
    if name == "single_scenario":
        return [
            GeneralisationSplit(name, f"only {s}", tuple(g), tuple(t for t in types if scenario_of(t).name != s))
            for s, g in by_scenario.items()
            if len(by_scenario) > 1
        ]
    raise ValueError(f"unknown generalisation test {name!r}; use one of {GENERALISATION_TESTS}")


def pooled(results: Iterable[tuple[GeneralisationSplit, Sequence[Rating]]]) -> dict[str, Accuracy]:
    """One table from the splits of a test whose test types do not overlap (all, leave one type out, leave one
    scenario out): each type scored by the model that held it out, as AGENT's Table 1 reports them."""
    ratings: list[Rating] = []
    seen: set[str] = set()
    for split, group in results:
        if seen & set(split.test):
            raise ValueError(f"{split.label} tests types another split tested: pool only tests whose test types differ")
        seen |= set(split.test)
        ratings += list(group)
    return accuracy_table(ratings)


def matrix(results: Iterable[tuple[GeneralisationSplit, Sequence[Rating]]]) -> dict[str, dict[str, Accuracy]]:
    """Split label -> its accuracy table (single type, single scenario: AGENT's Figures 6 and 7)."""
    return {split.label: accuracy_table(group) for split, group in results if group}


# ---- a picture -------------------------------------------------------------------------------------------------------
def plot_accuracy(tables: Mapping[str, Mapping[str, Accuracy]], path: str | Path, title: str | None = None) -> Path:
    """Save a PNG of pairwise accuracy per type (bars with 95 % intervals), one bar per method, chance dashed."""
    columns = [c for c in list(all_types()) + [ALL] if any(c in t for t in tables.values())]
    bars = {m: {c: (a.accuracy, a.low, a.high) for c, a in t.items()} for m, t in tables.items()}
    return plot_accuracy_bars(bars, columns, path, "pairwise accuracy", title)


def plot_generalisation(
    tests: Mapping[str, Mapping[str, Any]], folder: str | Path, method: str = "tomnet"
) -> list[Path]:
    """Save the generalisation tests' pictures in ``folder``: the pooled tests (all types, leave one type out,
    leave one scenario out: each type scored by the model that held it out) as bars per type
    (``generalisation.png``), and each test laid out split by split (single type, single scenario: AGENT's
    Figures 6 and 7) as a grid of the accuracy of each training split on each type it was tested on
    (``generalisation-<test>.png``). ``tests``: :meth:`RatingResults.generalisation_tables`'s form."""
    folder = Path(folder)
    pooled = {f"{method} {name}": t for name, t in tests.items() if name in POOLED_TESTS}
    paths = [plot_accuracy(pooled, folder / "generalisation.png", "Generalisation tests")] if pooled else []
    for name, splits in tests.items():
        if name in POOLED_TESTS:
            continue
        columns = [c for c in all_types() if any(c in t for t in splits.values())]
        rows = {label: {c: a.accuracy for c, a in t.items()} for label, t in splits.items()}
        paths.append(plot_accuracy_matrix(rows, columns, folder / f"generalisation-{name}.png", f"{method}, {name}"))
    return paths
