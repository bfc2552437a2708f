"""What an agent perceives: the cells it sees, and the furniture whose contents it sees whole.

Two ways of seeing, chosen per agent:

* ``"room"`` (the default, MMToM-QA's): every cell of the room the agent stands in; standing in a doorway,
  every cell of the rooms on both sides. Walls hide the other rooms.
* ``"view"``: the agent's egocentric window (:mod:`marple_gym.evidence.egocentric`, ``view_size`` cells,
  walls and closed doors hiding what lies behind them), plus the whole of the piece of furniture it faces
  (standing in front of a bed, one sees all of it).

Either way the inside of a closed container (closet, fridge, cabinet, laundry, car) stays out of sight until
it is open: its objects are not seen, and the piece is not *seen whole*, so a belief learns nothing about
what is in it. Objects on surfaces (tables, sofas, shelves...) and in open or lidless containers are seen
with their cell.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from marple_gym.beliefs.locations import Locations, locations_of, room_cells
from marple_gym.evidence.egocentric import check_view_size, view_cells
from marple_gym.world.house import DIR_VEC, House
from marple_gym.world.state import WorldState

PERCEPTIONS = ("room", "view")
"""The ways an agent can perceive (see the module docs)."""
VIEW_SIZE = 7
"""The egocentric window of ``"view"`` perception (MiniGrid's default)."""


class PerceptionError(ValueError):
    """An unknown way of perceiving, or a window size that is not odd and at least 3."""


def check_perception(mode: str, view_size: int = VIEW_SIZE) -> str:
    """``mode`` if it is one of :data:`PERCEPTIONS` (and the window size is valid), else a PerceptionError."""
    if mode not in PERCEPTIONS:
        raise PerceptionError(f"perception must be one of {', '.join(PERCEPTIONS)}, got {mode!r}")
    try:
        check_view_size(view_size)
    except ValueError as exc:
        raise PerceptionError(str(exc)) from None
    return mode


@dataclass(frozen=True, eq=False)
class Percept:
    """One moment's perception of one agent."""

    cells: np.ndarray
    """(H, W) bool: the cells the agent sees (their floor, furniture and what lies on open furniture)."""
    pieces: int
    """Bits of the pieces of furniture the agent sees whole, contents included: an object not seen on one of
    them is not there."""
    closed: int
    """Bits of every closed container in the house: what is inside them is out of sight, even where their
    cells are seen."""

    def sees_cell_contents(self, locations: Locations, x: int, y: int) -> bool:
        """Does the agent see what lies on cell (x, y)?"""
        if not self.cells[y, x]:
            return False
        piece = locations.piece_at(x, y)
        return piece < 0 or not self.closed >> piece & 1


def _rooms_seen(house: House, state: WorldState, agent: int) -> tuple[int, ...]:
    """The rooms an agent at its cell sees: its own, or both sides of the doorway it stands in."""
    x, y = state.agent_pos[agent].tolist()
    room = house.room_of_cell(x, y)
    if room >= 0:
        return (room,)
    around = {house.room_of_cell(x + dx, y + dy) for dx, dy in DIR_VEC}
    return tuple(sorted(r for r in around if r >= 0))


def perceive(
    house: House, state: WorldState, agent: int = 0, mode: str = "room", view_size: int = VIEW_SIZE
) -> Percept:
    """What agent ``agent`` perceives in ``state`` (see the module docs)."""
    locations = locations_of(house)
    closed = locations.closed(state)
    if mode == "room":
        rooms = _rooms_seen(house, state, agent)
        whole = 0
        for r in rooms:
            whole |= locations.by_room[r]
        return Percept(room_cells(house, rooms), whole & ~closed, closed)
    if mode != "view":
        check_perception(mode, view_size)
    xs, ys, seen = view_cells(state, agent, view_size)
    cells = np.zeros((house.height, house.width), dtype=bool)
    cells[ys[seen], xs[seen]] = True
    x, y = state.agent_pos[agent].tolist()
    dx, dy = DIR_VEC[int(state.agent_dir[agent])]
    faced = locations.piece_at(x + dx, y + dy)
    if faced >= 0:
        fys, fxs = house.fur_cells[faced]
        cells[fys, fxs] = True
    whole = 0
    touched = {house.fur_at[cy][cx] for cx, cy in zip(xs[seen].tolist(), ys[seen].tolist())}
    touched.add(faced)
    for f in touched:
        if f >= 0 and locations.all >> f & 1:
            fys, fxs = house.fur_cells[f]
            if cells[fys, fxs].all():
                whole |= 1 << f
    return Percept(cells, whole & ~closed, closed)


def sighting(house: House, state: WorldState, percept: Percept, obj: int) -> tuple[int, tuple[int, int]] | None:
    """(piece, cell) where the agent sees object ``obj`` lying on or in furniture now, or None."""
    x, y = state.obj_pos[obj].tolist()
    if x < 0:
        return None
    locations = locations_of(house)
    piece = locations.piece_at(x, y)
    if piece < 0 or not percept.sees_cell_contents(locations, x, y):
        return None
    return piece, (x, y)
