"""Scenario 3, unobserved constraints: the agent's way runs behind an occluder; lifting it shows what was there.

One familiarisation: the agent walks to its goal, an object in a nook at the
top of the room (a chair either side, so that every way ends on the same cell,
facing it), past an occluder that hides the middle of the room (a line of
chairs' row, with a margin of two cells either side and one above and below).
The onlooker sees the agent walk towards the occluder, vanish behind it, and
come out, somewhere and after some steps, on its way to the goal.

The test shows only the lift: the agent where the familiarisation left it, in
front of its goal, picks it up (the familiarisation's last action again,
``continues`` = 0), and the occluder is lifted. Both tests of a trial are that
one action; only what the lift shows differs, and it means something only
beside the familiarisation (how long the agent was hidden, where it came out).

Trials come in couples (indices 2k and 2k + 1) that share the room, the
occluder and the agent, and show two runs:

* the detour (the first trial): the agent turns aside and goes round what
  stands behind the occluder. Expected: the line of chairs that makes the bend
  the cheapest way. Surprising, 3.1: nothing, so the bend was a waste; 3.2,
  AGENT's two variants, one couple each in turn: a lower wall (the line two
  chairs shorter, round which a shorter way was open), or a wall with a
  doorway (a longer line across the hidden cells, clear of the run, with a gap
  where the straight way crosses it);
* the other run (the second trial), made where the detour's surprising reveal
  stands: straight behind the occluder (3.1's nothing, 3.2's doorway), or round
  the lower wall. Expected: that reveal; surprising: the full line, which the
  agent must then have walked through.

So the two trials' tests are the same two lifts with the roles swapped: every
test, as the test alone shows it, is expected in one trial of its couple and
surprising in the other, and nothing read in the test alone (its length, how
many chairs the lift shows, or anything a model learns) orders more than one
of the couple's two pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from marple_gym.expectations import stages
from marple_gym.expectations.trial import Episode, Trial, TrialKey
from marple_gym.generation.stage import Cell, Stage
from marple_gym.planner.utility import Preferences

TYPES = ("3.1", "3.2")
COUPLES = TYPES
"""The types whose trials come in couples (see module docs): both."""
SIDE_MARGIN = 2
"""How many cells the occluder hides beyond each end of the line (room for a doorway wall longer than it)."""
NOOK_ROW = 1
"""The row of the goal object: the room's top row, a chair either side of it."""


@dataclass(frozen=True)
class _Run:
    """One trial of a couple: the familiarisation's run, and the stages its expected and surprising lifts show."""

    run: Episode
    expected: Stage
    surprising: Stage


def attempt(key: TrialKey, seed: int, rng: np.random.Generator) -> Trial | None:
    """One draw of trial ``key`` of this scenario (see module docs) with ``rng``: the trial, or None if the drawn
    stage or agent does not fit the type (:func:`marple_gym.expectations.scenarios.make_trial` draws again).
    Both trials of a couple draw the whole couple, so that they stay in step through every redraw."""
    couple = _couple(key, rng)
    if couple is None:
        return None
    agent, runs = couple
    this = runs[key.index % 2]
    expected, surprising = (lift(stage, this.run) for stage in (this.expected, this.surprising))
    return Trial(key, seed, agent, (this.run,), expected, surprising if key.split == "test" else None)


def _couple(key: TrialKey, rng: np.random.Generator) -> tuple[Preferences, tuple[_Run, _Run]] | None:
    """The couple's agent and its two trials (see module docs), or None where the draw does not fit."""
    (kind,) = stages.object_types(rng, 1)
    line_only = stages.barrier_stage(kind, rng)
    line = list(line_only.obstacles)
    cx = stages.centre(line_only)
    bare = nook(line_only.without_obstacles(), kind).with_occluder(occluded(line_only).occluder)
    lined = bare.with_obstacles(line)
    agent = stages.keen_agent(lined, rng)
    if agent is None:
        return None
    detour, went = stages.choosing(lined, agent, rng)
    if went != kind or not _seen_to_vanish(detour, 2):
        return None  # the onlooker must see the agent turn aside before the occluder
    contents = _other_contents(key, line, bare.occluder, stages.route_of(detour), cx)
    if contents is None:
        return None
    other = bare.with_obstacles(contents)
    if stages.crossing(detour, other).through:
        return None  # the other reveal must leave the detour possible, only wasteful
    if stages.episode_cost(detour) < stages.goal_cost(other, (cx, NOOK_ROW)) + 1:
        return None  # what the other reveal shows must make the detour plainly wasteful
    run, went = stages.choosing(other, agent, rng)
    if went != kind or not _seen_to_vanish(run, 1) or not stages.crossing(run, lined).through:
        return None  # the other run must cross where the full line stands
    if _last_pose(run) != _last_pose(detour):
        return None  # both lifts must show the agent on the same cell, facing the same way
    return agent, (_Run(detour, lined, other), _Run(run, other, lined))


def nook(stage: Stage, kind: str) -> Stage:
    """``stage`` with its one object, of type ``kind``, in the middle of the top row, a chair either side of it:
    every way to it ends on the cell below it, facing north."""
    cx = stages.centre(stage)
    return stage.with_objects([(kind, (cx, NOOK_ROW))]).with_obstacles([(cx - 1, NOOK_ROW), (cx + 1, NOOK_ROW)])


def lift(stage: Stage, run: Episode) -> Episode:
    """The test: ``run``'s last action again (the pickup) from where the agent made it, on ``stage`` (the same
    occluder, and what the lift shows behind it), the occluder lifted at the end."""
    return Episode(stage.with_agent(_last_pose(run)), run.actions[-1:], reveal=True, continues=0)


def _last_pose(run: Episode) -> tuple[int, int, int]:
    """The agent's (x, y, heading) before the run's last action."""
    state = run.states[-2]
    x, y = state.agent_pos[0].tolist()
    return int(x), int(y), int(state.agent_dir[0])


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


def _other_contents(
    key: TrialKey, line: list[Cell], screen: tuple[Cell, ...], route: list[Cell], cx: int
) -> list[Cell] | None:
    """What the detour's surprising reveal shows behind the occluder (None: no doorway wall fits)."""
    if key.type == "3.1":
        return []
    if (key.index // 2) % 2 == 0:
        xs = sorted(x for x, _ in line)
        return [c for c in line if c[0] not in (xs[0], xs[-1])]  # the lower wall
    return doorway_wall(line, screen, route, cx)


def doorway_wall(line: list[Cell], screen: tuple[Cell, ...], route: list[Cell], cx: int) -> list[Cell] | None:
    """A wall on ``line``'s row over the longest stretch of the occluder's cells (``screen``) that ``route`` does not
    cross, with a one-cell doorway where it is nearest column ``cx``; None unless it has more chairs than the line."""
    row = line[0][1]
    crossed = set(route)
    free = sorted(x for x, y in screen if y == row and (x, row) not in crossed)
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
    door = min(inside, key=lambda x: abs(x - cx))
    wall = [(x, row) for x in longest if x != door]
    return wall if len(wall) > len(line) else None
