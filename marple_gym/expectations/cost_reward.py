"""Scenario 4, cost-reward trade-offs: what an agent will pay for each object says which it values more.

Four familiarisations, one object each, in the middle of the room behind a
barrier of some difficulty (:data:`stages.LEVELS`):

1. object A behind a line of chairs: the agent goes for it;
2. object A inside a deep cup of chairs: the agent stays where it is;
3. object B with nothing in the way: the agent goes for it;
4. object B behind a line of chairs: the agent stays where it is.

So A is worth more than a line's detour and less than a cup's; B more than the
straight way and less than the line's detour. At test both objects, X and Y,
are there, either side of the agent, for the first time; the expected agent
goes for A, the surprising one for B:

* 4.1: both equally hard to reach (nothing or a line in front of each);
* 4.2: Y dearer to reach than X.

Trials come in counterbalanced couples (indices 2k and 2k + 1) that share the
test stage and both test episodes (going for X, going for Y): in one X is A, in
the other Y is. So in 4.2 the object worth more is the cheaper one at test in
one trial of a couple (AGENT's version) and the dearer one in the other, and
whatever a rule reads in a test alone orders exactly one of the couple's pairs
right.
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
    """One draw of trial ``key``'s couple (see module docs) with ``rng``, the couple's generator: trial ``key``,
    or None if the drawn stages or agents do not fit the type (:func:`marple_gym.expectations.scenarios.make_trial`
    draws again)."""
    base = stages.room(rng)
    x, y = stages.object_types(rng, 2)
    test = _test_stage(key.type, base, x, y, rng)
    if test is None:
        return None
    couple = [_sibling(base, test, worth_more, worth_less, rng) for worth_more, worth_less in ((x, y), (y, x))]
    if None in couple:
        return None
    to_x, to_y = (stages.going_for(test, couple[0][0], kind, rng) for kind in (x, y))
    agent, fams, goals = couple[key.index % 2]
    familiarisation = []
    for stage, goal in zip(fams, goals):
        episode, went = stages.choosing(stage, agent, rng)
        if went != goal:
            raise TrialError(f"{key.id}: the agent did not trade cost for reward as its rewards say")
        familiarisation.append(episode)
    expected, surprising = (to_x, to_y) if key.index % 2 == 0 else (to_y, to_x)
    return Trial(key, seed, agent, tuple(familiarisation), expected, surprising if key.split == "test" else None)


def _sibling(base: Stage, test: Stage, a: str, b: str, rng: np.random.Generator):
    """(agent, familiarisation stages, what it goes for on each) of the trial whose agent values ``a`` more, or
    None if the drawn agent does not clearly choose as the scenario needs."""
    cx = stages.centre(base)
    names = {"a": a, "b": b}
    fams = [_alone(base, names[who], (cx, ROW), level) for who, level, _ in FAMILIARISATION]
    goals = [names[who] if goes else None for who, _, goes in FAMILIARISATION]

    def draw() -> Preferences | None:
        agent = _agent(base, (cx, ROW), a, b, rng)
        fits = agent is not None and all(  # the test first: the familiarisations fit by the rewards' drawing
            stages.clearly_chooses(s, agent, g) for s, g in zip([test, *fams], [a, *goals])
        )
        return agent if fits else None

    agent = stages.first_agent(draw)
    return None if agent is None else (agent, fams, goals)


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


def _test_stage(kind: str, base: Stage, x: str, y: str, rng: np.random.Generator) -> Stage | None:
    """Both objects either side of the agent, Y as hard to reach as X (4.1) or dearer (4.2; None if the drawn
    barriers do not make it so)."""
    cx = stages.centre(base)
    spread = int(rng.choice([k for k in (2, 3) if cx - k - 1 >= 1]))
    sides = [(cx - spread, ROW), (cx + spread, ROW)]
    if rng.random() < 0.5:
        sides.reverse()
    level_x = int(rng.integers(2))
    level_y = level_x if kind == "4.1" else int(rng.integers(level_x + 1, 3))
    objects = [(x, sides[0]), (y, sides[1])]
    chairs = stages.around(sides[0], stages.LEVELS[level_x]) + stages.around(sides[1], stages.LEVELS[level_y])
    test = base.with_objects(objects).with_obstacles(chairs)
    if kind == "4.2" and stages.goal_cost(test, sides[1]) < stages.goal_cost(test, sides[0]) + 1:
        return None
    return test
