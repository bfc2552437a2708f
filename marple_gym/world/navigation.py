"""Where agents can walk: walkable cells and reachability on bitboards.

A set of cells is a Python ``int`` with bit ``y * width + x`` set for each cell.
Growing a set by one step is four shifts and an ``&``, so a flood fill over a
20 x 20 house costs a few dozen big-integer operations: fast enough to check
connectivity while placing every piece of furniture, and to run breadth-first
searches in the planner.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from marple_gym.world.assets import DOOR, OPEN_BIT
from marple_gym.world.state import CH_AGENT, CH_FUR, CH_FUR_STATE, CH_OBJ, WorldState


class Bitboard:
    """Cell-set arithmetic for one grid size."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.full = (1 << (width * height)) - 1
        first_col = sum(1 << (y * width) for y in range(height))
        self._not_first_col = self.full & ~first_col
        self._not_last_col = self.full & ~(first_col << (width - 1))
        self._blocks: dict[tuple[int, int], int] = {}

    def from_mask(self, mask: np.ndarray) -> int:
        """Bits of a boolean (H, W) mask."""
        return int.from_bytes(np.packbits(mask.ravel(), bitorder="little").tobytes(), "little")

    def to_mask(self, bits: int) -> np.ndarray:
        n = self.width * self.height
        raw = np.frombuffer(bits.to_bytes((n + 7) // 8, "little"), dtype=np.uint8)
        return np.unpackbits(raw, bitorder="little")[:n].reshape(self.height, self.width).astype(bool)

    def bit(self, x: int, y: int) -> int:
        return 1 << (y * self.width + x)

    def block(self, w: int, h: int) -> int:
        """Bits of the ``w`` x ``h`` block of cells at (0, 0) (shift it by ``y * width + x`` to place it)."""
        bits = self._blocks.get((w, h))
        if bits is None:  # a house has a handful of furniture sizes: each block is made once
            bits = self._blocks[w, h] = self.rect(0, 0, w, h)
        return bits

    def rect(self, x: int, y: int, w: int, h: int) -> int:
        """Bits of the ``w`` x ``h`` block of cells at (x, y), for any size (:meth:`block` keeps the few piece
        sizes; rooms come in too many): one bit per row, times the row."""
        rows = ((1 << (h * self.width)) - 1) // ((1 << self.width) - 1)
        return rows * ((1 << w) - 1) << (y * self.width + x)

    def cells(self, bits: int) -> list[tuple[int, int]]:
        """The (x, y) cells of a set, in row-major order."""
        out = []
        w = self.width
        while bits:
            low = bits & -bits
            i = low.bit_length() - 1
            out.append((i % w, i // w))
            bits ^= low
        return out

    def nth(self, bits: int, k: int) -> tuple[int, int]:
        """The (x, y) of the ``k``-th cell (from 0) of a set in row-major order, found by halving the set."""
        index, size = 0, bits.bit_length()
        while size > 1:
            half = size // 2
            low = bits & ((1 << half) - 1)
            below = low.bit_count()
            if k < below:
                bits, size = low, half
            else:
                bits, k, index, size = bits >> half, k - below, index + half, size - half
        return index % self.width, index // self.width

    def neighbours(self, bits: int) -> int:
        """Cells 4-adjacent to any cell of ``bits`` (may include ``bits`` itself)."""
        w = self.width
        return (
            ((bits << 1) & self._not_first_col) | ((bits >> 1) & self._not_last_col) | (bits << w) | (bits >> w)
        ) & self.full

    def flood(self, seed: int, passable: int) -> int:
        """All cells connected to ``seed`` through ``passable`` cells (seed included)."""
        reach = seed
        while True:
            grown = reach | (self.neighbours(reach) & passable)
            if grown == reach:
                return reach
            reach = grown

    def layers(self, seed: int, passable: int) -> list[int]:
        """Breadth-first layers: ``layers[k]`` are the cells at distance ``k`` from ``seed``."""
        out = [seed]
        seen = seed
        frontier = seed
        while True:
            frontier = self.neighbours(frontier) & passable & ~seen
            if not frontier:
                return out
            out.append(frontier)
            seen |= frontier


@lru_cache(maxsize=32)
def bitboard(width: int, height: int) -> Bitboard:
    """The shared :class:`Bitboard` for a grid size."""
    return Bitboard(width, height)


def walkable_mask(state: WorldState) -> np.ndarray:
    """(H, W) bool: floor or open door, with no object and no agent on it."""
    return walkable_grid(state.grid)


def walkable_grid(grid: np.ndarray) -> np.ndarray:
    """:func:`walkable_mask` of a vision array (a recorded step, or one an observer pieced together)."""
    fur = grid[..., CH_FUR]
    open_door = (fur == DOOR) & ((grid[..., CH_FUR_STATE] - 1) & OPEN_BIT > 0)
    return ((fur == 0) | open_door) & (grid[..., CH_OBJ] == 0) & (grid[..., CH_AGENT] == 0)


def reachable_cells(
    state: WorldState, agent: int, through_closed_doors: bool = True, through_agents: bool = False
) -> int:
    """Bits of every cell agent ``agent`` can walk to (its own cell included).

    Closed doors count as passable by default: an agent can open them on its way.
    With ``through_agents``, so do the cells other agents stand on (they move on).
    """
    board = bitboard(state.grid.shape[1], state.grid.shape[0])
    x, y = state.agent_pos[agent].tolist()
    mask = walkable_mask(state)
    if through_closed_doors:
        mask |= state.grid[..., CH_FUR] == DOOR
    if through_agents:
        mask |= state.grid[..., CH_AGENT] > 0
    return board.flood(board.bit(x, y), board.from_mask(mask))
