"""Scenario 1, goal preferences: the agent prefers one of two objects, and goes for it wherever it is.

One familiarisation: two objects either side of the agent, equally hard to
reach; it goes for the one it prefers (A). At test the objects may have swapped
places (half the trials) and the barriers round them may have grown; the
expected agent goes for A again, the surprising one for the other object (B).
The four types vary what reaching each object costs (barrier levels of
:mod:`marple_gym.expectations.stages`, as (A, B) in familiarisation -> at test):

* 1.1: (L, L) -> (L, L): the same effort as before, for either object;
* 1.2: (L, L) -> (L, L + 1): B is now harder to reach than A;
* 1.3: (L, L) -> (L + 1, L + 1): A is harder to reach than before, and so is B;
* 1.4: (none, none) -> (front, cup): A is harder than before, B harder still.
"""

from __future__ import annotations

import numpy as np

from marple_gym.expectations import stages
from marple_gym.expectations.trial import Trial, TrialError, TrialKey
from marple_gym.planner.utility import Preferences

TYPES = ("1.1", "1.2", "1.3", "1.4")
ROW = 3
"""The objects' row: room for a cup below and a way round it above."""


def _levels(kind: str, rng: np.random.Generator) -> tuple[tuple[int, int], tuple[int, int]]:
    """(A, B) barrier levels in familiarisation and at test, as indices into :data:`stages.LEVELS`."""
    low = int(rng.integers(2))
    if kind == "1.1":
        return (low, low), (low, low)
    if kind == "1.2":
        return (low, low), (low, low + 1)
    if kind == "1.3":
        return (low, low), (low + 1, low + 1)
    if kind == "1.4":
        return (0, 0), (1, 2)
    raise ValueError(f"unknown goal-preference type {kind!r}; use one of {TYPES}")


def attempt(key: TrialKey, seed: int, rng: np.random.Generator) -> Trial | None:
    """One draw of trial ``key`` of this scenario (see module docs) with ``rng``: the trial, or None if the drawn
    stage or agent does not fit the type (:func:`marple_gym.expectations.scenarios.make_trial` draws again)."""
    base = stages.room(rng)
    cx = stages.centre(base)
    spread = int(rng.choice([k for k in (2, 3) if cx - k - 1 >= 1]))
    a, b = stages.object_types(rng, 2)
    sides = [(cx - spread, ROW), (cx + spread, ROW)]
    if rng.random() < 0.5:
        sides.reverse()
    (fam_a, fam_b), (test_a, test_b) = _levels(key.type, rng)
    fam = _placed(base, (a, sides[0], fam_a), (b, sides[1], fam_b))
    if rng.random() < 0.5:
        sides.reverse()  # the objects swap places
    test = _placed(base, (a, sides[0], test_a), (b, sides[1], test_b))
    agent = _agent(fam, test, a, b, rng)
    if agent is None:
        return None
    familiarisation, chose = stages.choosing(fam, agent, rng)
    expected, went = stages.choosing(test, agent, rng)
    if chose != a or went != a:
        raise TrialError(f"{key.id}: the agent did not prefer {a} as its rewards say")
    surprising = stages.going_for(test, agent, b, rng) if key.split == "test" else None
    return Trial(key, seed, agent, (familiarisation,), expected, surprising)


def _placed(base: stages.Stage, *objects: tuple[str, stages.Cell, int]) -> stages.Stage:
    stage = base.with_objects([(kind, cell) for kind, cell, _ in objects])
    return stage.with_obstacles([c for _, cell, level in objects for c in stages.around(cell, stages.LEVELS[level])])


def _agent(fam: stages.Stage, test: stages.Stage, a: str, b: str, rng: np.random.Generator) -> Preferences | None:
    """An agent that clearly prefers ``a`` on both stages (None if the drawn cost scale allows none)."""
    scale = float(rng.choice(stages.COST_SCALES))
    cells = {stage: dict((t, c) for t, c in stage.objects) for stage in (fam, test)}
    dearest = max(stages.goal_cost(stage, cells[stage][a], scale) for stage in (fam, test))
    rewards_a = [r for r in stages.REWARDS if r - dearest >= stages.MARGIN]
    if not rewards_a:
        return None
    r_a = float(rng.choice(rewards_a))
    r_b = float(rng.choice([r for r in stages.REWARDS if r <= r_a - stages.MARGIN]))
    agent = Preferences({a: r_a, b: r_b}, stages.costs(scale), stages.BETA)
    return agent if all(stages.clearly_chooses(stage, agent, a) for stage in (fam, test)) else None
