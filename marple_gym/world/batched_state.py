"""Many world states stacked along a leading episode axis, and what one action per episode did.

The data of the batched rules (:mod:`marple_gym.world.batch`), apart from the
rules themselves, so that mission progress, sound and search can read a batch
without importing the executor.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np

from marple_gym.world.actions import Action, Outcome
from marple_gym.world.house_batch import HouseBatch
from marple_gym.world.state import WorldState

_IDLE = int(Action.idle)
_WRITES_HERE = np.isin(np.arange(len(Action)), [Action.left, Action.right, Action.forward, Action.pickup, Action.drop])
"""Per action: whether it writes the agent's cell when it succeeds (its direction, the agent leaving, the object
it shows in hand)."""
_WRITES_FRONT = np.isin(np.arange(len(Action)), [Action.left, Action.right, Action.idle], invert=True)
"""Per action: whether it writes the faced cell when it succeeds (entered, an object taken, put down or changed)."""


@dataclass(eq=False)
class BatchedState:
    """``N`` world states of one house, each field stacked along a leading episode axis."""

    grid: np.ndarray  # (N, H, W, 8) uint8
    fur_state: np.ndarray  # (N, n_fur) uint8
    obj_pos: np.ndarray  # (N, n_obj, 2) int16
    obj_state: np.ndarray  # (N, n_obj) uint8
    agent_pos: np.ndarray  # (N, n_agents, 2) int16
    agent_dir: np.ndarray  # (N, n_agents) int8
    carrying: np.ndarray  # (N, n_agents, HANDS) int16

    @classmethod
    def repeat(cls, state: WorldState, n: int) -> BatchedState:
        """``n`` copies of one state."""
        if n < 1:
            raise ValueError(f"a batch needs at least one episode, got n={n}")
        return cls.stack([state], repeats=n)

    @classmethod
    def stack(cls, states: list[WorldState], repeats: int = 1) -> BatchedState:
        """Stack states of houses with equal shapes (grid size, furniture, objects and agents), each ``repeats``
        times in a row."""
        if repeats < 1:
            raise ValueError(f"repeats must be at least 1, got {repeats}")
        try:
            stacked = [np.stack([getattr(s, f.name) for s in states]) for f in fields(WorldState)]
        except ValueError as error:
            raise ValueError(f"cannot stack world states of different shapes: {error}") from None
        return cls(*(np.repeat(a, repeats, axis=0) if repeats > 1 else a for a in stacked))

    def __len__(self) -> int:
        return len(self.grid)

    def view(self, i: int) -> WorldState:
        """Episode ``i`` as a :class:`WorldState` whose arrays are views into this batch."""
        return WorldState(*(getattr(self, f.name)[i] for f in fields(self)))

    def copy(self) -> BatchedState:
        return BatchedState(*(getattr(self, f.name).copy() for f in fields(self)))

    def assign(self, rows: np.ndarray, state: WorldState) -> None:
        """Overwrite episodes ``rows`` with ``state`` (an autoreset)."""
        for f in fields(self):
            getattr(self, f.name)[rows] = getattr(state, f.name)


def state_at(table: np.ndarray, rows: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``table[rows, index]`` as int64, 0 where ``index`` is -1 (none) or the table has no columns."""
    columns = table.shape[1]
    if columns == 0:
        return np.zeros(len(rows), dtype=np.int64)
    # One gather from the flat table is cheaper than a two-index one; index -1 reads a neighbour, masked below.
    return np.where(index >= 0, table.reshape(-1)[rows * columns + index], 0).astype(np.int64)


class BatchOutcome(NamedTuple):
    """What one action per episode did: the fields of :class:`Outcome` as (N,) arrays."""

    action: np.ndarray
    success: np.ndarray
    fur: np.ndarray
    obj: np.ndarray
    value: np.ndarray
    x: np.ndarray
    y: np.ndarray

    def row(self, i: int) -> Outcome:
        """Episode ``i``'s outcome, as the scalar rules report it."""
        return Outcome(
            int(self.action[i]),
            bool(self.success[i]),
            int(self.fur[i]),
            int(self.obj[i]),
            int(self.value[i]),
            int(self.x[i]),
            int(self.y[i]),
        )

    def written_cells(self, houses: HouseBatch, before: np.ndarray) -> np.ndarray:
        """Flat indices into the batch's ``N * H * W`` cells (some repeated) of every cell that the step with this
        outcome may have changed; ``before`` is the acting agent's (N, 2) positions before the step.

        A failed action writes nothing. A successful one writes at most the agent's cell (turn, forward, pickup,
        drop), the faced cell (all but a turn and idle) and, where it changed a piece of furniture (toggle, open,
        close or clean, no object named), the cells of that piece: what
        :func:`marple_gym.world.batch.apply_actions` writes, which the tests check. Naming only the cells of
        successful actions (about a fifth of two per episode under random actions) makes the image copies'
        gather and scatter that much smaller.
        """
        width, size = np.int64(houses.width), np.int64(houses.num_cells)
        pieces = self.success & (self.fur >= 0) & (self.obj < 0) & (self.action != _IDLE)
        here = np.flatnonzero(self.success & _WRITES_HERE[self.action])
        front = np.flatnonzero(self.success & _WRITES_FRONT[self.action] & ~pieces)  # a piece's cells include it
        cells = [
            here * size + before[here, 1] * width + before[here, 0],
            front * size + self.y[front] * width + self.x[front],
        ]
        changed = np.flatnonzero(pieces)
        if changed.size:
            cells.append((changed[:, None] * size + houses.cells_of(changed, self.fur[changed])).reshape(-1))
        return np.concatenate(cells)
