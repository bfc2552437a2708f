"""A policy's answers kept by input, so that a rollout batch asks the network only for inputs it has not seen.

Rollouts from one state share their states until their sampled actions part
them, and the rollouts of the next evidence point (and of the other trials in
the same house, and, for inverse planning, of the other mission hypotheses)
walk through many of the same states again. Simulation inference asks for
about 4.5 % of the rows it steps. The answers are the network's own (kept as
float64), so a cached run answers exactly as an uncached one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from marple_agents.inputs import input_rows, row_keys

KNOWN_INPUTS = 200_000
"""How many distinct inputs' action distributions a cache keeps (about 40 MB); it starts afresh when full."""


class PolicyCache:
    """``policy.action_probs`` asked once per distinct (vision, subgoal) input, the answers kept.

    ``rows_seen`` counts the rows asked of the cache, ``rows_asked`` those it
    passed on to the policy.
    """

    def __init__(self, policy: Any, capacity: int = KNOWN_INPUTS) -> None:
        self.policy = policy
        self.capacity = capacity
        self.known: dict[bytes, np.ndarray] = {}
        self.rows_seen = 0
        self.rows_asked = 0

    def action_probs(self, vision: np.ndarray, subgoal: np.ndarray | None = None) -> np.ndarray:
        """(B, 10) float64: the policy's distributions for a batch of inputs (``subgoal`` for language policies)."""
        keys = row_keys(input_rows(vision, subgoal))
        unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        names = unique.tolist()
        known = self.known
        new = [k for k, name in enumerate(names) if name not in known]
        if new and len(known) + len(new) > self.capacity:
            known.clear()  # full: start afresh (this batch's inputs are all asked again)
            new = list(range(len(names)))
        self.rows_seen += len(keys)
        if new:
            rows = first[new]
            probs = self.policy.action_probs(vision[rows], None if subgoal is None else subgoal[rows])
            self.rows_asked += len(rows)
            known.update(zip((names[k] for k in new), np.asarray(probs, dtype=np.float64)))
        return np.stack([known[name] for name in names])[inverse.ravel()]
