"""What an agent perceives: the cells it sees, and the furniture whose contents it sees whole.

Two ways of seeing, chosen per agent:

* ``"room"`` (the default, MMToM-QA's): the room the agent stands in, with its walls; standing in a doorway,
  the rooms on both sides (:meth:`Visibility.room <marple_gym.evidence.visibility.Visibility.room>`).
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
from functools import lru_cache

import numpy as np

from marple_gym.beliefs.locations import locations_of, pieces_of
from marple_gym.evidence.egocentric import check_view_size
from marple_gym.evidence.visibility import Visibility
from marple_gym.world.assets import OPEN_BIT
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
    """One moment's perception of one agent: a partial view of the house, and what it learns from it."""

    view: Visibility
    """The cells the agent sees and the containers whose contents it does not (every closed one): the same
    cut the agent's observation is made with (:mod:`marple_gym.evidence.visibility`)."""
    pieces: int
    """Bits of the pieces of furniture the agent sees whole, contents included: an object not seen on one of
    them is not there."""

    @property
    def cells(self) -> np.ndarray:
        """(H, W) bool: the cells the agent sees (their floor, furniture and what lies on open furniture)."""
        return self.view.seen

    def sees_cell_contents(self, x: int, y: int) -> bool:
        """Does the agent see what lies on cell (x, y)?"""
        return bool(self.view.seen[y, x]) and not self.view.sealed_cells[y, x]


def perceive(
    house: House, state: WorldState, agent: int = 0, mode: str = "room", view_size: int = VIEW_SIZE
) -> Percept:
    """What agent ``agent`` perceives in ``state`` (see the module docs)."""
    if mode not in PERCEPTIONS:
        check_perception(mode, view_size)
    locations = locations_of(house)
    x, y = state.agent_pos[agent].tolist()
    if mode == "room":  # the agent's cell decides the room(s) it sees: nothing else but the containers' states
        return _percept(house, state, agent, mode, view_size, (x, y), locations.closed(state))
    doors = tuple(f for f in house.doors.tolist() if not state.fur_state[f] & OPEN_BIT)  # they block the view
    where = (x, y, int(state.agent_dir[agent]), doors)
    return _percept(house, state, agent, mode, view_size, where, locations.closed(state))


def _percept(
    house: House, state: WorldState, agent: int, mode: str, view_size: int, where: tuple, closed: int
) -> Percept:
    """:func:`perceive` for an agent ``where`` it is (and, for a view, what blocks it), kept for the next time
    (a percept is immutable, and an agent comes back to the same places)."""
    key = (house.fingerprint, mode, view_size, where, closed)
    found = _PERCEPTS.get(key)
    if found is None:
        found = _PERCEPTS[key] = _build_percept(house, state, agent, mode, view_size, closed)
        if len(_PERCEPTS) > _MAX_PERCEPTS:
            _PERCEPTS.pop(next(iter(_PERCEPTS)))
    return found


_PERCEPTS: dict[tuple, Percept] = {}
_MAX_PERCEPTS = 8192


def _build_percept(house: House, state: WorldState, agent: int, mode: str, view_size: int, closed: int) -> Percept:
    locations = locations_of(house)
    sealed = pieces_of(closed)
    if mode == "room":
        view = Visibility.room(house, state, agent).sealing(sealed)
        whole = 0
        for r, room in enumerate(house.rooms):
            if view.seen[room.top[1], room.top[0]]:
                whole |= locations.by_room[r]
        return Percept(view, whole & ~closed)
    view = Visibility.egocentric(house, state, agent, view_size)
    x, y = state.agent_pos[agent].tolist()
    dx, dy = DIR_VEC[int(state.agent_dir[agent])]
    faced = locations.piece_at(x + dx, y + dy)
    if faced >= 0:
        hidden = view.hidden.copy()
        hidden[house.fur_cells[faced]] = False
        view = Visibility(house, hidden)
    view = view.sealing(sealed)
    whole = 0
    for f in pieces_of(locations.all):
        if view.seen[house.fur_cells[f]].all():
            whole |= 1 << f
    return Percept(view, whole & ~closed)


def sighting(house: House, state: WorldState, percept: Percept, obj: int) -> tuple[int, tuple[int, int]] | None:
    """(piece, cell) where the agent sees object ``obj`` lying on or in furniture now, or None."""
    x, y = state.obj_pos[obj].tolist()
    if x < 0:
        return None
    piece = locations_of(house).piece_at(x, y)
    if piece < 0 or not percept.sees_cell_contents(x, y):
        return None
    return piece, (x, y)


def sighting_of(house: House, state: WorldState, percept: Percept, code: int) -> tuple[int, tuple[int, int]] | None:
    """(piece, cell) where the agent sees an object of type ``code`` now (the first such object), or None."""
    for obj in _objects_of(house, code):
        seen = sighting(house, state, percept, obj)
        if seen is not None:
            return seen
    return None


@lru_cache(maxsize=256)
def _objects_of(house: House, code: int) -> tuple[int, ...]:
    """The objects of type ``code`` in ``house``, ascending: a searching agent looks for them on every step."""
    return tuple(obj for obj, c in enumerate(house.obj_type_list) if c == code)
