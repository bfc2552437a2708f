"""The places an object can be: every piece of furniture that holds objects, on top or inside.

A belief is a distribution over these places, so they are numbered once per house: a set of places is a
Python ``int`` with bit ``f`` set for furniture instance ``f`` (doors and pieces that hold nothing never
have a bit). Which places an object *could* be in follows the generator's own rule (a piece accepts the
object's category, in a room where that object appears), so an agent's prior knows what houses are like
and nothing about this house.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from marple_gym.world.assets import ASSETS, FIRST_FURNITURE, OPEN_BIT
from marple_gym.world.house import House
from marple_gym.world.state import WorldState


def bits_of(pieces) -> int:
    """The set of furniture indices ``pieces`` as bits."""
    out = 0
    for f in pieces:
        out |= 1 << int(f)
    return out


def pieces_of(bits: int) -> list[int]:
    """The furniture indices of a set of bits, ascending."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


@dataclass(frozen=True, eq=False)
class Locations:
    """The furniture of one house that holds objects, as bits, with what each piece can hold."""

    house: House

    @cached_property
    def all(self) -> int:
        """Every piece that holds objects (on top or inside)."""
        holds = ASSETS.fur_holds
        return bits_of(f for f, code in enumerate(self.house.fur_type_list) if holds[code])

    @cached_property
    def gated(self) -> int:
        """The pieces that hide their contents while closed (closet, fridge, cabinet, laundry, car)."""
        gated = ASSETS.fur_gated
        return bits_of(f for f in pieces_of(self.all) if gated[self.house.fur_type_list[f]])

    @cached_property
    def by_room(self) -> tuple[int, ...]:
        """For each room, the pieces standing in it."""
        rooms = self.house.fur_room.tolist()
        return tuple(bits_of(f for f in pieces_of(self.all) if rooms[f] == r) for r in range(len(self.house.rooms)))

    @cached_property
    def _gated_list(self) -> list[int]:
        return pieces_of(self.gated)

    def closed(self, state: WorldState) -> int:
        """The gated pieces that are closed now: their contents are out of sight."""
        bits = 0
        for f in self._gated_list:
            if not state.fur_state[f] & OPEN_BIT:
                bits |= 1 << f
        return bits

    def candidates(self, obj_code: int) -> int:
        """The pieces an object of type ``obj_code`` could be on or in (the generator's placement rule)."""
        return _candidates(self, obj_code)

    def piece_at(self, x: int, y: int) -> int:
        """The piece of furniture holding objects at cell (x, y), or -1."""
        f = self.house.fur_at[y][x]
        return f if f >= 0 and self.all >> f & 1 else -1


@lru_cache(maxsize=4096)
def _candidates(locations: Locations, obj_code: int) -> int:
    obj = ASSETS.objects[obj_code - 1]
    house = locations.house
    out = 0
    for f in pieces_of(locations.all):
        ftype = ASSETS.furniture[house.fur_type_list[f] - FIRST_FURNITURE]
        room = house.rooms[int(house.fur_room[f])].type
        if obj.category in ftype.accepts and room in obj.rooms:
            out |= 1 << f
    return out


@lru_cache(maxsize=64)
def locations_of(house: House) -> Locations:
    """The :class:`Locations` of ``house`` (worked out once per house object)."""
    return Locations(house)


def unique_objects(house: House, state: WorldState) -> dict[int, int]:
    """Object type code -> object index, for every type with exactly one instance, lying on or in furniture:
    the objects a searching agent can be sent for, and asked about."""
    locations = locations_of(house)
    counts: dict[int, list[int]] = {}
    for obj, code in enumerate(house.obj_type_list):
        counts.setdefault(code, []).append(obj)
    out = {}
    for code, objs in counts.items():
        if len(objs) != 1:
            continue
        x, y = state.obj_pos[objs[0]].tolist()
        if x >= 0 and locations.piece_at(x, y) >= 0:
            out[code] = objs[0]
    return out


def piece_cells(house: House, piece: int) -> list[tuple[int, int]]:
    """The (x, y) cells of a piece of furniture."""
    ys, xs = house.fur_cells[piece]
    return list(zip(xs.tolist(), ys.tolist()))


def object_piece(house: House, state: WorldState, obj: int) -> int:
    """The piece of furniture object ``obj`` lies on or in, -1 if it is held or on the floor."""
    x, y = state.obj_pos[obj].tolist()
    return -1 if x < 0 else locations_of(house).piece_at(x, y)
