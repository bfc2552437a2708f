"""Scenario 4, cost-reward trade-offs: what an agent will pay for each object says which it values more.

Four familiarisations, one object each, in the middle of the room behind a
barrier of some difficulty (:data:`stages.LEVELS`):

1. object A behind a line of chairs: the agent goes for it;
2. object A inside a deep cup of chairs: the agent stays where it is;
3. object B with nothing in the way: the agent goes for it;
4. object B behind a line of chairs: the agent stays where it is.

So A is worth more than a line's detour and less than a cup's; B more than the
straight way and less than the line's detour. At test both objects are there,
either side of the agent, for the first time; the expected agent goes for A,
the surprising one for B:

* 4.1: both equally hard to reach (nothing or a line in front of each);
* 4.2: B harder to reach than A.
"""

from __future__ import annotations

import numpy as np

from marple_gym.expectations import stages
from marple_gym.expectations.trial import Trial, TrialError, TrialKey
from marple_gym.generation.stage import Stage
from marple_gym.planner.utility import Preferences

TYPES = ("4.1", "4.2")
ROW = 3
FAMILIARISATION = (("a", "front", True), ("a", "deep", False), ("b", "none", True), ("b", "front", False))
"""(object, barrier level, does the agent go for it) of the four familiarisations, in order."""


def attempt(key: TrialKey, seed: int, rng: np.random.Generator) -> Trial | None:
    """One draw of trial ``key`` of this scenario (see module docs) with ``rng``: the trial, or None if the drawn
    stage or agent does not fit the type (:func:`marple_gym.expectations.scenarios.make_trial` draws again)."""
    base = stages.room(rng)
    cx = stages.centre(base)
    a, b = stages.object_types(rng, 2)
    names = {"a": a, "b": b}
    agent = _agent(base, (cx, ROW), a, b, rng)
    if agent is None:
        return None
    fams = [_alone(base, names[who], (cx, ROW), level) for who, level, _ in FAMILIARISATION]
    goals = [names[who] if goes else None for who, _, goes in FAMILIARISATION]
    if not all(stages.clearly_chooses(s, agent, goal) for s, goal in zip(fams, goals)):
        return None
    test = _test_stage(key.type, base, a, b, rng)
    if not stages.clearly_chooses(test, agent, a):
        return None
    familiarisation = []
    for stage, goal in zip(fams, goals):
        episode, went = stages.choosing(stage, agent, rng)
        if went != goal:
            raise TrialError(f"{key.id}: the agent did not trade cost for reward as its rewards say")
        familiarisation.append(episode)
    expected, _ = stages.choosing(test, agent, rng)
    surprising = stages.going_for(test, agent, b, rng) if key.split == "test" else None
    return Trial(key, seed, agent, tuple(familiarisation), expected, surprising)


def _alone(base: Stage, kind: str, cell: stages.Cell, level: str) -> Stage:
    return base.with_objects([(kind, cell)]).with_obstacles(stages.around(cell, level))


def _agent(base: Stage, cell: stages.Cell, a: str, b: str, rng: np.random.Generator) -> Preferences | None:
    """An agent for whom A is worth a line's detour but not a deep cup's, and B the straight way but not a line's
    detour, each by a clear margin (None if the drawn cost scale allows none)."""
    scale = float(rng.choice(stages.COST_SCALES))
    low, mid, high = (
        stages.goal_cost(_alone(base, a, cell, level), cell, scale) for level in ("none", "front", "deep")
    )
    margin = stages.MARGIN
    rewards_a = [r for r in stages.REWARDS if mid + margin <= r <= high - margin]
    rewards_b = [r for r in stages.REWARDS if low + margin <= r <= mid - margin]
    if not rewards_a or not rewards_b:
        return None
    return Preferences(
        {a: float(rng.choice(rewards_a)), b: float(rng.choice(rewards_b))}, stages.costs(scale), stages.BETA
    )


def _test_stage(kind: str, base: Stage, a: str, b: str, rng: np.random.Generator) -> Stage:
    """Both objects either side of the agent, B as hard to reach as A (4.1) or harder (4.2)."""
    cx = stages.centre(base)
    spread = int(rng.choice([k for k in (2, 3) if cx - k - 1 >= 1]))
    sides = [(cx - spread, ROW), (cx + spread, ROW)]
    if rng.random() < 0.5:
        sides.reverse()
    level_a = int(rng.integers(2))
    level_b = level_a if kind == "4.1" else int(rng.integers(level_a + 1, 3))
    objects = [(a, sides[0]), (b, sides[1])]
    chairs = stages.around(sides[0], stages.LEVELS[level_a]) + stages.around(sides[1], stages.LEVELS[level_b])
    return base.with_objects(objects).with_obstacles(chairs)
