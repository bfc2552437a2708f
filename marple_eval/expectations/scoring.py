"""Scoring as AGENT scores: the fraction of (surprising, expected) pairs whose surprise ratings are ordered right.

Each test trial pairs one surprising and one expected test sharing the
familiarisation; a pair counts 1 when the surprising test is rated more
surprising, 0.5 on a tie (so a method that cannot tell scores 0.5) and 0
otherwise. :func:`accuracy_table` gives the mean per type, per scenario and over
all trials, each with a 95 % percentile bootstrap interval over trials
(:func:`marple_eval.metrics.bootstrap_interval`: 2000 resamples, seed 0) and
the number of trials; groups of fewer than :data:`marple_eval.metrics.MIN_TRIALS`
trials carry a warning.

:func:`standardise` z-scores each participant's ratings (AGENT's human
baseline), :func:`generalisation_tests` lists the train/test type splits of
AGENT's four generalisation tests, and :func:`plot_accuracy` draws a table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from marple_eval.expectations.methods import Rating
from marple_eval.metrics import MIN_TRIALS, bootstrap_interval, few_trials_warning
from marple_eval.plots import plot_accuracy_bars
from marple_gym.expectations.scenarios import EXPECTATION_SCENARIOS, all_types, scenario_of

ALL = "all"


def pair_score(rating: Rating) -> float:
    """1 if the surprising test is rated more surprising than the expected one, 0.5 on a tie, else 0."""
    if rating.surprising > rating.expected:
        return 1.0
    return 0.5 if rating.surprising == rating.expected else 0.0


@dataclass(frozen=True)
class Accuracy:
    """Pairwise accuracy of a group of trials, with its 95 % bootstrap interval and size."""

    accuracy: float
    low: float
    high: float
    trials: int

    @property
    def warning(self) -> str | None:
        return few_trials_warning(self.trials)

    def to_dict(self) -> dict:
        return {"accuracy": self.accuracy, "low": self.low, "high": self.high, "trials": self.trials}


def accuracy_of(ratings: Sequence[Rating]) -> Accuracy:
    """The pairwise accuracy of ``ratings`` (at least one)."""
    if not ratings:
        raise ValueError("no ratings to score")
    scores = np.array([[pair_score(r)] for r in ratings])
    low, high = bootstrap_interval(scores)
    return Accuracy(float(scores.mean()), float(low[0]), float(high[0]), len(ratings))


def accuracy_table(ratings: Iterable[Rating]) -> dict[str, Accuracy]:
    """Pairwise accuracy per type ("1.1", ...), per scenario ("goal_preferences", ...) and over all trials
    (:data:`ALL`), for the groups the ratings cover, in AGENT's order."""
    ratings = list(ratings)
    table: dict[str, Accuracy] = {}
    for scenario in EXPECTATION_SCENARIOS.values():
        for kind in scenario.types:
            group = [r for r in ratings if r.type == kind]
            if group:
                table[kind] = accuracy_of(group)
        group = [r for r in ratings if r.scenario == scenario.name]
        if group:
            table[scenario.name] = accuracy_of(group)
    if ratings:
        table[ALL] = accuracy_of(ratings)
    return table


def format_table(tables: Mapping[str, Mapping[str, Accuracy]]) -> str:
    """A Markdown table: one row per method, one column per type, scenario and all (accuracy [low, high])."""
    columns = [
        c for c in list(all_types()) + list(EXPECTATION_SCENARIOS) + [ALL] if any(c in t for t in tables.values())
    ]
    head = "| method | " + " | ".join(_short(c) for c in columns) + " |"
    lines = [head, "|" + " --- |" * (len(columns) + 1)]
    for method, table in tables.items():
        cells = [
            f"{table[c].accuracy:.2f} [{table[c].low:.2f}, {table[c].high:.2f}]" if c in table else "-" for c in columns
        ]
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    smallest = min((a.trials for t in tables.values() for a in t.values()), default=MIN_TRIALS)
    if smallest < MIN_TRIALS:
        lines.append("")
        lines.append(f"(some groups have fewer than {MIN_TRIALS} trials: their figures are too uncertain to compare)")
    return "\n".join(lines)


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
