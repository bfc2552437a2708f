"""The static part of a world: layout, rooms, furniture and object identities.

Nothing here changes while agents act, so copies of a world share one
:class:`House`; the moving parts live in :class:`~marple_gym.world.state.WorldState`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

import numpy as np

from marple_gym.world.assets import ASSETS, DOOR

# Directions follow MiniGrid: 0 = east (+x), 1 = south (+y), 2 = west, 3 = north.
DIR_VEC: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))
DIR_NAMES: tuple[str, ...] = ("east", "south", "west", "north")


@cache
def _dtype_text(dtype: np.dtype) -> bytes:
    """``str(dtype)`` encoded (numpy builds the string in Python each time; fingerprints ask on every reset)."""
    return str(dtype).encode()


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@dataclass(frozen=True)
class Room:
    """A rectangular room; ``top`` is its top-left floor cell (x, y), ``size`` is (w, h)."""

    name: str
    type: str
    top: tuple[int, int]
    size: tuple[int, int]

    def contains(self, x: int, y: int) -> bool:
        return self.top[0] <= x < self.top[0] + self.size[0] and self.top[1] <= y < self.top[1] + self.size[1]


@dataclass(frozen=True, eq=False)
class House:
    """Immutable layout of one generated house.

    Arrays are indexed ``[y, x]`` like images; positions are ``(x, y)`` like
    MiniGrid and the paper's configs. Furniture instances include the doors
    (type code ``DOOR``, room -1), so opening a door and opening a closet are one
    rule.
    """

    width: int
    height: int
    rooms: tuple[Room, ...]
    room_map: np.ndarray  # (H, W) int8: room index, -1 for walls and doors
    wall: np.ndarray  # (H, W) bool
    fur_type: np.ndarray  # (n_fur,) int16 furniture code
    fur_room: np.ndarray  # (n_fur,) int16 room index (-1 for doors)
    fur_pos: np.ndarray  # (n_fur, 2) int16 top-left cell (x, y)
    fur_size: np.ndarray  # (n_fur, 2) int16 (w, h)
    fur_names: tuple[str, ...]
    obj_type: np.ndarray  # (n_obj,) int16 object code
    obj_names: tuple[str, ...]
    agent_names: tuple[str, ...]
    agent_colors: tuple[str, ...]
    source: dict[str, Any] = field(default_factory=dict)
    """How the house was made (resolved config, seed): enough to rebuild it exactly."""

    def __post_init__(self) -> None:
        # Every world cloned from this house shares its arrays: freeze them so none can change the others'.
        for value in vars(self).values():  # the fields, just set (dataclasses.fields is slow on every reset)
            if isinstance(value, np.ndarray):
                _read_only(value)

    @cached_property
    def fingerprint(self) -> str:
        """A digest of the layout, furniture and objects: equal for houses the rules cannot tell apart."""
        parts = [f"{self.width}x{self.height}".encode()]
        for array in (
            self.room_map,
            self.wall,
            self.fur_type,
            self.fur_room,
            self.fur_pos,
            self.fur_size,
            self.obj_type,
        ):
            parts += (_dtype_text(array.dtype) + str(array.shape).encode(), array.tobytes())
        parts.append("|".join(r.type for r in self.rooms).encode())
        return hashlib.sha256(b"".join(parts)).hexdigest()  # one update of the whole: the same digest

    @property
    def num_furniture(self) -> int:
        return len(self.fur_type)

    @property
    def num_objects(self) -> int:
        return len(self.obj_type)

    @property
    def num_agents(self) -> int:
        return len(self.agent_names)

    @cached_property
    def fur_map(self) -> np.ndarray:
        """(H, W) int16: furniture instance index at each cell, -1 where none."""
        return _read_only(np.maximum(self.cell_rows, -1).astype(np.int16))

    @cached_property
    def fur_at(self) -> list[list[int]]:
        """``fur_map`` as nested Python lists: the fastest lookup for one cell."""
        return self.fur_map.tolist()

    @cached_property
    def fur_cells(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """For each furniture instance, the (ys, xs) index arrays of its cells."""
        cells = []
        for (x, y), (w, h) in zip(self.fur_pos.tolist(), self.fur_size.tolist()):
            cells.append((np.repeat(np.arange(y, y + h), w), np.tile(np.arange(x, x + w), h)))
        return tuple(cells)

    @cached_property
    def cell_rows(self) -> np.ndarray:
        """(H, W) intp: the furniture instance on each cell, -2 on bare floor, -1 on walls (doors are furniture):
        each cell's row in the table of cells :func:`~marple_gym.world.encoding.paint_grid` copies from (and
        :attr:`fur_map`, which generation does not need, with the floor's -2 made -1)."""
        rows = np.subtract(self.wall, 2, dtype=np.intp)
        for i, ((x, y), (w, h)) in enumerate(zip(self.fur_pos.tolist(), self.fur_size.tolist())):
            rows[y : y + h, x : x + w] = i
        return _read_only(rows)

    @cached_property
    def open_floor(self) -> np.ndarray:
        """(H, W) bool: room floor without furniture, and door cells (open or not)."""
        return _read_only(((self.room_map >= 0) & (self.fur_map < 0)) | np.isin(self.fur_map, self.doors))

    @cached_property
    def room_type_map(self) -> np.ndarray:
        """(H, W) uint8 room-type code per cell (0 for walls and doors)."""
        codes = np.array([ASSETS.room_code[r.type] for r in self.rooms] + [0], dtype=np.uint8)
        return _read_only(np.take(codes, self.room_map))  # room -1 reads the last code, 0 (take: a third of [])

    @cached_property
    def room_type_at(self) -> list[list[int]]:
        return self.room_type_map.tolist()

    @cached_property
    def doors(self) -> np.ndarray:
        """Indices of the furniture instances that are doors."""
        return _read_only(np.flatnonzero(self.fur_type == DOOR))

    @cached_property
    def fur_codes(self) -> np.ndarray:
        """``fur_type`` with a 0 appended, so that index -1 (no furniture) reads as code 0."""
        return _read_only(np.append(self.fur_type, 0).astype(np.int64))

    @cached_property
    def obj_codes(self) -> np.ndarray:
        """``obj_type`` with a 0 appended, so that index -1 (no object) reads as code 0."""
        return _read_only(np.append(self.obj_type, 0).astype(np.int64))

    @cached_property
    def fur_type_list(self) -> list[int]:
        return self.fur_type.tolist()

    @cached_property
    def obj_type_list(self) -> list[int]:
        return self.obj_type.tolist()

    def room_of_cell(self, x: int, y: int) -> int:
        """Room index of a cell, -1 for walls and doors."""
        return int(self.room_map[y, x])
