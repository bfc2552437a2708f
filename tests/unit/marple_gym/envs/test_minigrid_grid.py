"""A MARPLE house in MiniGrid's vocabulary (``env.grid``, ``env.gen_obs_grid``), which MiniGrid's wrappers read.

The snack house of ``tests/scripted.py`` is checked cell by cell; the partial view is checked against MiniGrid's
own ``gen_obs_grid`` run on ``env.grid`` and against the env's own egocentric view.
"""

from __future__ import annotations

import math
import pickle
from functools import partial
from types import SimpleNamespace

import gymnasium as gym
import minigrid.wrappers
import numpy as np
import pytest
from minigrid.core.constants import COLOR_TO_IDX, OBJECT_TO_IDX
from minigrid.core.grid import Grid
from minigrid.core.world_object import Ball, Goal
from minigrid.minigrid_env import MiniGridEnv
from scripted import SNACK_HOUSE, SNACK_SCRIPT

from marple_gym.envs.minigrid_grid import category_colour, encode_cells
from marple_gym.envs.registration import HOUSEHOLD_ID
from marple_gym.missions.feasibility import target_cells
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS, DOOR, WALL
from marple_gym.world.state import CH_FUR

WRAPPERS = {
    "FullyObsWrapper": minigrid.wrappers.FullyObsWrapper,
    "SymbolicObsWrapper": minigrid.wrappers.SymbolicObsWrapper,
    "DirectionObsWrapper": minigrid.wrappers.DirectionObsWrapper,
    "ViewSizeWrapper": partial(minigrid.wrappers.ViewSizeWrapper, agent_view_size=5),
    "OneHotPartialObsWrapper": lambda env: minigrid.wrappers.OneHotPartialObsWrapper(
        minigrid.wrappers.ViewSizeWrapper(env, agent_view_size=7)
    ),
}
"""The five wrappers that read MiniGrid's grid, made as docs/rl.md says."""


def snack_env(**kwargs) -> gym.Env:
    """The scripted snack house: Kitchen (x 1-5) with a closed fridge (x 1-2, y 1-3) holding a sandwich at
    (2, 3), an open door at (6, 3), Bedroom (x 7-11) with a table (x 9-11, y 2-3); the agent at (3, 3) facing
    west, the fridge ahead."""
    env = gym.make(HOUSEHOLD_ID, config=SNACK_HOUSE, mission="get_snack", **kwargs)
    env.reset(seed=0)
    return env


def cell(kind: str, colour: str, state: int = 0) -> list[int]:
    return [OBJECT_TO_IDX[kind], COLOR_TO_IDX[colour], state]


def test_the_snack_house_in_minigrid_codes():
    env = snack_env()
    codes = encode_cells(env.unwrapped.world.state.grid)  # [y, x]
    walls = np.zeros((7, 13), dtype=bool)
    walls[[0, -1]], walls[:, [0, -1, 6]] = True, True
    walls[3, 6] = False
    assert (codes[walls] == cell("wall", "grey")).all()
    assert codes[3, 6].tolist() == cell("door", "grey", 0)  # open
    assert (codes[1:4, 1:3] == cell("box", "red")).all()  # the Kitchen's fridge, the sandwich shut in
    assert (codes[2:4, 9:12] == cell("box", "green")).all()  # the Bedroom's table
    kitchen_floor = np.zeros((7, 13), dtype=bool)
    kitchen_floor[1:6, 1:6], kitchen_floor[1:4, 1:3] = True, False
    assert (codes[kitchen_floor] == cell("floor", "red")).all()  # the agent's cell (3, 3) too
    assert (codes[4:6, 7:12] == cell("floor", "green")).all()

    env.step(int(Action.open))
    assert encode_cells(env.unwrapped.world.state.grid)[3, 2].tolist() == cell("ball", "green")  # food, now seen
    env.step(int(Action.pickup))
    held = encode_cells(env.unwrapped.world.state.grid)
    assert held[3, 2].tolist() == cell("box", "red") and held[3, 3].tolist() == cell("floor", "red")


def test_the_grid_holds_what_minigrids_own_decode_makes():
    base = gym.make("Marple-DoLaundry-v0").unwrapped
    base.reset(seed=0)
    grid = base.grid
    decoded, seen = Grid.decode(grid.encode())
    assert seen.all() and len({id(obj) for obj in grid.grid}) == grid.width * grid.height  # a new object a cell
    assert all(type(a) is type(b) and vars(a) == vars(b) for a, b in zip(grid.grid, decoded.grid))


def test_the_grid_marks_the_current_subgoals_targets_as_goals():
    env = snack_env()
    base = env.unwrapped
    for action in SNACK_SCRIPT:
        grid = base.grid
        goals = {(x, y) for x in range(grid.width) for y in range(grid.height) if isinstance(grid.get(x, y), Goal)}
        assert goals == set(target_cells(base.world, 0, base.progress.current))
        assert grid.get(*base.agent_pos).type in ("floor", "door")  # what the agent stands on, not what it holds
        *_, terminated, _, _ = env.step(int(action))
    assert terminated and OBJECT_TO_IDX["goal"] not in base.grid.encode()[..., 0]


def held_ball(base) -> Ball | None:
    """MiniGrid's ``carrying``: the object held longest, a ball in its category's colour."""
    held = int(base.world.state.carrying[0, 0])
    if held < 0:
        return None
    return Ball(category_colour(ASSETS.objects[base.world.house.obj_type_list[held] - 1].category))


def minigrids_own_view(base, size: int):
    """MiniGrid's ``gen_obs_grid`` itself (slice, rotate, process_vis), run on the env's ``grid``."""
    env = SimpleNamespace(
        grid=base.grid,
        agent_pos=base.agent_pos,
        agent_dir=base.agent_dir,
        agent_view_size=size,
        see_through_walls=base.see_through_walls,
        carrying=held_ball(base),
    )
    env.get_view_exts = partial(MiniGridEnv.get_view_exts, env)
    return MiniGridEnv.gen_obs_grid(env, size)


@pytest.mark.parametrize("see_through_walls", [False, True])
def test_gen_obs_grid_is_minigrids_own_view_of_the_grid(see_through_walls):
    snack = snack_env(see_through_walls=see_through_walls)
    house = gym.make("Marple-GetSnack-v0", see_through_walls=see_through_walls)
    house.reset(seed=1)
    house.action_space.seed(1)
    steps = [(snack, int(a)) for a in SNACK_SCRIPT] + [(house, int(house.action_space.sample())) for _ in range(30)]
    for env, action in steps:
        base = env.unwrapped
        for size in (3, 7):
            ours, ours_seen = base.gen_obs_grid(size)
            theirs, theirs_seen = minigrids_own_view(base, size)
            assert (ours.encode(ours_seen) == theirs.encode(theirs_seen)).all()
            assert (ours_seen == theirs_seen).all()
        env.step(action)


def test_the_view_size_view_has_the_envs_own_walls_doors_and_unseen_cells():
    for env_id in ("Marple-DoLaundry-v0", "Marple-Open-TwoRooms-v0"):
        own = gym.make(env_id, view_size=5)
        minigrids = minigrid.wrappers.ViewSizeWrapper(gym.make(env_id), agent_view_size=5)
        own.action_space.seed(0)
        pairs = [(own.reset(seed=2)[0], minigrids.reset(seed=2)[0])]
        for _ in range(25):
            action = int(own.action_space.sample())
            pairs.append((own.step(action)[0], minigrids.step(action)[0]))
        around = np.ones((5, 5), dtype=bool)
        around[4, 2] = False  # the agent's cell: MiniGrid shows what it carries there, not a doorway
        for mine, theirs in pairs:
            kinds, fur = theirs["image"][..., 0].T, mine["image"][..., CH_FUR]  # MiniGrid's [x, y] to [row, column]
            assert ((kinds == OBJECT_TO_IDX["wall"]) == (fur == WALL))[around].all()
            assert ((kinds == OBJECT_TO_IDX["door"]) == (fur == DOOR))[around].all()
            assert ((kinds == OBJECT_TO_IDX["unseen"]) == ~mine["image"].any(axis=-1)).all()


def test_the_partial_view_shows_what_the_agent_holds_on_its_cell():
    env = snack_env(view_size=5)
    for action in SNACK_SCRIPT[:2]:  # open the fridge, take the sandwich
        env.step(int(action))
    grid, seen = env.unwrapped.gen_obs_grid()
    assert grid.get(2, 4).encode() == tuple(cell("ball", "green")) and seen[2, 4]
    assert OBJECT_TO_IDX["ball"] not in env.unwrapped.grid.encode()[..., 0]  # held: out of the grid


def test_direction_points_at_the_first_target_fixed_at_reset():
    env = minigrid.wrappers.DirectionObsWrapper(
        gym.make(HOUSEHOLD_ID, config=SNACK_HOUSE, mission="get_snack"), type="angle_atan2"
    )
    obs, _ = env.reset(seed=0)
    assert env.goal_position == (1, 1)  # the fridge's top-left cell, first row by row
    assert obs["goal_direction"] == pytest.approx(math.atan2(1 - 3, 1 - 3))
    for action in SNACK_SCRIPT[:-1]:  # the subgoals move on to the table; MiniGrid's goal does not
        obs, *_ = env.step(int(action))
    assert env.goal_position == (1, 1) and env.unwrapped.agent_pos == (8, 3)
    assert obs["goal_direction"] == pytest.approx(math.atan2(1 - 3, 1 - 8))


def test_no_death_changes_nothing():
    bare, guarded = snack_env(), minigrid.wrappers.NoDeath(snack_env(), no_death_types=("lava",))
    for action in SNACK_SCRIPT:
        _, reward, terminated, truncated, _ = bare.step(int(action))
        assert guarded.step(int(action))[1:4] == (reward, terminated, truncated)
    assert terminated


def run(env: gym.Env, seed: int, steps: int = 12) -> list:
    env.action_space.seed(seed)
    observations = [env.reset(seed=seed)[0]]
    observations += [env.step(int(env.action_space.sample()))[0] for _ in range(steps)]
    return observations


@pytest.mark.parametrize("name", WRAPPERS)
def test_a_wrapper_is_seeded_pickles_and_stays_in_its_space(name):
    make = partial(gym.make, "Marple-PickUp-TwoRooms-v0")
    first, second = run(WRAPPERS[name](make()), seed=5), run(WRAPPERS[name](make()), seed=5)
    env = WRAPPERS[name](make())
    for a, b in zip(first, second):
        assert env.observation_space.contains(a)
        assert all(np.array_equal(a[key], b[key]) for key in a)
    env.reset(seed=5)
    env.step(2)
    copy = pickle.loads(pickle.dumps(env))
    for action in (1, 2, 3, 0):
        ours, theirs = env.step(action)[0], copy.step(action)[0]
        assert all(np.array_equal(ours[key], theirs[key]) for key in ours)


def test_the_grid_and_view_say_what_they_need():
    env = gym.make("Marple-GetSnack-v0")
    with pytest.raises(RuntimeError, match=r"reset\(\) before grid"):
        _ = env.unwrapped.grid
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"agent_view_size.*view_size=7"):
        env.unwrapped.gen_obs_grid()
    grid, seen = env.unwrapped.gen_obs_grid(5)
    assert (grid.width, grid.height) == (5, 5) and seen.shape == (5, 5)
