"""The vector env's ``image`` copies: each the caller's own, without copying every cell every step.

With ``copy=True`` a vector env hands the caller N x H x W x 8 bytes each step (13 MB at N = 4096 in the
default house), a copy the caller may keep; copying all of it costs as much as the rest of the step, yet
from one step to the next only a few cells of each episode change. :class:`ImageCopies` keeps a few
buffers. One that the caller has let go of (nothing but its buffer refers to it any more: CPython's
reference count says so) is brought up to date by copying only the cells that changed since it was last
written; one that the caller still holds, or any view of it, is never written again; and while none is
free a new one is made. So every image is the caller's own, and in a loop that lets each observation go
once it has the next (as RL code does), a step copies a few cells per episode instead of all of them.

Which cells changed, the env says after each step (:meth:`ImageCopies.changed`): the cells the step may
have written (:meth:`~marple_gym.world.batched_state.BatchOutcome.written_cells`) and the episodes it
started over. The copies keep the last few steps' notes; a buffer is brought up to date from the notes
made since it was written, and copied whole if it is older than they reach.
"""

from __future__ import annotations

import sys
from collections import deque
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from marple_gym.world.batched_state import BatchedState

POOL = 3
"""Buffers kept: the caller holds the last step's image while the next is made, so two take turns; a third
gives room to a loop that keeps one observation more."""
NOTES = 4
"""Steps whose changes are remembered: enough for every buffer of the pool that the caller let go of at once."""


class _Note(NamedTuple):
    """What one step changed: flat cells (into the batch's N * H * W) and whole episodes."""

    step: int
    cells: np.ndarray | None
    rows: np.ndarray | None


class _Buffer:
    """One image and the step it shows."""

    __slots__ = ("image", "step")

    def __init__(self, image: np.ndarray, step: int) -> None:
        self.image = image
        self.step = step


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
        self._notes: deque[_Note] = deque(maxlen=NOTES)
        self._step = 0

    def forget(self) -> None:
        """Drop the buffers and notes (a new batch or a new house: nothing they show carries over)."""
        self._buffers.clear()
        self._notes.clear()

    def changed(self, cells: np.ndarray | None = None, rows: np.ndarray | None = None) -> None:
        """Note one step of the batch: its grid changed at most at flat ``cells`` and in whole episodes ``rows``."""
        self._step += 1
        self._notes.append(_Note(self._step, cells, rows))

    def copy(self, batch: BatchedState) -> np.ndarray:
        """The batch's grid as an array the caller owns."""
        for buffer in self._buffers:
            if _references(buffer) <= _UNSHARED:
                self._refresh(buffer, batch)
                return buffer.image
        buffer = _Buffer(batch.grid.copy(), self._step)
        self._buffers.append(buffer)  # the oldest, if the pool was full, is the caller's alone from now on
        return buffer.image

    def _refresh(self, buffer: _Buffer, batch: BatchedState) -> None:
        """Bring ``buffer`` to the batch's grid: the cells noted since it was written, or all of them."""
        notes = [note for note in self._notes if note.step > buffer.step]
        if len(notes) < self._step - buffer.step:  # older than the notes reach
            np.copyto(buffer.image, batch.grid)
        else:
            cells = [note.cells for note in notes if note.cells is not None]
            if cells:
                flat = cells[0] if len(cells) == 1 else np.concatenate(cells)
                _words(buffer.image)[flat] = _words(batch.grid)[flat]
            for note in notes:
                if note.rows is not None and note.rows.size:
                    buffer.image[note.rows] = batch.grid[note.rows]
        buffer.step = self._step
