"""The four expectation scenarios (AGENT's), their trial types, and trials as pure functions of a seed.

``make_trial(key, seed)`` draws trial ``key`` (scenario, type, split, index)
from its own generator, seeded with (seed, scenario, type, split, index; in a
type of couples the index of its couple, index // 2): any trial is
made alone, in any order, on any process, and the same key and seed always give
the same trial. :func:`trial_keys` lists a split's keys, so
generation shards and resumes by key ranges.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from marple_gym.expectations import action_efficiency, cost_reward, goal_preferences, stages, unobserved_constraints
from marple_gym.expectations.trial import SPLITS, Trial, TrialKey


@dataclass(frozen=True)
class ExpectationScenario:
    """One of AGENT's scenarios: its number, name, title, types, and the function that draws one of its trials."""

    number: int
    name: str
    title: str
    types: tuple[str, ...]
    attempt: Callable[[TrialKey, int, np.random.Generator], Trial | None] = field(repr=False)
    couples: tuple[str, ...] = ()
    """The types whose trials come in couples (indices 2k and 2k + 1) drawn from one generator, whose tests show
    the same two movements, each expected in one trial of the couple and surprising in the other (see each
    scenario's module)."""


EXPECTATION_SCENARIOS: dict[str, ExpectationScenario] = {
    s.name: s
    for s in (
        ExpectationScenario(
            1,
            "goal_preferences",
            "Goal preferences",
            goal_preferences.TYPES,
            goal_preferences.attempt,
            goal_preferences.TYPES,
        ),
        ExpectationScenario(
            2,
            "action_efficiency",
            "Action efficiency",
            action_efficiency.TYPES,
            action_efficiency.attempt,
            action_efficiency.COUPLES,
        ),
        ExpectationScenario(
            3,
            "unobserved_constraints",
            "Unobserved constraints",
            unobserved_constraints.TYPES,
            unobserved_constraints.attempt,
            unobserved_constraints.COUPLES,
        ),
        ExpectationScenario(
            4,
            "cost_reward_trade_offs",
            "Cost-reward trade-offs",
            cost_reward.TYPES,
            cost_reward.attempt,
            cost_reward.TYPES,
        ),
    )
}
"""The scenarios by name, in AGENT's order."""


def scenario_of(type_name: str) -> ExpectationScenario:
    """The scenario a type ("1.1", "2.3", ...) belongs to (ValueError for an unknown type)."""
    for scenario in EXPECTATION_SCENARIOS.values():
        if type_name in scenario.types:
            return scenario
    known = [t for s in EXPECTATION_SCENARIOS.values() for t in s.types]
    raise ValueError(f"unknown trial type {type_name!r}; the types are {known}")


def all_types() -> tuple[str, ...]:
    """Every trial type, in order."""
    return tuple(t for s in EXPECTATION_SCENARIOS.values() for t in s.types)


def make_trial(key: TrialKey, seed: int = 0) -> Trial:
    """Trial ``key``, drawn from a generator seeded with ``seed`` and the key (see module docs)."""
    scenario = EXPECTATION_SCENARIOS.get(key.scenario)
    if scenario is None or key.type not in scenario.types:
        raise ValueError(f"no trial type {key.type!r} in scenario {key.scenario!r}")
    if key.split not in SPLITS:
        raise ValueError(f"unknown split {key.split!r}; use one of {SPLITS}")
    if key.index < 0:
        raise ValueError(f"trial index must be >= 0, got {key.index}")
    major, minor = (int(p) for p in key.type.split("."))
    draw = key.index // 2 if key.type in scenario.couples else key.index  # a couple's trials share one generator
    entropy = [int(seed), scenario.number, major, minor, SPLITS.index(key.split), draw]
    rng = np.random.default_rng(entropy)
    return stages.first_fit(lambda: scenario.attempt(key, seed, rng), key)


def trial_keys(split: str, per_type: int, types: Iterable[str] | None = None) -> list[TrialKey]:
    """The keys of ``per_type`` trials of each type (all types by default) in ``split``, type by type."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; use one of {SPLITS}")
    return [
        TrialKey(scenario_of(t).name, t, split, i)
        for t in (all_types() if types is None else types)
        for i in range(per_type)
    ]


def make_trials(keys: Iterable[TrialKey], seed: int = 0) -> Iterator[Trial]:
    """The trials of ``keys``, one after another."""
    for key in keys:
        yield make_trial(key, seed)
