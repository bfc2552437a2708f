"""A MARPLE house in MiniGrid's vocabulary: the object grid and the 3-channel view its wrappers read.

MiniGrid describes a cell by one object, encoded as the triple (``OBJECT_TO_IDX``, ``COLOR_TO_IDX``,
``STATE_TO_IDX``). A MARPLE cell maps to one of them (:func:`encode_cells`):

* wall: ``wall``, grey; door: ``door``, grey, ``open`` or ``closed`` (MARPLE doors have no locks);
* floor: ``floor`` in its room's colour (MiniGrid's coloured floor tile, walked on);
* furniture: ``box`` in its room's colour (not walked on, and it hides what is shut inside it);
* an object the agent could see and take (on furniture, or in an open or lidless container): ``ball`` in its
  category's colour (MiniGrid's ``key`` opens locked doors, which MARPLE does not have); an object shut in a
  closed container leaves the ``box`` showing, as MiniGrid's box hides its contents;
* a target cell of the agent's current subgoal (what its action applies to; for the searching agent of
  ``Marple-Search-v0``, the cell of the object it searches for): ``goal``, green, over what lies there,
  MiniGrid's mark of where the task is done (``DirectionObsWrapper`` reads it);
* a cell the agent does not see in a partial view, or does not perceive (a searching agent sees its room):
  ``unseen``.

Colours follow one rule: the i-th room type (asset order: Kitchen, Bedroom, Bathroom, Garage, Study, Living
Room) and the i-th object category take MiniGrid's i-th colour (``COLOR_TO_IDX`` order: red, green, blue,
purple, yellow, grey), wrapping after six, so the kitchen is red as MARPLE draws it. The object an agent holds
is not in the grid (MiniGrid's ``carrying``); the partial view shows it on the agent's cell, as MiniGrid's does.

:func:`house_grid` and :func:`view_grid` return real ``minigrid.core.grid.Grid`` objects, so every MiniGrid
reader (``encode``, ``slice``, ``render``, ``process_vis``, ``isinstance(cell, Goal)``) works unchanged. Only
:mod:`marple_gym.envs.minigrid_api` imports this module, on first use: importing MiniGrid costs half a second.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cache

import numpy as np
from minigrid.core.constants import COLOR_TO_IDX, OBJECT_TO_IDX, STATE_TO_IDX
from minigrid.core.grid import Grid
from minigrid.core.world_object import WorldObj

from marple_gym.evidence.egocentric import egocentric_view, view_cells
from marple_gym.evidence.visibility import Visibility
from marple_gym.missions.feasibility import target_cells
from marple_gym.missions.mission import Subgoal
from marple_gym.world.assets import ASSETS, DOOR, FIRST_FURNITURE, OPEN_BIT, WALL
from marple_gym.world.state import CH_AGENT, CH_FUR, CH_FUR_STATE, CH_OBJ, CH_ROOM
from marple_gym.world.world import World

COLOURS: tuple[str, ...] = tuple(sorted(COLOR_TO_IDX, key=COLOR_TO_IDX.get))
"""MiniGrid's colours in index order: the i-th room type and object category take the i-th (wrapping)."""
STRUCTURE_COLOUR = "grey"
"""Walls and doors: MiniGrid's default wall colour (a door's colour only matters for its keys, and MARPLE has
no locks)."""
GOAL_COLOUR = "green"
"""MiniGrid's ``Goal`` is always green (``Grid.decode`` makes it so whatever the colour code)."""


def room_colour(room_type: str) -> str:
    """The MiniGrid colour of a room type's floor and furniture."""
    return COLOURS[ASSETS.room_types.index(room_type) % len(COLOURS)]


def category_colour(category: str) -> str:
    """The MiniGrid colour of the objects of one category."""
    return COLOURS[ASSETS.categories.index(category) % len(COLOURS)]


def _lookup(names: tuple[str, ...], colour_of: Callable[[str], str]) -> np.ndarray:
    """Colour index per code (code 0 and unnamed codes: 0), for vectorised lookups."""
    return np.array([COLOR_TO_IDX[colour_of(name)] if name else 0 for name in names], dtype=np.uint8)


ROOM_COLOUR_IDX = _lookup(("",) + ASSETS.room_types, room_colour)
"""MiniGrid colour index per MARPLE room code."""
OBJECT_COLOUR_IDX = _lookup(("",) + tuple(o.category for o in ASSETS.objects), category_colour)
"""MiniGrid colour index per MARPLE object code."""


def _triple(kind: str, colour: str = "red", state: str = "open") -> np.ndarray:
    """One MiniGrid cell code (colour and state default to index 0, as MiniGrid encodes stateless objects)."""
    return np.array([OBJECT_TO_IDX[kind], COLOR_TO_IDX[colour], STATE_TO_IDX[state]], dtype=np.uint8)


def encode_cells(vision: np.ndarray, goal: np.ndarray | None = None) -> np.ndarray:
    """MiniGrid's (type, colour, state) of every cell of a MARPLE vision array (the house's or an egocentric
    view), indexed ``[row, column]`` like the vision array (MiniGrid's own arrays are ``[x, y]``).

    ``goal`` marks the cells to encode as ``goal`` (the current subgoal's targets). An agent's cell shows what
    it stands on: the vision array puts the object it holds there, and MiniGrid keeps held objects out of its
    grid. All-zero cells (hidden in a partial view) are ``unseen``.
    """
    room = vision[..., CH_ROOM].astype(np.intp)
    fur = vision[..., CH_FUR].astype(np.intp)
    obj = vision[..., CH_OBJ].astype(np.intp)
    out = np.zeros(vision.shape[:2] + (3,), dtype=np.uint8)
    out[room > 0, 0] = OBJECT_TO_IDX["floor"]
    out[..., 1] = ROOM_COLOUR_IDX[room]  # floors and furniture: their room's (walls and doors: no room, set below)
    out[fur >= FIRST_FURNITURE, 0] = OBJECT_TO_IDX["box"]
    opened = (vision[..., CH_FUR_STATE].astype(np.intp) - 1) & OPEN_BIT != 0  # read for doors and containers only
    shut_in = ASSETS.fur_gated[fur] & ~opened
    loose = (obj > 0) & (vision[..., CH_AGENT] == 0) & ~shut_in
    out[loose, 0] = OBJECT_TO_IDX["ball"]
    out[loose, 1] = OBJECT_COLOUR_IDX[obj[loose]]
    out[fur == WALL] = _triple("wall", STRUCTURE_COLOUR)
    door = fur == DOOR
    out[door & opened] = _triple("door", STRUCTURE_COLOUR, "open")
    out[door & ~opened] = _triple("door", STRUCTURE_COLOUR, "closed")
    if goal is not None:
        out[goal] = _triple("goal", GOAL_COLOUR)
    return out


def goal_mask(world: World, subgoal: Subgoal | None, agent: int = 0) -> np.ndarray:
    """(H, W) bool: the target cells of ``agent``'s current ``subgoal`` (none once the mission is done)."""
    mask = np.zeros(world.state.grid.shape[:2], dtype=bool)
    if subgoal is not None:
        for x, y in target_cells(world, agent, subgoal):
            mask[y, x] = True
    return mask


@cache
def _decoded(type_idx: int, colour_idx: int, state: int) -> tuple[type[WorldObj], dict] | None:
    """The class and attributes of the object MiniGrid's ``WorldObj.decode`` makes of one code (None: no
    object), decoded once per code."""
    obj = WorldObj.decode(type_idx, colour_idx, state)
    return None if obj is None else (type(obj), dict(vars(obj)))


def _cell(type_idx: int, colour_idx: int, state: int) -> WorldObj | None:
    """A new object equal to ``WorldObj.decode``'s (a fresh one per cell, as MiniGrid's grids hold), made by
    copying its attributes: a fifth of the cost of decoding again."""
    decoded = _decoded(type_idx, colour_idx, state)
    if decoded is None:
        return None
    cls, attributes = decoded
    obj = cls.__new__(cls)
    obj.__dict__.update(attributes)
    return obj


def to_grid(codes: np.ndarray) -> tuple[Grid, np.ndarray]:
    """MiniGrid's ``Grid`` and visibility mask (``[x, y]``) of ``[row, column]`` cell codes: what
    ``Grid.decode`` returns, made without its cell-by-cell numpy indexing (a MiniGrid grid's list is row by row,
    as ``codes`` flattens)."""
    height, width = codes.shape[:2]
    grid = Grid(width, height)
    grid.grid = [_cell(*code) for code in codes.reshape(-1, 3).tolist()]
    return grid, (codes[..., 0] != OBJECT_TO_IDX["unseen"]).T


def house_grid(world: World, goal: np.ndarray) -> Grid:
    """MiniGrid's object grid of the whole house (``env.grid``), the ``goal`` cells marked: a new ``Grid``, so
    writing to it changes nothing in the env."""
    return to_grid(encode_cells(world.state.grid, goal))[0]


def view_codes(
    world: World,
    goal: np.ndarray,
    view_size: int,
    see_through_walls: bool,
    perceived: Visibility | None = None,
    agent: int = 0,
) -> np.ndarray:
    """(view_size, view_size, 3) MiniGrid codes of the agent's egocentric view, ``[row, column]``.

    The env's own view (:func:`~marple_gym.evidence.egocentric.egocentric_view`: the agent facing up in the
    bottom row's middle, outside cells walls, hidden cells zero) encoded cell by cell; the agent's cell shows
    the object it holds longest, or ``empty``, as MiniGrid's ``gen_obs_grid`` shows what the agent carries.
    ``goal`` is the (H, W) mask of the house's goal cells. ``perceived`` cuts out what the agent does not
    perceive besides (a searching agent's room, the closed containers' contents): those cells are ``unseen``,
    and a goal shows only where the agent sees what lies on its cell.
    """
    state = world.state
    if perceived is not None:
        state = replace(state, grid=perceived.vision(state.grid))
        goal = goal & perceived.seen & ~perceived.sealed_cells
    xs, ys, seen = view_cells(state, agent, view_size, see_through_walls)
    height, width = state.grid.shape[:2]
    in_view = seen & goal[ys.clip(0, height - 1), xs.clip(0, width - 1)]
    view = egocentric_view(state, agent, view_size, see_through_walls)
    codes = encode_cells(view, in_view)
    me = (view_size - 1, view_size // 2)
    held = int(view[me][CH_OBJ])
    codes[me] = (OBJECT_TO_IDX["ball"], OBJECT_COLOUR_IDX[held], 0) if held else _triple("empty")
    return codes


def view_grid(
    world: World,
    goal: np.ndarray,
    view_size: int,
    see_through_walls: bool,
    perceived: Visibility | None = None,
    agent: int = 0,
) -> tuple[Grid, np.ndarray]:
    """MiniGrid's ``gen_obs_grid``: the ``Grid`` of the agent's view and which of its cells the agent sees
    (arguments as :func:`view_codes`)."""
    return to_grid(view_codes(world, goal, view_size, see_through_walls, perceived, agent))
