"""The egocentric partial view: the vision array as the agent sees it, MiniGrid's way.

A ``view_size`` x ``view_size`` window (odd size) cut from the (height, width, 8)
vision array in the agent's frame. As in MiniGrid, the agent stands in the
middle of the bottom row and faces up: row ``view_size - 1 - k`` is ``k`` cells
ahead, column ``view_size // 2 + k`` is ``k`` cells to the agent's right.
Unlike MiniGrid's ``(x, y)``-indexed image, the view is indexed ``[row, column]``
like every other array here.

Cells outside the house read as walls (furniture code 1), as MiniGrid pads its
grid. With occlusion on (``see_through_walls=False``), walls and closed doors
hide what lies behind them; hidden cells are all zeros ("unseen": every real
cell has a room type or a furniture code). Furniture does not block sight.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from marple_gym.world.assets import DOOR, OPEN_BIT, WALL
from marple_gym.world.state import CH_FUR, CH_FUR_STATE, NUM_CHANNELS, WorldState

DIR_VEC = np.array([(1, 0), (0, 1), (-1, 0), (0, -1)], dtype=np.int64)
"""(dx, dy) of directions 0 east, 1 south, 2 west, 3 north (MiniGrid's order)."""


def check_view_size(view_size: int) -> int:
    """``view_size`` as an int, or a ValueError for a size that is not odd and >= 3."""
    if isinstance(view_size, bool) or not isinstance(view_size, (int, np.integer)):
        raise ValueError(f"view_size must be an odd integer >= 3, got {view_size!r}")
    if view_size < 3 or view_size % 2 == 0:
        raise ValueError(f"view_size must be an odd integer >= 3, got {view_size}")
    return int(view_size)


@lru_cache(maxsize=64)
def _offsets(view_size: int, direction: int) -> tuple[np.ndarray, np.ndarray]:
    """World (dx, dy) of every view cell relative to the agent, each (view_size, view_size)."""
    ahead = (view_size - 1 - np.arange(view_size))[:, None]  # rows: cells ahead
    right = (np.arange(view_size) - view_size // 2)[None, :]  # columns: cells to the right
    fx, fy = DIR_VEC[direction]
    rx, ry = -fy, fx  # the agent's right hand, with y pointing down
    dx = ahead * fx + right * rx
    dy = ahead * fy + right * ry
    return dx, dy


def view_cells(
    state: WorldState, agent: int = 0, view_size: int = 7, see_through_walls: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(xs, ys, seen), each (view_size, view_size): the world cell under every view cell, and whether the
    agent sees it (inside the house and, with occlusion, not hidden)."""
    height, width = state.grid.shape[:2]
    x, y = state.agent_pos[agent].tolist()
    dx, dy = _offsets(view_size, int(state.agent_dir[agent]))
    xs, ys = x + dx, y + dy
    seen = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
    if not see_through_walls:
        seen &= visible_mask(egocentric_view(state, agent, view_size, see_through_walls=True))
    return xs, ys, seen


def egocentric_view(
    state: WorldState, agent: int = 0, view_size: int = 7, see_through_walls: bool = False
) -> np.ndarray:
    """The (view_size, view_size, 8) uint8 view of agent ``agent`` (a new array)."""
    grid = state.grid
    height, width = grid.shape[:2]
    x, y = state.agent_pos[agent].tolist()
    dx, dy = _offsets(view_size, int(state.agent_dir[agent]))
    xs, ys = x + dx, y + dy
    inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
    view = np.zeros((view_size, view_size, NUM_CHANNELS), dtype=np.uint8)
    view[inside] = grid[ys[inside], xs[inside]]
    view[~inside, CH_FUR] = WALL
    if not see_through_walls:
        view[~visible_mask(view)] = 0
    return view


def blocks_sight(view: np.ndarray) -> np.ndarray:
    """(rows, cols) bool: walls and closed doors, the cells that hide what is behind them."""
    fur = view[..., CH_FUR]
    closed_door = (fur == DOOR) & ((view[..., CH_FUR_STATE].astype(np.int64) - 1) & OPEN_BIT == 0)
    return (fur == WALL) | closed_door


def visible_mask(view: np.ndarray) -> np.ndarray:
    """Which cells of an egocentric view the agent can see.

    Sight spreads from the agent's cell along each row and to the row ahead, and
    stops at cells that block it (which are themselves seen), row by row away
    from the agent, the sweep MiniGrid uses.
    """
    size = view.shape[0]
    opaque = blocks_sight(view)
    seen = np.zeros((size, size), dtype=bool)
    seen[size - 1, size // 2] = True
    for row in range(size - 1, -1, -1):
        for cols in (range(size - 1), range(size - 1, 0, -1)):
            for col in cols:
                if not seen[row, col] or opaque[row, col]:
                    continue
                side = col + 1 if cols.step == 1 else col - 1
                seen[row, side] = True
                if row > 0:
                    seen[row - 1, side] = True
                    seen[row - 1, col] = True
    return seen
