"""Random actions in random houses: nothing raises, and the world stays consistent."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import assert_grid_consistent, assert_no_object_in_walls, assert_objects_conserved

from marple_gym.generation import generate_world
from marple_gym.missions import MISSIONS
from marple_gym.world.rules import apply_action


def fuzz(total_steps: int, seed: int, check_every: int) -> None:
    rng = np.random.default_rng(seed)
    names = sorted(MISSIONS)
    steps = 0
    while steps < total_steps:
        world = generate_world(None, rng, [names[int(rng.integers(len(names)))]])
        # Bias towards interactions so objects really move around.
        actions = rng.choice(10, size=500, p=[0.1, 0.1, 0.2] + [0.6 / 7] * 7)
        for k, action in enumerate(actions.tolist()):
            apply_action(world.house, world.state, 0, int(action))
            if k % check_every == 0:
                assert_objects_conserved(world)
                assert_grid_consistent(world)
        assert_no_object_in_walls(world)
        assert_grid_consistent(world)
        steps += len(actions)


def test_random_action_fuzz_short():
    fuzz(20_000, seed=0, check_every=7)


@pytest.mark.slow
def test_random_action_fuzz_200k_steps():
    fuzz(200_000, seed=1, check_every=25)


@settings(max_examples=200)
@given(seed=st.integers(0, 2**32 - 1), actions=st.lists(st.integers(0, 9), min_size=1, max_size=300))
def test_any_action_sequence_conserves_objects_and_keeps_the_grid_exact(seed, actions):
    world = generate_world(None, np.random.default_rng(seed), ["do_laundry"])
    for action in actions:
        apply_action(world.house, world.state, 0, int(action))
        assert_objects_conserved(world)
    assert_grid_consistent(world)
    assert_no_object_in_walls(world)
