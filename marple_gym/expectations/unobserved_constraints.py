"""Scenario 3, unobserved constraints: the agent's way bends behind an occluder; lifting it shows what was there.

One familiarisation: the agent walks to its goal round a line of chairs that
an occluder hides, with a margin of one cell, from the onlooker, who sees the
agent turn aside before the occluder, vanish behind it and come out beyond.
The tests show the same run again, and at its end the occluder is lifted:

* expected: the line of chairs that made the bend the cheapest way;
* surprising, 3.1: nothing, so the bend was a waste;
* surprising, 3.2: a line two chairs shorter, round which a shorter way was open.

As in AGENT, the test is the familiarisation's run again (``continues`` = 0);
only what the lifted occluder shows differs.
"""

from __future__ import annotations

import numpy as np

from marple_gym.expectations import stages
from marple_gym.expectations.trial import Episode, Trial, TrialKey
from marple_gym.generation.stage import Stage

TYPES = ("3.1", "3.2")


def attempt(key: TrialKey, seed: int, rng: np.random.Generator) -> Trial | None:
    """One draw of trial ``key`` of this scenario (see module docs) with ``rng``: the trial, or None if the drawn
    stage or agent does not fit the type (:func:`marple_gym.expectations.scenarios.make_trial` draws again)."""
    (kind,) = stages.object_types(rng, 1)
    fam = occluded(stages.barrier_stage(kind, rng))
    agent = stages.keen_agent(fam, rng)
    if agent is None:
        return None
    familiarisation, went = stages.choosing(fam, agent, rng)
    evidence = familiarisation.evidence()
    if went != kind or None not in evidence.poses or any(a is None for a in evidence.actions[:2]):
        return None  # the onlooker must see the agent set off, and lose it behind the occluder
    revealed = _surprising_contents(key.type, fam)
    surprising = Episode(revealed, familiarisation.actions, reveal=True, continues=0)
    cheapest = stages.goal_cost(revealed, fam.objects[0][1])
    if stages.episode_cost(familiarisation) < cheapest + 1:
        return None  # what the surprising reveal shows must make the run plainly wasteful
    expected = Episode(fam, familiarisation.actions, reveal=True, continues=0)
    return Trial(key, seed, agent, (familiarisation,), expected, surprising if key.split == "test" else None)


def occluded(stage: Stage) -> Stage:
    """``stage`` with an occluder over its obstacles and one cell round them, within the room."""
    (room,) = stage.rooms
    xs = [x for x, _ in stage.obstacles]
    ys = [y for _, y in stage.obstacles]
    cells = [
        (x, y)
        for x in range(min(xs) - 1, max(xs) + 2)
        for y in range(min(ys) - 1, max(ys) + 2)
        if room.contains((x, y))
    ]
    return stage.with_occluder(cells)


def _surprising_contents(kind: str, fam: Stage) -> Stage:
    """The familiarisation stage with what the surprising reveal shows behind the occluder."""
    if kind == "3.1":
        return fam.without_obstacles()
    return stages.shortened(fam)
