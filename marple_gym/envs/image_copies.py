"""The vector env's ``image`` copies: each the caller's own, without copying every cell every step.

With ``copy=True`` a vector env hands the caller N x H x W x 8 bytes each step (13 MB at N = 4096 in the
default house), a copy the caller may keep; copying all of it costs as much as the rest of the step, yet
from one step to the next only a few cells of each episode change. :class:`ImageCopies` keeps a few
buffers. One that the caller has let go of (nothing but its buffer refers to it any more: CPython's
reference count says so) is brought up to date by copying only the cells that changed since it was last
written; one that the caller still holds, or any view of it, is never written again; and while none is
free a new one is made. So every image is the caller's own, and in a loop that lets each observation go
once it has the next (as RL code does), a step copies a few cells per episode instead of all of them.

Which cells changed follows from what the grid shows (:mod:`marple_gym.world.state`): a cell shows the
furniture on it with that furniture's state, the object lying on it with that object's state, and the
agent standing on it with its direction and the object it holds longest. So a cell changes only if it is,
or was, an agent's cell, a cell of a piece of furniture whose state changed, or a cell that an object
whose place or state changed lay on or lies on now. A buffer keeps the small state arrays it was written
from, and the cells are read off their differences with the batch's.
"""

from __future__ import annotations

import sys
from collections import deque
from types import SimpleNamespace

import numpy as np

from marple_gym.world.batched_state import BatchedState
from marple_gym.world.house_batch import HouseBatch

POOL = 3
"""Buffers kept: the caller holds the last step's image while the next is made, so two take turns; a third
gives room to a loop that keeps one observation more."""


class _Buffer:
    """One image and the state arrays it was written from (all but the grid: the cells follow from them)."""

    __slots__ = ("image", "agent_pos", "fur_state", "obj_pos", "obj_state")

    def __init__(self, batch: BatchedState) -> None:
        self.image = batch.grid.copy()
        self.agent_pos = batch.agent_pos.copy()
        self.fur_state = batch.fur_state.copy()
        self.obj_pos = batch.obj_pos.copy()
        self.obj_state = batch.obj_state.copy()

    def refresh(self, houses: HouseBatch, batch: BatchedState) -> None:
        """Copy the cells that changed since this buffer was written, and remember the state it now shows."""
        cells = self._changed_cells(houses, batch)
        _words(self.image)[cells] = _words(batch.grid)[cells]
        for name in ("agent_pos", "fur_state", "obj_pos", "obj_state"):
            np.copyto(getattr(self, name), getattr(batch, name))

    def _changed_cells(self, houses: HouseBatch, batch: BatchedState) -> np.ndarray:
        """Flat indices into the batch's (N * H * W) cells of every cell that may differ from this buffer's."""
        first = np.arange(len(batch), dtype=np.int64) * houses.num_cells
        width = houses.width

        def flat(rows: np.ndarray, pos: np.ndarray) -> np.ndarray:
            return first[rows] + pos[..., 1].astype(np.int64) * width + pos[..., 0]

        every = np.arange(len(batch))[:, None]
        parts = [flat(every, self.agent_pos).ravel(), flat(every, batch.agent_pos).ravel()]
        rows, fur = _where(self.fur_state != batch.fur_state)
        if rows.size:
            parts.append((first[rows, None] + houses.cells_of(rows, fur)).ravel())
        then, now = self.obj_pos, batch.obj_pos
        # x and y compared apart: numpy's any() over an axis of two is many times slower
        moved = (then[..., 0] != now[..., 0]) | (then[..., 1] != now[..., 1]) | (self.obj_state != batch.obj_state)
        rows, obj = _where(moved)
        for pos in (self.obj_pos[rows, obj], batch.obj_pos[rows, obj]):
            lying = pos[:, 0] >= 0  # a held object is shown on its holder's cell, an agent's cell
            parts.append(flat(rows[lying], pos[lying]))
        return np.concatenate(parts)


def _where(changed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (episode, instance) pairs where an (N, n) mask is True (np.nonzero, but one flat search is faster)."""
    return np.divmod(np.flatnonzero(changed), changed.shape[1])


def _words(grid: np.ndarray) -> np.ndarray:
    """A C-contiguous (..., H, W, 8) uint8 grid as one 8-byte word per cell, flat: copying cells is then a
    one-dimensional gather and scatter."""
    return grid.view(np.uint64).reshape(-1)


def _references(holder: _Buffer | SimpleNamespace) -> int:
    """How many references ``holder.image`` has: the holder's, this call's and everyone else's."""
    return sys.getrefcount(holder.image)


_UNSHARED = _references(SimpleNamespace(image=np.empty(0))) if hasattr(sys, "getrefcount") else -1
"""The count of an image that only its buffer refers to (measured: it differs between Python versions).
Without reference counts (not CPython) no buffer is ever taken for free, and every image is a new copy."""


class ImageCopies:
    """Copies of a batch's grid, each the caller's own, most of them made by copying only what changed."""

    def __init__(self) -> None:
        self._buffers: deque[_Buffer] = deque(maxlen=POOL)

    def forget(self) -> None:
        """Drop the buffers (a new batch or a new house: nothing they show carries over)."""
        self._buffers.clear()

    def copy(self, houses: HouseBatch, batch: BatchedState) -> np.ndarray:
        """The batch's grid as an array the caller owns (``houses``: the batch's house tables)."""
        for buffer in self._buffers:
            if _references(buffer) <= _UNSHARED:
                buffer.refresh(houses, batch)
                return buffer.image
        buffer = _Buffer(batch)
        self._buffers.append(buffer)  # the oldest, if the pool was full, is the caller's alone from now on
        return buffer.image
