"""Cheap random draws equal numpy's own, draw for draw."""

from __future__ import annotations

import numpy as np

from marple_gym.world.sampling import weighted_index


def test_weighted_index_draws_what_generator_choice_draws():
    weights_rng = np.random.default_rng(123)
    for _ in range(500):
        n = int(weights_rng.integers(1, 12))
        weights = weights_rng.random(n) * (weights_rng.random(n) < 0.8)
        weights[int(weights_rng.integers(n))] += 0.01
        p = weights / weights.sum()
        for given in (p, p.tolist()):
            seed = int(weights_rng.integers(2**32))
            a, b = np.random.default_rng(seed), np.random.default_rng(seed)
            assert [int(a.choice(n, p=given)) for _ in range(5)] == [weighted_index(b, given) for _ in range(5)]
            assert a.random() == b.random()  # the same draws consumed


def test_a_choice_among_one_draws_nothing():
    """The planner skips ``rng.integers(1)`` (always 0) when a plan has one target: that must not change the
    numbers drawn after it, whatever the generator drew before (e.g. half of a 64-bit word kept for later)."""
    for seed in range(50):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        for _ in range(seed % 4):
            assert a.integers(3) == b.integers(3)
        assert a.integers(1) == 0
        assert a.integers(10**6) == b.integers(10**6) and a.random() == b.random()
