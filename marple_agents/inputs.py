"""Policy inputs as hashable rows, so that the same (vision, subgoal) input is recognised wherever it recurs.

Training groups identical inputs into one row with a soft target; rollouts ask
the policy once per distinct input of a batch (rollouts from one state coincide
until their sampled actions part them).
"""

from __future__ import annotations

import functools

import numpy as np

SUBGOAL_FIELDS = ("action", "object", "furniture", "room")
"""The columns of a subgoal's codes, as datasets, policies and rollouts lay them out."""


def input_rows(vision: np.ndarray, subgoal: np.ndarray | None = None) -> np.ndarray:
    """(N, K) uint8 rows: each vision array flattened, followed by its subgoal codes when given."""
    rows = np.ascontiguousarray(vision).reshape(len(vision), -1)
    if subgoal is None:
        return rows
    return np.concatenate([rows, np.asarray(subgoal).astype(np.int8).view(np.uint8)], axis=1)


def row_keys(rows: np.ndarray) -> np.ndarray:
    """A 128-bit hash of each row of a (N, K) uint8 array, as (N,) 16-byte keys.

    Two random odd multipliers per 8-byte word, summed modulo 2**64: far faster
    than sorting the rows themselves, and two distinct states collide with a
    probability near 2**-128.
    """
    pad = (-rows.shape[1]) % 8
    words = np.ascontiguousarray(np.pad(rows, ((0, 0), (0, pad))) if pad else rows).view(np.uint64)
    hashed = np.ascontiguousarray(words @ _multipliers(words.shape[1]))  # wraps modulo 2**64, as a hash should
    return hashed.view(np.dtype((np.void, 16))).ravel()


@functools.cache
def _multipliers(words: int) -> np.ndarray:
    """(words, 2) fixed odd multipliers (rollouts hash a batch every step: draw them once per row width)."""
    return np.random.default_rng(0).integers(1, 2**63, size=(words, 2), dtype=np.uint64) | np.uint64(1)


def distinct_inputs(vision: np.ndarray, subgoal: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(first, inverse): the index of one occurrence of each distinct input, and each row's distinct input."""
    _, first, inverse = np.unique(row_keys(input_rows(vision, subgoal)), return_index=True, return_inverse=True)
    return first, inverse.ravel()
