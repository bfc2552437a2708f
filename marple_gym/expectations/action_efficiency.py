"""Scenario 2, action efficiency: the agent goes round an obstacle to its goal; once the obstacle has changed,
the expected agent takes the new cheapest way and the surprising one repeats its old detour.

One familiarisation: a line of chairs between the agent and the goal object,
which the agent walks round. At test, with the goal where it was:

* 2.1: the obstacle is gone;
* 2.2: the obstacle has moved out of the way (off the straight way and the old detour);
* 2.3: the obstacle is smaller (two chairs shorter), so a shorter detour serves;
* 2.4: the obstacle is a wall between two rooms, which the agent crossed by a door at its side; at test the
  wall has a second door, right on the way;
* 2.5: the obstacle is where it was; the expected agent goes round it again, and the surprising one walks the
  mirror image of that way, which passes through the chairs (AGENT's control against "the straighter path is
  the expected one": here the two ways are exactly as long, as straight and as twisting, and only what the
  chairs allow tells them apart). The line of chairs stands off the agent's column, so that the mirror image
  of the way round its nearer end crosses it.

Trials of 2.1-2.4 come in couples (indices 2k and 2k + 1) that share the
familiarisation and the two movements of the tests: the old way again, and the
new way the type's change opened. In the first trial the change is made, as
above (AGENT's pair); in the second it is not: the test stage is the
familiarisation's, the old way is the expected test, and the new way is the
surprising one, passing through the chairs (or the wall) the change would have
moved. In this world a dearer way has more moves or more turns, so the pairs of
AGENT's version differ in length; in a couple each movement is once expected
and once surprising, so a rule that counts, or anything else read in the test's
movement alone, orders one pair of the couple right and the other wrong.
"""

from __future__ import annotations

import numpy as np

from marple_gym.expectations import stages
from marple_gym.expectations.trial import Episode, Trial, TrialError, TrialKey
from marple_gym.generation.config import HouseConfigError
from marple_gym.generation.stage import Stage
from marple_gym.planner.utility import Preferences

TYPES = ("2.1", "2.2", "2.3", "2.4", "2.5")
COUPLES = ("2.1", "2.2", "2.3", "2.4")
"""The types whose trials come in couples (see module docs); 2.5's own pairs are matched."""


def attempt(key: TrialKey, seed: int, rng: np.random.Generator) -> Trial | None:
    """One draw of trial ``key`` of this scenario (see module docs) with ``rng``: the trial, or None if the drawn
    stage or agent does not fit the type (:func:`marple_gym.expectations.scenarios.make_trial` draws again)."""
    (kind,) = stages.object_types(rng, 1)
    fam = _familiar(key.type, kind, rng)
    agent = stages.keen_agent(fam, rng)
    if agent is None:
        return None
    familiarisation, went = stages.choosing(fam, agent, rng)
    if went != kind:
        return None
    if key.type == "2.5":
        return _through_the_chairs(key, seed, agent, familiarisation, rng)
    test = _changed(key.type, fam, stages.route_of(familiarisation), rng)
    if test is None:
        return None
    new_way, went = stages.choosing(test, agent, rng)
    old_way = _repeat(test, familiarisation)
    if went != kind or old_way is None:
        return None
    if stages.episode_cost(old_way) < stages.episode_cost(new_way) + 1:
        return None  # the old way must be plainly the dearer one now
    if key.index % 2 == 0:
        expected, surprising = new_way, old_way
    else:  # nothing changed: the old way is expected, and the new one passes through what is still there
        expected, surprising = familiarisation, stages.crossing(new_way, fam)
    return Trial(key, seed, agent, (familiarisation,), expected, surprising if key.split == "test" else None)


def _through_the_chairs(
    key: TrialKey, seed: int, agent: Preferences, familiarisation: Episode, rng: np.random.Generator
) -> Trial | None:
    """Type 2.5 on the familiarisation's own stage: the expected way round the chairs, and its mirror image
    through them (None where the mirror image passes no chair: the line stands on the agent's column)."""
    stage = familiarisation.stage
    expected, _ = stages.choosing(stage, agent, rng)
    surprising = stages.mirrored(expected)
    if not surprising.through:
        return None
    return Trial(key, seed, agent, (familiarisation,), expected, surprising if key.split == "test" else None)


def _familiar(kind_of_trial: str, kind: str, rng: np.random.Generator) -> Stage:
    """The familiarisation stage: the goal at the top middle, an obstacle on the way."""
    if kind_of_trial == "2.4":
        base = stages.two_rooms(rng)
        width = base.rooms[0].size[0]
        door = int(rng.choice([1, 2, width - 1, width]))
        return Stage(
            base.width,
            base.height,
            base.rooms,
            doors=((door, stages.WALL_ROW),),
            objects=((kind, (stages.centre(base), stages.GOAL_ROW)),),
            agent=base.agent,
        )
    return stages.barrier_stage(kind, rng)


def _changed(kind_of_trial: str, fam: Stage, route: list, rng: np.random.Generator) -> Stage | None:
    """The test stage: the familiarisation's with its obstacle changed as the type says (None if none fits)."""
    if kind_of_trial == "2.1":
        return fam.without_obstacles()
    if kind_of_trial == "2.3":
        return stages.shortened(fam)
    if kind_of_trial == "2.4":
        cx = stages.centre(fam)
        return Stage(
            fam.width,
            fam.height,
            fam.rooms,
            doors=fam.doors + ((cx + int(rng.integers(-1, 2)), stages.WALL_ROW),),
            objects=fam.objects,
            agent=fam.agent,
        )
    return _moved_aside(fam, route, rng)


def _moved_aside(fam: Stage, route: list, rng: np.random.Generator) -> Stage | None:
    """The obstacle moved where it blocks neither the cheapest way nor the old detour."""
    bare = fam.without_obstacles()
    goal = fam.objects[0][1]
    free_cost = stages.goal_cost(bare, goal)
    (room,) = fam.rooms
    (x0, y0), (w, h) = room.top, room.size
    length = len(fam.obstacles)
    on_way = set(route) | {goal, fam.agent[:2]}
    candidates = []
    for y in range(y0, y0 + h):
        for x in range(x0, x0 + w - length + 1):
            candidates.append([(x + i, y) for i in range(length)])
    for x in range(x0, x0 + w):
        for y in range(y0, y0 + h - length + 1):
            candidates.append([(x, y + i) for i in range(length)])
    for i in rng.permutation(len(candidates)).tolist():
        cells = candidates[i]
        if on_way & set(cells) or set(cells) == set(fam.obstacles):
            continue
        moved = bare.with_obstacles(cells)
        try:
            if stages.goal_cost(moved, goal) == free_cost:
                return moved
        except HouseConfigError:  # chairs the house generator cannot place so (one would be out of use)
            continue
    return None


def _repeat(test: Stage, old: Episode) -> Episode | None:
    """The old way, action for action, on the test stage (None if the test stage blocks it)."""
    episode = Episode(test, old.actions)
    try:
        _ = episode.states
    except TrialError:
        return None
    return episode
