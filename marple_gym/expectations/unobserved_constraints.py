"""Scenario 3, unobserved constraints: the agent's way bends behind an occluder; lifting it shows what was there.

One familiarisation: the agent walks to its goal round a line of chairs that
an occluder hides (with a margin of two cells either side and one above and
below) from the onlooker, who sees the agent turn aside before the occluder,
vanish behind it and come out beyond. The tests show the same run again, and at
its end the occluder is lifted:

* expected: the line of chairs that made the bend the cheapest way;
* surprising, 3.1: nothing, so the bend was a waste;
* surprising, 3.2: an obstacle that still makes the bend a waste, AGENT's two variants in turn (even trial
  indices the first, odd the second): a lower wall, our line two chairs shorter, round which a shorter way
  was open; or a wall with a doorway, a longer line across the hidden cells, clear of the run, with a gap
  where the straight way crosses it. The doorway wall has more chairs than the expected line and the lower
  wall fewer, so "an emptier reveal is the surprise" orders half of 3.2's pairs each way.

As in AGENT, the test is the familiarisation's run again (``continues`` = 0);
only what the lifted occluder shows differs, so nothing but what the lift shows
tells the two tests apart. 3.1's trials come in couples (indices 2k and 2k + 1)
that share the occluder and the line of chairs: in the first, the trial above;
in the second, nothing stands behind the occluder, the agent walks straight to
its goal behind it, and the lift shows nothing (expected) or the line, which
the agent must then have walked through (surprising). So an empty reveal is
the surprising one in one trial of a couple and the expected one in the other.
"""

from __future__ import annotations

import numpy as np

from marple_gym.expectations import stages
from marple_gym.expectations.trial import Episode, Trial, TrialError, TrialKey
from marple_gym.generation.stage import Cell, Stage

TYPES = ("3.1", "3.2")
COUPLES = ("3.1",)
"""The types whose trials come in couples (see module docs); 3.2's two variants balance its reveals."""
SIDE_MARGIN = 2
"""How many cells the occluder hides beyond each end of the line (room for a doorway wall longer than it)."""


def attempt(key: TrialKey, seed: int, rng: np.random.Generator) -> Trial | None:
    """One draw of trial ``key`` of this scenario (see module docs) with ``rng``: the trial, or None if the drawn
    stage or agent does not fit the type (:func:`marple_gym.expectations.scenarios.make_trial` draws again)."""
    (kind,) = stages.object_types(rng, 1)
    fam = occluded(stages.barrier_stage(kind, rng))
    if key.type == "3.1" and key.index % 2 == 1:
        return _straight_behind(key, seed, fam, rng)
    agent = stages.keen_agent(fam, rng)
    if agent is None:
        return None
    familiarisation, went = stages.choosing(fam, agent, rng)
    if went != kind or not _seen_to_vanish(familiarisation, 2):
        return None  # the onlooker must see the agent turn aside before the occluder
    revealed = _surprising_contents(key, fam, stages.route_of(familiarisation))
    if revealed is None:
        return None
    surprising = Episode(revealed, familiarisation.actions, reveal=True, continues=0)
    try:
        _ = surprising.states
    except TrialError:  # what the lift shows would have stood in the agent's way
        return None
    cheapest = stages.goal_cost(revealed, fam.objects[0][1])
    if stages.episode_cost(familiarisation) < cheapest + 1:
        return None  # what the surprising reveal shows must make the run plainly wasteful
    expected = Episode(fam, familiarisation.actions, reveal=True, continues=0)
    return Trial(key, seed, agent, (familiarisation,), expected, surprising if key.split == "test" else None)


def _straight_behind(key: TrialKey, seed: int, lined: Stage, rng: np.random.Generator) -> Trial | None:
    """The second trial of a 3.1 couple: nothing behind the occluder, the agent's way straight behind it, and
    the lift showing nothing (expected) or ``lined``'s chairs across that way (surprising)."""
    empty = lined.without_obstacles()
    agent = stages.keen_agent(empty, rng)
    if agent is None:
        return None
    run, went = stages.choosing(empty, agent, rng)
    crossed = stages.crossing(run, lined)
    if went != empty.objects[0][0] or not _seen_to_vanish(run, 1) or not crossed.through:
        return None
    expected = Episode(empty, run.actions, reveal=True, continues=0)
    surprising = Episode(lined, run.actions, reveal=True, continues=0, through=crossed.through)
    return Trial(key, seed, agent, (run,), expected, surprising if key.split == "test" else None)


def _seen_to_vanish(run: Episode, first: int) -> bool:
    """Does the onlooker see the agent's ``first`` actions, and then lose it behind the occluder?"""
    evidence = run.evidence()
    return None in evidence.poses and all(a is not None for a in evidence.actions[:first])


def occluded(stage: Stage) -> Stage:
    """``stage`` with an occluder over its obstacles, :data:`SIDE_MARGIN` cells beyond either end and one above
    and below, within the room."""
    (room,) = stage.rooms
    xs = [x for x, _ in stage.obstacles]
    ys = [y for _, y in stage.obstacles]
    cells = [
        (x, y)
        for x in range(min(xs) - SIDE_MARGIN, max(xs) + SIDE_MARGIN + 1)
        for y in range(min(ys) - 1, max(ys) + 2)
        if room.contains((x, y))
    ]
    return stage.with_occluder(cells)


def _surprising_contents(key: TrialKey, fam: Stage, route: list[Cell]) -> Stage | None:
    """The familiarisation stage with what the surprising reveal shows behind the occluder (None: no doorway
    wall longer than the line fits beside the run)."""
    if key.type == "3.1":
        return fam.without_obstacles()
    if key.index % 2 == 0:
        return stages.shortened(fam)
    wall = doorway_wall(fam, route)
    return None if wall is None else fam.without_obstacles().with_obstacles(wall)


def doorway_wall(fam: Stage, route: list[Cell]) -> list[Cell] | None:
    """A wall on the line's row over the longest stretch of hidden cells the run does not cross, with a one-cell
    doorway where it is nearest the agent's column; None unless it has more chairs than the line."""
    row = fam.obstacles[0][1]
    hidden = {c for c in fam.occluder if c[1] == row}
    free = sorted(x for x, y in hidden if (x, row) not in set(route))
    stretches: list[list[int]] = []
    for x in free:
        if stretches and x == stretches[-1][-1] + 1:
            stretches[-1].append(x)
        else:
            stretches.append([x])
    longest = max(stretches, key=len, default=[])
    inside = longest[1:-1]
    if not inside:
        return None
    door = min(inside, key=lambda x: abs(x - stages.centre(fam)))
    wall = [(x, row) for x in longest if x != door]
    return wall if len(wall) > len(fam.obstacles) else None
