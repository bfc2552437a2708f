"""The searching agent's image, cut by the percepts kept between steps and their cached masks, is always the full
state cut afresh by the rules of perception, over random episodes (both ways of perceiving)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import marple_gym  # noqa: F401  (registers the ids)
from marple_gym.beliefs.locations import locations_of
from marple_gym.beliefs.perception import VIEW_SIZE
from marple_gym.envs.search import SEARCH_ID
from marple_gym.evidence.egocentric import view_cells
from marple_gym.evidence.visibility import closed_containers
from marple_gym.world.house import DIR_VEC, House
from marple_gym.world.state import CH_OBJ, CH_OBJ_ID, WorldState


def seen_afresh(house: House, state: WorldState, mode: str) -> np.ndarray:
    """(H, W) bool: the cells the agent sees, worked out from the module docs of perception, nothing kept."""
    h, w = house.height, house.width
    seen = np.zeros((h, w), dtype=bool)
    x, y = state.agent_pos[0].tolist()
    if mode == "room":
        rooms = {house.room_of_cell(x, y)} - {-1}
        if not rooms:  # a doorway: both rooms
            rooms = {house.room_of_cell(x + dx, y + dy) for dx, dy in DIR_VEC} - {-1}
        for r in rooms:
            (left, top), (rw, rh) = house.rooms[r].top, house.rooms[r].size
            seen[max(top - 1, 0) : top + rh + 1, max(left - 1, 0) : left + rw + 1] = True
        return seen
    xs, ys, visible = view_cells(state, 0, VIEW_SIZE, False)
    seen[ys[visible], xs[visible]] = True
    dx, dy = DIR_VEC[int(state.agent_dir[0])]
    faced = locations_of(house).piece_at(x + dx, y + dy)
    if faced >= 0:  # the faced piece of furniture (one that holds objects), whole
        seen[house.fur_cells[faced]] = True
    return seen


def image_afresh(house: House, state: WorldState, mode: str) -> np.ndarray:
    """The perceived image cut by hand: unseen cells all zeros, closed containers without their objects."""
    image = state.grid.copy()
    for f in closed_containers(house, state):
        ys, xs = house.fur_cells[f]
        image[ys, xs, CH_OBJ : CH_OBJ_ID + 1] = 0
    image[~seen_afresh(house, state, mode)] = 0
    return image


@settings(max_examples=12)
@given(
    seed=st.integers(0, 2**16),
    mode=st.sampled_from(["room", "view"]),
    # open and close often, so that containers change what is seen
    actions=st.lists(st.sampled_from([0, 1, 2, 2, 2, 3, 4, 6, 6, 7, 7, 9]), min_size=40, max_size=120),
)
def test_the_perceived_image_always_equals_the_state_cut_afresh(seed, mode, actions):
    env = gym.make(SEARCH_ID, perception=mode).unwrapped
    obs, _ = env.reset(seed=seed)
    assert np.array_equal(obs["image"], image_afresh(env.house, env.episode.world, mode))
    for action in actions:
        obs, _, terminated, truncated, _ = env.step(action)
        assert np.array_equal(obs["image"], image_afresh(env.house, env.episode.world, mode))
        if terminated or truncated:
            break


def test_the_perceived_image_is_the_callers_own():
    env = gym.make(SEARCH_ID).unwrapped
    first, _ = env.reset(seed=1)
    kept = first["image"].copy()
    first["image"][...] = 255  # the caller's to change: the next observation does not see it
    obs, *_ = env.step(9)
    assert np.array_equal(obs["image"], kept) and obs["image"] is not first["image"]
