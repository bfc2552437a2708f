"""Stages: obstacles placed and taken away between episodes, the same stage always the same world."""

from __future__ import annotations

import numpy as np
import pytest

from marple_gym.generation.stage import Stage, StageRoom
from marple_gym.world.assets import ASSETS
from marple_gym.world.state import CH_FUR

CHAIR = ASSETS.furniture_code["chair"]


def stage(**changes) -> Stage:
    base = {
        "width": 11,
        "height": 9,
        "rooms": (StageRoom("Kitchen", (1, 1), (9, 7)),),
        "objects": (("apple", (7, 3)),),
        "agent": (2, 6, 3),
    }
    return Stage(**{**base, **changes})


def chairs(world) -> set[tuple[int, int]]:
    ys, xs = np.nonzero(world.state.grid[..., CH_FUR] == CHAIR)
    return set(zip(xs.tolist(), ys.tolist()))


def test_obstacles_are_placed_and_taken_away_between_episodes():
    bare = stage()
    blocked = bare.with_obstacles([(4, 2), (4, 3), (4, 4)])
    assert chairs(bare.world()) == set() and chairs(blocked.world()) == {(4, 2), (4, 3), (4, 4)}
    assert chairs(blocked.without_obstacles([(4, 3)]).world()) == {(4, 2), (4, 4)}
    assert blocked.without_obstacles() == bare


def test_the_same_stage_is_the_same_world_and_worlds_are_independent_copies():
    a, b = stage().world(), stage().world()
    assert a.house is b.house and a.state.same_as(b.state) and a.state is not b.state
    assert a.state.agent_pos[0].tolist() == [2, 6] and int(a.state.agent_dir[0]) == 3
    assert [ASSETS.object_names[int(c)] for c in a.house.obj_type] == ["apple"]


def test_the_occluder_hides_its_cells_from_an_onlooker():
    vis = stage(occluder=[(5, 3), (5, 4)]).visibility()
    assert set(zip(*np.nonzero(vis.hidden)[::-1])) == {(5, 3), (5, 4)}


def test_a_stage_reads_back_from_its_plain_form():
    s = stage(obstacles=[(4, 2)], occluder=[(5, 5)], doors=(), furniture=(("sink", (7, 5)),))
    assert Stage.from_dict(s.to_dict()) == s


def test_impossible_stages_are_refused():
    with pytest.raises(ValueError, match="not on a room's floor"):
        stage(obstacles=[(0, 0)])
    with pytest.raises(ValueError, match="share a cell"):
        stage(obstacles=[(7, 3)])
    with pytest.raises(ValueError, match="unknown object types"):
        stage(objects=(("unicorn", (3, 3)),))
    with pytest.raises(ValueError, match="1 x 1"):
        stage(obstacle_type="bed")
