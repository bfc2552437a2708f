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
from functools import lru_cache

import numpy as np

from marple_gym.generation.config import FurnitureSpec, HouseConfig, HouseConfigError, ObjectSpec
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
    size: tuple[int, int] = field(init=False)  # (w, h), its type's

    def __post_init__(self) -> None:
        t = ASSETS.furniture_type(self.type)
        self.size = (t.width, t.height)

    @property
    def fixed(self) -> dict[str, bool]:
        """States the config gave explicitly: requirements may not change them."""
        return self.spec.state if self.spec else {}

    def cells(self) -> list[tuple[int, int]]:
        (x, y), (w, h) = self.pos, self.size
        return [(cx, cy) for cy in range(y, y + h) for cx in range(x, x + w)]


def sample_states(abilities: tuple[str, ...], given: dict[str, bool], rng: np.random.Generator) -> dict[str, bool]:
    """Each ability's state: the given one, or drawn with its probability (one draw per ability not given)."""
    out = {}
    for name, p in _state_odds(abilities):
        out[name] = given[name] if name in given else rng.random() < p
    return out


@lru_cache(maxsize=256)
def _state_odds(abilities: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    """(ability, probability it starts true) for each ability, in order."""
    return tuple((name, 0.25 if BIT[name] & (OPEN_BIT | TOGGLE_BIT) else 0.5) for name in abilities)


class Draft:
    """A house being furnished: what is placed where, and the walkable floor.

    Sets of cells (the floor, what is taken, where random pieces may go, the
    walkable floor ``walk``) are bitboards: a placement updates them with a few
    integer operations, and the k-th free cell of a room is found without
    listing them all. The walkable floor is also kept cell by cell (for local
    checks). A placement is first checked around the cells it takes, which is
    enough whenever the floor stays connected there; only when it is not does
    the check flood the whole floor, so a placement costs the same in a large
    house as in a small one.
    """

    def __init__(self, config: HouseConfig, layout: Layout, rng: np.random.Generator) -> None:
        self.config = config
        self.layout = layout
        self.rng = rng
        self.board: Bitboard = bitboard(layout.width, layout.height)
        self._room_bits = [self.board.rect(*room.top, *room.size) for room in layout.rooms]
        self.floor = sum(self._room_bits)  # room floor (rooms do not overlap): bits, like every set of cells here
        self.taken = 0
        doors = clear = 0
        walkable = bytearray((layout.room_map >= 0).tobytes())
        for x, y, _ in layout.doors:  # a door lies in a wall between two rooms: never on the border
            doors |= self.board.bit(x, y)
            clear |= self.board.block(3, 3) << ((y - 1) * layout.width + x - 1)
            walkable[y * layout.width + x] = 1
        self._open = self.floor & ~clear  # where random pieces and floor objects may go
        self.walk = self.floor | doors
        self._walkable = walkable
        self._piece_at = [-1] * len(walkable)  # index into ``furniture`` of the piece on each cell
        self.furniture: list[PlacedFurniture] = []
        self.floor_objects: list[tuple[int, PlacedObject]] = []
        self.agents: list[tuple[tuple[int, int], int]] = []

    # ---- the walkable floor -------------------------------------------------------------
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

    def _problem_taking(self, x: int, y: int, w: int, h: int, bits: int, extra: int = 0) -> str | None:
        """:meth:`_problem` of the floor without the ``w`` x ``h`` block at (x, y) (its ``bits``)."""
        if self._fine_around(x, y, w, h):
            return None
        return self._problem(self.walk & ~bits, extra)

    def _fine_around(self, x: int, y: int, w: int, h: int) -> bool:
        """True if taking the block certainly leaves the floor fine (False: flood the whole floor to know).

        The floor is fine now (one connected region, every piece usable). Without
        the block it stays connected if the walkable cells touching the block are
        connected to each other round the ring of cells around it (a walk through
        the block can go round it instead); at least one must touch it (then
        the floor is not empty and the block, as a new piece, can be used); and
        only the pieces next to the block can lose their last walkable neighbour.
        """
        width, walkable, piece_at = self.board.width, self._walkable, self._piece_at
        around = _ring_bits(w, h, width) << ((y - 1) * width + x - 1)
        if self.walk & around == around:  # walkable all round: one run, and no piece is next to the block
            return True
        ring = _ring(x, y, w, h, width)
        if _touching_runs(ring, walkable) != 1:
            return False
        x1, y1 = x + w, y + h
        for piece in {piece_at[c] for c, side in ring if side and piece_at[c] >= 0}:
            (px, py), (pw, ph) = self.furniture[piece].pos, self.furniture[piece].size
            rim = (c for c, side in _ring(px, py, pw, ph, width) if side)
            if not any(walkable[c] and not (x <= c % width < x1 and y <= c // width < y1) for c in rim):
                return False
        return True

    def _take(self, x: int, y: int, w: int, h: int, bits: int) -> None:
        """Cells stop being walkable floor."""
        self.taken |= bits
        self._open &= ~bits
        self.walk &= ~bits
        width = self.board.width
        for cy in range(y, y + h):
            self._walkable[cy * width + x : cy * width + x + w] = bytes(w)

    # ---- furniture -------------------------------------------------------------------------
    def place_furniture_at(self, f: PlacedFurniture, where: str) -> None:
        """Place a piece at its given position, or raise HouseConfigError naming ``where``."""
        (x, y), (w, h) = f.pos, f.size
        room = self.layout.rooms[f.room]
        inside = self.layout.room_map[y : y + h, x : x + w]
        if inside.shape != (h, w) or (inside != f.room).any():
            raise HouseConfigError(
                where,
                f"a {f.type} ({w} x {h} cells) at {list(f.pos)} does not fit inside room {room.name} "
                f"(floor {list(room.top)} size {list(room.size)})",
            )
        if self.taken & (self.board.block(w, h) << (y * self.board.width + x)):
            other = next(o for o in self.furniture if any(c in o.cells() for c in f.cells()))
            raise HouseConfigError(
                where, f"the {f.type} at {list(f.pos)} overlaps the {other.type} at {list(other.pos)}"
            )
        fine = self._fine_around(x, y, w, h)
        self._commit(f)
        problem = None if fine else self._problem(self.walk)
        if problem:
            raise HouseConfigError(where, f"the {f.type} at {list(f.pos)} cannot stand there: {problem}")

    def _commit(self, f: PlacedFurniture) -> None:
        (x, y), (w, h) = f.pos, f.size
        f.bits = self.board.block(w, h) << (y * self.board.width + x)
        self._take(x, y, w, h, f.bits)
        width = self.board.width
        for cy in range(y, y + h):
            self._piece_at[cy * width + x : cy * width + x + w] = [len(self.furniture)] * w
        self.furniture.append(f)

    def place_furniture_randomly(self, f: PlacedFurniture) -> bool:
        """Try every free anchor in the room in random order; keep the first that breaks nothing."""
        w, h = f.size
        rw, rh = self.layout.rooms[f.room].size
        if w > rw or h > rh:
            return False
        width = self.board.width
        # Anchors in the room whose cells are all open; a block running out of the room meets its wall, never open.
        # The anchors of a row of w open cells first, then of h such rows: w + h shifts rather than w * h.
        row = self._open
        for dx in range(1, w):
            row &= self._open >> dx
        fits = self._room_bits[f.room] & row
        for dy in range(1, h):
            fits &= row >> (dy * width)
        block = self.board.block(w, h)
        # The permutation covers every anchor, in row-major order (the generator's draws stay those of the pinned
        # houses), but the anchors are read one by one: the first one usually fits.
        for k in self.rng.permutation(fits.bit_count()):
            x, y = self.board.nth(fits, int(k))
            bits = block << (y * width + x)
            if self._problem_taking(x, y, w, h, bits, extra=bits) is None:
                f.pos = (x, y)
                self._commit(f)
                return True
        return False

    # ---- objects -------------------------------------------------------------------------
    def access_cells(self, f: PlacedFurniture) -> list[tuple[int, int]]:
        """Cells of ``f`` an agent can face from walkable floor, in row-major order."""
        width, walkable = self.board.width, self._walkable
        return [
            (cx, cy)
            for cx, cy in f.cells()
            if walkable[cy * width + cx + 1]
            or walkable[cy * width + cx - 1]
            or walkable[(cy + 1) * width + cx]
            or walkable[(cy - 1) * width + cx]
        ]

    def place_floor_object(self, room: int, obj: ObjectSpec | None, type_name: str, where: str) -> bool:
        """Put an object on the floor of ``room`` (at ``obj.pos`` if given) without blocking the way."""
        if obj is not None and obj.pos is not None:
            x, y = obj.pos
            if self.layout.room_map[y, x] != room or self.taken & self.board.bit(x, y):
                raise HouseConfigError(
                    where + ".pos", f"{list(obj.pos)} is not a free floor cell of room {self.layout.rooms[room].name}"
                )
            problem = self._problem_taking(x, y, 1, 1, self.board.bit(x, y))
            if problem:
                raise HouseConfigError(where + ".pos", f"a {type_name} at {list(obj.pos)} cannot lie there: {problem}")
            candidates = [(x, y)]
        else:
            free = self._open & self._room_bits[room]
            candidates = (self.board.nth(free, int(k)) for k in self.rng.permutation(free.bit_count()))
        for x, y in candidates:
            bit = self.board.bit(x, y)
            if self._problem_taking(x, y, 1, 1, bit) is None:
                self._take(x, y, 1, 1, bit)
                state = sample_states(ASSETS.object_type(type_name).abilities, obj.state if obj else {}, self.rng)
                self.floor_objects.append((room, PlacedObject(type_name, (x, y), state, obj.name if obj else None)))
                return True
        return False


def _ring(x: int, y: int, w: int, h: int, width: int) -> list[tuple[int, bool]]:
    """The cells around the ``w`` x ``h`` block at (x, y) (inside the outer walls), in order round it, each next
    to the one before, as (flat index, whether it touches a side of the block rather than a corner)."""
    base = y * width + x
    return [(base + offset, side) for offset, side in _ring_offsets(w, h, width)]


@lru_cache(maxsize=1024)
def _ring_offsets(w: int, h: int, width: int) -> tuple[tuple[int, bool], ...]:
    """:func:`_ring` of the block at (0, 0), as offsets from its first cell."""
    cells = [(cx, -1) for cx in range(-1, w + 1)]
    cells += [(w, cy) for cy in range(h)]
    cells += [(cx, h) for cx in range(w, -2, -1)]
    cells += [(-1, cy) for cy in range(h - 1, -1, -1)]
    return tuple((cy * width + cx, -1 < cx < w or -1 < cy < h) for cx, cy in cells)


@lru_cache(maxsize=1024)
def _ring_bits(w: int, h: int, width: int) -> int:
    """The cells of :func:`_ring` as bits, for the block at (1, 1)."""
    return sum(1 << (width + 1 + offset) for offset, _ in _ring_offsets(w, h, width))


def _touching_runs(ring: list[tuple[int, bool]], walkable: bytearray) -> int:
    """How many runs of walkable cells along the ring touch a side of the block."""
    closed = next((i for i, (cell, _) in enumerate(ring) if not walkable[cell]), None)
    if closed is None:
        return 1
    runs, in_run, touches = 0, False, False
    for cell, side in ring[closed + 1 :] + ring[: closed + 1]:  # ends on a closed cell: every run ends inside
        if walkable[cell]:
            in_run, touches = True, touches or side
        elif in_run:
            runs += touches
            in_run, touches = False, False
    return runs
