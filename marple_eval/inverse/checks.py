"""The ceiling check: no method should beat the Bayes-optimal observer by more than the intervals."""

from __future__ import annotations

import numpy as np


def ceiling_violations(ceiling: np.ndarray, other: np.ndarray, z: float = 1.96) -> list[int]:
    """Evidence points at which ``other`` beats ``ceiling`` by more than ``z`` paired standard errors.

    Both are (trials, points) probabilities given to the culprit on the same
    trials in the same order. The paired difference removes the trials' common
    difficulty, so the test is as tight as the data allow; with one trial
    any difference counts.
    """
    ceiling, other = np.asarray(ceiling, dtype=float), np.asarray(other, dtype=float)
    if ceiling.shape != other.shape or ceiling.ndim != 2:
        raise ValueError(f"need two (trials, points) arrays of one shape, got {ceiling.shape} and {other.shape}")
    diff = other - ceiling
    n = len(diff)
    sem = diff.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(diff.shape[1])
    return np.flatnonzero(diff.mean(axis=0) > z * sem + 1e-9).tolist()
