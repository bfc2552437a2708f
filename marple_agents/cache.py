"""A policy's answers kept by input, so that rollouts ask the network only for inputs it has not seen.

Rollouts from one state share their states until their sampled actions part
them, and the rollouts of the next evidence point (and of the other trials in
the same house, and, for inverse planning, of the other mission hypotheses)
walk through many of the same states again. So do other runs with the same
agent models: the audio variant rolls out the vision-only policies from the
same states as the vision variant (the sound only reweighs the first action),
``all`` the language-conditioned ones as ``language`` does, and ``bip`` and the
MCTS row ask the same policies again. :func:`policy_cache` therefore keeps one
cache per set of weights (their digest), device and precision for the whole
process: every run and trial scored in it shares it.

The answers are the network's own (action distributions kept as float64, the
decoders' as the float32 they are). One caveat, as for any batched inference: on
a CPU the last bits of a float32 forward pass may depend on how many rows the
batch held (the BLAS picks its kernels by size), so an answer kept from one
batch may differ from another batch's by about 1e-7. A rollout's draw changes
only when its uniform number falls that close to a step of the cumulative
distribution, so cached answers are the uncached ones up to such a rare draw.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from marple_agents.inputs import SUBGOAL_FIELDS, input_rows, row_keys

KNOWN_BYTES = 512 * 2**20
"""How much memory the policy caches of one process may hold (about 2.8 million action distributions); when full,
they start afresh."""
ENTRY_BYTES = 90
"""What one kept answer costs besides its values: its 16-byte key and its place in the index."""

_LOCK = threading.RLock()
"""Guards every cache of the process: threads scoring trials side by side (the lockstep executor) share them.
Never held while a policy is asked (its calls from several threads are gathered into one forward pass)."""


class AnswerTable:
    """Rows of answers (each of one width and dtype) by 16-byte input key, in one growing array."""

    def __init__(self, dtype: type) -> None:
        self.index: dict[bytes, int] = {}
        self.values = np.empty((0, 0), dtype=dtype)

    @property
    def nbytes(self) -> int:
        """What the kept rows cost: their values and their keys."""
        return len(self.index) * (self.values.itemsize * self.values.shape[1] + ENTRY_BYTES)

    def lookup(self, names: list[bytes]) -> tuple[list[int], np.ndarray]:
        """The positions in ``names`` of the keys not kept, and the kept answers of the others (in their order)."""
        index = self.index
        places = [index.get(name, -1) for name in names]
        missing = [k for k, place in enumerate(places) if place < 0]
        found = self.values[[place for place in places if place >= 0]]
        return missing, found

    def add(self, names: list[bytes], values: np.ndarray) -> None:
        """Keep ``values[k]`` as the answer for ``names[k]`` (a key kept already keeps its answer)."""
        fresh = [k for k, name in enumerate(names) if name not in self.index]
        if not fresh:
            return
        if self.values.shape[1] != values.shape[1]:  # the first answers set the width
            self.values = np.empty((0, values.shape[1]), dtype=self.values.dtype)
        start, end = len(self.index), len(self.index) + len(fresh)
        if end > len(self.values):
            grown = np.empty((max(end, 2 * len(self.values), 256), values.shape[1]), dtype=self.values.dtype)
            grown[:start] = self.values[:start]
            self.values = grown
        self.values[start:end] = values[fresh]
        self.index.update(zip((names[k] for k in fresh), range(start, end)))

    def clear(self) -> None:
        self.index = {}
        self.values = self.values[:0]


class PolicyCache:
    """``policy.action_probs`` asked once per distinct (vision, subgoal) input, and the language policy's
    ``subgoal_probs`` once per distinct vision grid, the answers kept.

    ``rows_seen`` counts the action rows asked of the cache, ``rows_asked`` those
    it passed on to the policy; ``decoder_rows_seen`` and ``decoder_rows_asked``
    the same for the decoders. ``capacity``: the bytes it may keep before it starts
    afresh (the caches :func:`policy_cache` shares keep to one budget for the process).
    """

    def __init__(self, policy: Any, capacity: int = KNOWN_BYTES) -> None:
        self.policy = policy
        self.capacity = capacity
        self.actions = AnswerTable(np.float64)
        self.decoded = AnswerTable(np.float32)
        self.widths: list[int] = []  # the decoders' fields' widths, in SUBGOAL_FIELDS order
        self.rows_seen = self.rows_asked = 0
        self.decoder_rows_seen = self.decoder_rows_asked = 0

    @property
    def conditioning(self) -> str:
        """The policy's conditioning: ``"vision"`` or ``"language"``."""
        return getattr(self.policy, "conditioning", "vision")

    @property
    def nbytes(self) -> int:
        return self.actions.nbytes + self.decoded.nbytes

    def clear(self) -> None:
        with _LOCK:
            self.actions.clear()
            self.decoded.clear()

    def action_probs(self, vision: np.ndarray, subgoal: np.ndarray | None = None) -> np.ndarray:
        """(B, 10) float64: the policy's distributions for a batch of inputs (``subgoal`` for language policies)."""

        def ask(rows: np.ndarray) -> np.ndarray:
            self.rows_asked += len(rows)
            return np.asarray(
                self.policy.action_probs(vision[rows], None if subgoal is None else subgoal[rows]), dtype=np.float64
            )

        self.rows_seen += len(vision)
        return self._answers(self.actions, input_rows(vision, subgoal), ask)

    def subgoal_probs(self, vision: np.ndarray) -> dict[str, np.ndarray] | None:
        """The policy's decoders, ``policy.subgoal_probs(vision)``; None for a vision-only policy."""
        if self.conditioning != "language":
            return None

        def ask(rows: np.ndarray) -> np.ndarray:
            self.decoder_rows_asked += len(rows)
            heads = self.policy.subgoal_probs(vision[rows])
            self.widths = [heads[f].shape[1] for f in SUBGOAL_FIELDS]
            return np.concatenate([np.asarray(heads[f], dtype=np.float32) for f in SUBGOAL_FIELDS], axis=1)

        self.decoder_rows_seen += len(vision)
        joined = self._answers(self.decoded, input_rows(vision), ask)
        return dict(zip(SUBGOAL_FIELDS, np.split(joined, np.cumsum(self.widths)[:-1], axis=1)))

    def _answers(self, table: AnswerTable, rows: np.ndarray, ask) -> np.ndarray:
        """Each row's answer: kept ones from ``table``, the others from ``ask(indices of distinct new rows)``."""
        unique, first, inverse = np.unique(row_keys(rows), return_index=True, return_inverse=True)
        names = unique.tolist()
        with _LOCK:
            missing, found = table.lookup(names)
        if not missing:
            return found[inverse.ravel()]
        new = ask(first[missing])
        answers = np.empty((len(names), new.shape[1]), dtype=new.dtype)
        known = np.ones(len(names), dtype=bool)
        known[missing] = False
        answers[~known] = new
        if len(found):
            answers[known] = found
        with _LOCK:
            self.make_room(len(missing) * (new.shape[1] * new.itemsize + ENTRY_BYTES))
            table.add([names[k] for k in missing], new)
        return answers[inverse.ravel()]

    def make_room(self, nbytes: int) -> None:
        """Before ``nbytes`` more are kept: start afresh if they would not fit."""
        if self.nbytes + nbytes > self.capacity:
            self.clear()


class SharedCache(PolicyCache):
    """A cache that :func:`policy_cache` shares: it keeps to the process's budget with the others."""

    def make_room(self, nbytes: int) -> None:
        if sum(cache.nbytes for cache in _SHARED.values()) + nbytes > self.capacity:
            clear_policy_caches()


_SHARED: dict[tuple[str, str, str], SharedCache] = {}


def policy_cache(policy: Any) -> PolicyCache:
    """The one cache of ``policy``'s answers in this process, shared by every run and trial scored in it.

    A policy that names its weights (``policy.digest``, as those loaded by
    :func:`~marple_agents.policy.shared_policy` do) gets the cache of its
    weights, device and precision, whichever object asked before; any other
    policy a cache of its own. A :class:`PolicyCache` is returned as it is.
    """
    if isinstance(policy, PolicyCache):
        return policy
    digest = getattr(policy, "digest", None)
    if digest is None:
        return PolicyCache(policy)
    key = (str(digest), str(getattr(policy, "device", "")), str(getattr(policy, "precision", "")))
    with _LOCK:
        cache = _SHARED.get(key)
        if cache is None:
            cache = _SHARED[key] = SharedCache(policy)
        cache.policy = policy  # the same weights loaded again answer alike; the last copy loaded is the one kept
        return cache


def clear_policy_caches() -> None:
    """Forget every answer the shared policy caches of this process keep."""
    with _LOCK:
        for cache in _SHARED.values():
            cache.clear()
