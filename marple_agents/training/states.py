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

from marple_agents.config import HOLDOUTS
from marple_agents.inputs import distinct_inputs
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


def distinct_states(samples: Samples, with_subgoal: bool) -> StateTable:
    """Group samples by input (vision, plus the subgoal when ``with_subgoal``) and count the actions of each."""
    first, inverse = distinct_inputs(samples.vision, samples.subgoal if with_subgoal else None)
    counts = np.zeros((len(first), NUM_ACTIONS), dtype=np.int64)
    np.add.at(counts, (inverse, samples.action), 1)
    total = counts.sum(axis=1)
    return StateTable(
        vision=samples.vision[first],
        subgoal=samples.subgoal[first],
        targets=(counts / total[:, None]).astype(np.float32),
        count=total,
    )


def holdout_mask(samples: Samples, fraction: float, seed: int, by: str = "houses") -> tuple[np.ndarray, str]:
    """Which samples to hold out for validation (whole houses, or whole episodes), and which of the two it was.

    ``by="houses"`` (the default) measures generalisation to houses the model
    never saw: the question for out-of-distribution agent models. ``by="episodes"``
    keeps every house in training and holds out episodes from each: the question
    for in-distribution agent models, which are rolled out in the very houses
    they were trained in (the paper's ``train-in`` split). With a single house,
    ``"houses"`` falls back to episodes (logged, and returned, so reports say what was really held out).
    """
    if by not in HOLDOUTS:
        raise ValueError(f"holdout must be one of {HOLDOUTS}, got {by!r}")
    rng = np.random.default_rng(seed)
    houses = np.unique(samples.house)
    if by == "houses" and len(houses) <= 1:
        log.warning("one house only: validating on held-out episodes instead of held-out houses")
        by = "episodes"
    keys = samples.house if by == "houses" else samples.episode
    groups = np.unique(keys)
    if len(groups) < 2:
        raise ValueError(f"need at least two {by} to hold some out for validation")
    n_val = min(len(groups) - 1, max(1, round(fraction * len(groups))))
    held = rng.choice(groups, size=n_val, replace=False)
    return np.isin(keys, held), by
