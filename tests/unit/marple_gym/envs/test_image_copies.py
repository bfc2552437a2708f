"""The vector env's image copies: every image is the batch's grid at its step and the caller's own, whether the
caller keeps it or lets it go (then its buffer is reused, brought up to date cell by cell), over random episodes
with autoresets."""

from __future__ import annotations

import gc
import weakref

import gymnasium as gym
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import marple_gym  # noqa: F401  (registers the ids)
from marple_gym.envs.image_copies import NOTES, ImageCopies
from marple_gym.generation import generate_world
from marple_gym.world.batched_state import BatchedState
from marple_gym.world.house_batch import HouseBatch

N = 24


def vector(copy: bool) -> gym.vector.VectorEnv:
    # short episodes, so that autoresets bring whole rows back to the house's first state
    return gym.make_vec(
        "Marple-DoLaundry-v0", num_envs=N, vectorization_mode="vector_entry_point", copy=copy, max_steps=9
    )


@settings(max_examples=15)
@given(seed=st.integers(0, 2**16), keep=st.lists(st.booleans(), min_size=30, max_size=60))
def test_every_image_is_the_grid_of_its_step_whether_the_caller_keeps_it_or_not(seed, keep):
    copies, views = vector(copy=True), vector(copy=False)
    rng = np.random.default_rng(seed)
    obs, _ = copies.reset(seed=seed)
    views.reset(seed=seed)
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    for keep_it in keep:
        # drop, open and close often: furniture and objects change as well as the agents
        actions = rng.choice([0, 1, 2, 2, 3, 4, 5, 6, 7, 9], size=N)
        obs, *_ = copies.step(actions)
        grid, *_ = views.step(actions)
        assert np.array_equal(obs["image"], grid["image"])
        if keep_it:
            kept.append((obs["image"], obs["image"].copy()))
    assert all(np.array_equal(image, then) for image, then in kept)  # kept images never written again


def test_an_image_the_caller_let_go_is_reused_and_one_it_holds_is_not():
    world = generate_world(None, np.random.default_rng(0), ["do_laundry"])
    batch = BatchedState.repeat(world.state, 4)
    copies = ImageCopies()
    held = copies.copy(batch)
    dropped = weakref.ref(copies.copy(batch))
    gc.collect()
    batch.agent_dir[:] = (batch.agent_dir + 1) % 4  # any change the notes name: the reused image must show it
    batch.grid[..., 7] = np.where(batch.grid[..., 6] > 0, batch.agent_dir[:, 0, None, None] + 1, 0)
    copies.changed(rows=np.arange(len(batch)))
    again = copies.copy(batch)
    assert again is dropped() and again is not held
    assert np.array_equal(again, batch.grid) and not np.array_equal(held, batch.grid)


def test_an_image_older_than_the_notes_reach_is_copied_whole():
    world = generate_world(None, np.random.default_rng(1), ["do_laundry"])
    batch = BatchedState.repeat(world.state, 3)
    copies = ImageCopies()
    dropped = weakref.ref(copies.copy(batch))
    gc.collect()
    houses = HouseBatch.of(world.house)
    for _ in range(NOTES + 2):  # more steps than the notes remember, each naming only the first episode's cells
        batch.grid[1:, ..., 0] += 1
        copies.changed(cells=np.arange(houses.num_cells))
    again = copies.copy(batch)
    assert again is dropped() and np.array_equal(again, batch.grid)
