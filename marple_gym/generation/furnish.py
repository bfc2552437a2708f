"""Furnishing a laid-out house: furniture, objects, agents.

Placement keeps two invariants, checked on bitboards after every random piece:
all walkable floor is one connected region (so every room is reachable), and
every piece of furniture keeps a walkable neighbour to be used from. Cells next
to doors are kept clear. Objects go only into furniture cells an agent can
reach, so every object placed at random can be picked up.

Unspecified states are sampled: dust and stains with probability 1/2, open and
on with probability 1/4 (most appliances in a house are off and shut).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from marple_gym.generation.config import ConfigError, FurnitureSpec, HouseConfig, ObjectSpec
from marple_gym.generation.layout import Layout
from marple_gym.world.assets import ASSETS, BIT, OPEN_BIT, TOGGLE_BIT
from marple_gym.world.navigation import Bitboard, bitboard


class PlacementFailed(Exception):
    """A random placement did not fit; generation retries with fresh draws."""


@dataclass
class PlacedObject:
    type: str
    pos: tuple[int, int]
    state: dict[str, bool]
    name: str | None = None


@dataclass
class PlacedFurniture:
    type: str
    room: int
    pos: tuple[int, int]
    spec: FurnitureSpec | None = None
    state: dict[str, bool] = field(default_factory=dict)
    objects: list[PlacedObject] = field(default_factory=list)
    required_objects: list[str] = field(default_factory=list)
    keep_free: int = 0
    bits: int = 0  # bitboard of its cells

    @property
    def size(self) -> tuple[int, int]:
        t = ASSETS.furniture_type(self.type)
        return t.width, t.height

    @property
    def fixed(self) -> dict[str, bool]:
        """States the config gave explicitly: requirements may not change them."""
        return self.spec.state if self.spec else {}

    def cells(self) -> list[tuple[int, int]]:
        (x, y), (w, h) = self.pos, self.size
        return [(cx, cy) for cy in range(y, y + h) for cx in range(x, x + w)]


def sample_states(abilities: tuple[str, ...], given: dict[str, bool], rng: np.random.Generator) -> dict[str, bool]:
    out = {}
    for name in abilities:
        if name in given:
            out[name] = given[name]
        else:
            out[name] = bool(rng.random() < (0.25 if BIT[name] & (OPEN_BIT | TOGGLE_BIT) else 0.5))
    return out


class Draft:
    """A house being furnished: what is placed where, and the walkable floor."""

    def __init__(self, config: HouseConfig, layout: Layout, rng: np.random.Generator) -> None:
        self.config = config
        self.layout = layout
        self.rng = rng
        self.board: Bitboard = bitboard(layout.width, layout.height)
        h, w = layout.room_map.shape
        self.floor = layout.room_map >= 0
        self.taken = np.zeros((h, w), dtype=bool)
        self.door_bits = 0
        clear = np.zeros((h, w), dtype=bool)
        for x, y, _ in layout.doors:
            self.door_bits |= self.board.bit(x, y)
            clear[max(y - 1, 0) : y + 2, max(x - 1, 0) : x + 2] = True
        self.keep_clear = clear & self.floor
        self.furniture: list[PlacedFurniture] = []
        self.floor_objects: list[tuple[int, PlacedObject]] = []
        self.agents: list[tuple[tuple[int, int], int]] = []

    # ---- the walkable floor -------------------------------------------------------------
    def walk_bits(self) -> int:
        return self.board.from_mask(self.floor & ~self.taken) | self.door_bits

    def _problem(self, walk: int, extra: int = 0) -> str | None:
        """Why the floor ``walk`` would be unusable, or None if it is fine."""
        if not walk:
            return "no floor is left to walk on"
        if self.board.flood(walk & -walk, walk) != walk:
            return "it cuts the floor into parts that cannot reach each other"
        # A piece is usable iff one of its cells touches walkable floor.
        usable = self.board.neighbours(walk)
        for f in self.furniture:
            if not f.bits & usable:
                return f"it leaves the {f.type} at {list(f.pos)} with no free cell to be used from"
        if extra and not extra & usable:
            return "it would have no free cell to be used from"
        return None

    def room_cells_free(self, room: int) -> np.ndarray:
        return (self.layout.room_map == room) & ~self.taken

    # ---- furniture -------------------------------------------------------------------------
    def place_furniture_at(self, f: PlacedFurniture, where: str) -> None:
        """Place a piece at its given position, or raise ConfigError naming ``where``."""
        (x, y), (w, h) = f.pos, f.size
        room = self.layout.rooms[f.room]
        inside = self.layout.room_map[y : y + h, x : x + w]
        if inside.shape != (h, w) or (inside != f.room).any():
            raise ConfigError(
                where,
                f"a {f.type} ({w} x {h} cells) at {list(f.pos)} does not fit inside room {room.name} "
                f"(floor {list(room.top)} size {list(room.size)})",
            )
        if self.taken[y : y + h, x : x + w].any():
            other = next(o for o in self.furniture if any(c in o.cells() for c in f.cells()))
            raise ConfigError(where, f"the {f.type} at {list(f.pos)} overlaps the {other.type} at {list(other.pos)}")
        self._commit(f)
        problem = self._problem(self.walk_bits())
        if problem:
            raise ConfigError(where, f"the {f.type} at {list(f.pos)} cannot stand there: {problem}")

    def _commit(self, f: PlacedFurniture) -> None:
        (x, y), (w, h) = f.pos, f.size
        self.taken[y : y + h, x : x + w] = True
        f.bits = 0
        for cx, cy in f.cells():
            f.bits |= self.board.bit(cx, cy)
        self.furniture.append(f)

    def place_furniture_randomly(self, f: PlacedFurniture) -> bool:
        """Try every free anchor in the room in random order; keep the first that breaks nothing."""
        w, h = f.size
        room = self.layout.rooms[f.room]
        (rx, ry), (rw, rh) = room.top, room.size
        if w > rw or h > rh:
            return False
        free = (self.room_cells_free(f.room) & ~self.keep_clear)[ry : ry + rh, rx : rx + rw]
        fits = np.lib.stride_tricks.sliding_window_view(free, (h, w)).all(axis=(2, 3))
        ys, xs = np.nonzero(fits)
        walk = self.walk_bits()
        block = sum(self.board.bit(cx, cy) for cy in range(h) for cx in range(w))
        for k in self.rng.permutation(len(xs)).tolist():
            x, y = int(xs[k]) + rx, int(ys[k]) + ry
            bits = block << (y * self.board.width + x)
            if self._problem(walk & ~bits, extra=bits) is None:
                f.pos = (x, y)
                self._commit(f)
                return True
        return False

    # ---- objects -------------------------------------------------------------------------
    def access_cells(self, f: PlacedFurniture) -> list[tuple[int, int]]:
        """Cells of ``f`` an agent can face from walkable floor, in row-major order."""
        near = self.board.neighbours(self.walk_bits()) & f.bits
        return self.board.cells(near)

    def free_cells(self, f: PlacedFurniture) -> list[tuple[int, int]]:
        used = {o.pos for o in f.objects}
        return [c for c in self.access_cells(f) if c not in used]

    def place_floor_object(self, room: int, obj: ObjectSpec | None, type_name: str, where: str) -> bool:
        """Put an object on the floor of ``room`` (at ``obj.pos`` if given) without blocking the way."""
        walk = self.walk_bits()
        if obj is not None and obj.pos is not None:
            x, y = obj.pos
            if self.layout.room_map[y, x] != room or self.taken[y, x]:
                raise ConfigError(
                    where + ".pos", f"{list(obj.pos)} is not a free floor cell of room {self.layout.rooms[room].name}"
                )
            problem = self._problem(walk & ~self.board.bit(x, y))
            if problem:
                raise ConfigError(where + ".pos", f"a {type_name} at {list(obj.pos)} cannot lie there: {problem}")
            candidates = [(x, y)]
        else:
            mask = self.room_cells_free(room) & ~self.keep_clear
            ys, xs = np.nonzero(mask)
            order = self.rng.permutation(len(xs))
            candidates = zip(xs[order].tolist(), ys[order].tolist())
        for x, y in candidates:
            if self._problem(walk & ~self.board.bit(x, y)) is None:
                self.taken[y, x] = True
                state = sample_states(ASSETS.object_type(type_name).abilities, obj.state if obj else {}, self.rng)
                self.floor_objects.append((room, PlacedObject(type_name, (x, y), state, obj.name if obj else None)))
                return True
        return False
