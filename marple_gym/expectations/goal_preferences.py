"""Scenario 1, goal preferences: the agent prefers one of two objects, and goes for it wherever it is.

One familiarisation: two objects, X and Y, either side of the agent, equally
hard to reach; it goes for the one it prefers. At test the objects may have
swapped places (half the trials) and the barriers round them may have grown;
the expected agent goes for its preferred object again, the surprising one for
the other. The four types vary what reaching each object costs (barriers of
:mod:`marple_gym.expectations.stages`: none, a cup or a deep cup, each dearer
to get round than the one before; L is none or a cup, L + 1 the next; as (X, Y)
in familiarisation -> at test):

* 1.1: (L, L) -> (L, L): the same effort as before, for either object;
* 1.2: (L, L) -> (L, L + 1): Y is now dearer to reach than X;
* 1.3: (L, L) -> (L + 1, L + 1): both are dearer to reach than before, equally;
* 1.4: (none, none) -> (cup, deep cup): both are dearer than before, Y dearer still.

Trials come in counterbalanced couples (indices 2k and 2k + 1): the two share
both stages and both test episodes (going for X, going for Y), and differ only
in the agent, which prefers X in one and Y in the other, as its familiarisation
shows. So in 1.2 and 1.4 the preferred object is the cheaper one at test in one
trial of a couple (AGENT's version) and the dearer one in the other (the agent
still goes for it: it values it by more than the difference, as the
familiarisation's choice at equal costs makes likely), and whatever a rule
reads in a test alone orders exactly one of the couple's pairs right.
"""

from __future__ import annotations

import numpy as np

from marple_gym.expectations import stages
from marple_gym.expectations.trial import Trial, TrialError, TrialKey
from marple_gym.planner.utility import Preferences

TYPES = ("1.1", "1.2", "1.3", "1.4")
ROW = 3
"""The objects' row: room for a cup below and a way round it above."""
BARRIERS = ("none", "cup", "deep")
"""The barriers this scenario puts round an object, each dearer to get round than the one before (a line in front
costs nothing to an agent that comes from the side, so it is left out)."""


def _levels(kind: str, rng: np.random.Generator) -> tuple[tuple[int, int], tuple[int, int]]:
    """(X, Y) barriers in familiarisation and at test, as indices into :data:`stages.LEVELS`."""
    low, high = (stages.LEVELS.index(b) for b in BARRIERS[int(rng.integers(2)) :][:2])
    none, cup, deep = (stages.LEVELS.index(b) for b in BARRIERS)
    if kind == "1.1":
        return (low, low), (low, low)
    if kind == "1.2":
        return (low, low), (low, high)
    if kind == "1.3":
        return (low, low), (high, high)
    if kind == "1.4":
        return (none, none), (cup, deep)
    raise ValueError(f"unknown goal-preference type {kind!r}; use one of {TYPES}")


def attempt(key: TrialKey, seed: int, rng: np.random.Generator) -> Trial | None:
    """One draw of trial ``key``'s couple (see module docs) with ``rng``, the couple's generator: trial ``key``,
    or None if the drawn stages or agents do not fit the type (:func:`marple_gym.expectations.scenarios.make_trial`
    draws again)."""
    base = stages.room(rng)
    cx = stages.centre(base)
    spread = int(rng.choice([k for k in (2, 3) if cx - k - 1 >= 1]))
    x, y = stages.object_types(rng, 2)
    sides = [(cx - spread, ROW), (cx + spread, ROW)]
    if rng.random() < 0.5:
        sides.reverse()
    (fam_x, fam_y), (test_x, test_y) = _levels(key.type, rng)
    fam = _placed(base, (x, sides[0], fam_x), (y, sides[1], fam_y))
    if rng.random() < 0.5:
        sides.reverse()  # the objects swap places
    test = _placed(base, (x, sides[0], test_x), (y, sides[1], test_y))
    if not _dearer_as_the_type_says(key.type, fam, test, x, y):
        return None
    agents = [stages.first_agent(lambda p=p, o=o: _agent(fam, test, p, o, rng)) for p, o in ((x, y), (y, x))]
    if None in agents:
        return None
    to_x, to_y = (stages.going_for(test, agents[0], kind, rng) for kind in (x, y))
    preferred, other = (x, y) if key.index % 2 == 0 else (y, x)
    agent = agents[key.index % 2]
    familiarisation, chose = stages.choosing(fam, agent, rng)
    if chose != preferred:
        raise TrialError(f"{key.id}: the agent did not prefer {preferred} as its rewards say")
    expected, surprising = (to_x, to_y) if preferred == x else (to_y, to_x)
    return Trial(key, seed, agent, (familiarisation,), expected, surprising if key.split == "test" else None)


def _dearer_as_the_type_says(kind: str, fam: stages.Stage, test: stages.Stage, x: str, y: str) -> bool:
    """Do the barriers cost what the type says (a higher level is not always a dearer way: a line in front of an
    object approached from the side costs nothing)?"""
    cost = {(stage, kind_): stages.goal_cost(stage, cell) for stage in (fam, test) for kind_, cell in stage.objects}
    y_dearer = cost[test, y] >= cost[test, x] + 1
    both_dearer = min(cost[test, k] - cost[fam, k] for k in (x, y)) >= 1
    return (y_dearer or kind not in ("1.2", "1.4")) and (both_dearer or kind not in ("1.3", "1.4"))


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
