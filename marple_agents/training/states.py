"""From dataset samples to training tables: held-out houses, and distinct states with soft action targets.

Agents in a ``train-in`` split walk the same few houses hundreds of times, so
the same input recurs again and again (the paper-size laundry split of agent A
has about 27 samples per distinct (vision, subgoal) pair). Training on each
distinct input once per draw, with the empirical distribution of the actions
taken from it as a soft target, optimises the same cross-entropy as the raw
samples (inputs are drawn in proportion to their counts) at a fraction of the
cost, and validation on distinct inputs weighted by their counts gives exactly
the raw samples' accuracy.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from marple_gym.datasets import Samples
from marple_gym.world.actions import NUM_ACTIONS

log = logging.getLogger(__name__)


@dataclass
class StateTable:
    """Distinct inputs, how often each occurred, and the distribution of the actions taken from it."""

    vision: np.ndarray  # (U, H, W, 8) uint8
    subgoal: np.ndarray  # (U, 4) int64 (for vision-only tables: the subgoal of the first occurrence)
    targets: np.ndarray  # (U, 10) float32, rows sum to 1
    count: np.ndarray  # (U,) int64

    def __len__(self) -> int:
        return len(self.count)

    @property
    def samples(self) -> int:
        """How many raw samples the table stands for."""
        return int(self.count.sum())


def row_keys(rows: np.ndarray) -> np.ndarray:
    """A 128-bit hash of each row of a (N, K) uint8 array, as (N,) 16-byte keys.

    Two random odd multipliers per 8-byte word, summed modulo 2**64: far faster
    than sorting the rows themselves, and two distinct states collide with a
    probability near 2**-128.
    """
    pad = (-rows.shape[1]) % 8
    words = np.ascontiguousarray(np.pad(rows, ((0, 0), (0, pad))) if pad else rows).view(np.uint64)
    multipliers = np.random.default_rng(0).integers(1, 2**63, size=(words.shape[1], 2), dtype=np.uint64)
    hashed = np.ascontiguousarray(words @ (multipliers | np.uint64(1)))  # wraps modulo 2**64, as a hash should
    return hashed.view(np.dtype((np.void, 16))).ravel()


def distinct_states(samples: Samples, with_subgoal: bool) -> StateTable:
    """Group samples by input (vision, plus the subgoal when ``with_subgoal``) and count the actions of each."""
    n = len(samples)
    rows = samples.vision.reshape(n, -1)
    if with_subgoal:
        rows = np.concatenate([rows, samples.subgoal.astype(np.int8).view(np.uint8)], axis=1)
    _, first, inverse = np.unique(row_keys(rows), return_index=True, return_inverse=True)
    counts = np.zeros((len(first), NUM_ACTIONS), dtype=np.int64)
    np.add.at(counts, (inverse.ravel(), samples.action), 1)
    total = counts.sum(axis=1)
    return StateTable(
        vision=samples.vision[first],
        subgoal=samples.subgoal[first],
        targets=(counts / total[:, None]).astype(np.float32),
        count=total,
    )


def holdout_mask(samples: Samples, fraction: float, seed: int) -> np.ndarray:
    """Which samples to hold out for validation: whole houses, so validation measures generalisation.

    With a single house the split falls back to whole episodes (logged).
    """
    rng = np.random.default_rng(seed)
    houses = np.unique(samples.house)
    groups, keys = (houses, samples.house) if len(houses) > 1 else (np.unique(samples.episode), samples.episode)
    if len(houses) <= 1:
        log.warning("one house only: validating on held-out episodes instead of held-out houses")
    if len(groups) < 2:
        raise ValueError("need at least two houses or two episodes to hold some out for validation")
    n_val = min(len(groups) - 1, max(1, round(fraction * len(groups))))
    held = rng.choice(groups, size=n_val, replace=False)
    return np.isin(keys, held)
