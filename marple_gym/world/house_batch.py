"""The house tables the batched rules read, for one house or for a stack of houses of equal shapes.

The batched rules (:mod:`marple_gym.world.batch`) look up, per episode, the
furniture on a cell, the type codes of furniture and objects, the room type of a
cell and the cells of a piece of furniture. A :class:`HouseBatch` holds those
tables flattened, either for one :class:`House` that every episode shares or
for ``N`` houses, one per episode, stacked. Both answer the same lookups, so
one code path steps a batch of one house and a batch of different houses:

* a cell lookup takes the cell's index in its house (``y * W + x``) and its
  index in the batch (``episode * H * W + y * W + x``); a shared house reads the
  first, a stack the second;
* a code lookup takes the episodes and the instance indices (-1: none, which
  reads code 0).

Houses stack when the rules see arrays of equal shapes: grid size, number of
furniture instances (doors included), objects and agents.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from marple_gym.errors import MarpleError
from marple_gym.world.house import House


class HouseShapeError(MarpleError, ValueError):
    """Houses of different shapes were put in one batch."""


@dataclass(frozen=True, eq=False)
class HouseBatch:
    """Flattened rule tables of one shared house (``shared``) or of one house per episode.

    ``fur_map`` and ``room_type`` are indexed by cell, ``fur_codes`` and
    ``obj_codes`` by instance (each house's table ends with a 0, the code of
    instance -1), ``fur_cells`` gives each furniture instance's cells (padded by
    repeating its first cell).
    """

    houses: tuple[House, ...]
    shared: bool
    width: int
    height: int
    fur_map: np.ndarray  # (B * H * W,) int64 furniture instance per cell, -1 where none
    room_type: np.ndarray  # (B * H * W,) int64 room type code per cell
    fur_codes: np.ndarray  # (B * (n_fur + 1),) int64
    obj_codes: np.ndarray  # (B * (n_obj + 1),) int64
    fur_cells: np.ndarray  # (B * n_fur, K) int64 cell indices within the house

    @classmethod
    def of(cls, houses: House | HouseBatch | Sequence[House]) -> HouseBatch:
        """The tables of one shared house (cached per house) or of a sequence of houses, one per episode."""
        if isinstance(houses, HouseBatch):
            return houses
        if isinstance(houses, House):
            tables = _SHARED.get(houses)
            if tables is None:
                tables = _SHARED[houses] = cls._build((houses,), shared=True)
            return tables
        houses = tuple(houses)
        if not houses:
            raise HouseShapeError("a house batch needs at least one house")
        check_same_shape(houses)
        return cls._build(houses, shared=False)

    @classmethod
    def _build(cls, houses: tuple[House, ...], shared: bool) -> HouseBatch:
        first = houses[0]
        width = max(1, max((int(s[0]) * int(s[1]) for s in first.fur_size.tolist()), default=1))
        cells = np.zeros((len(houses), first.num_furniture, width), dtype=np.int64)
        for h, house in enumerate(houses):
            for i, (ys, xs) in enumerate(house.fur_cells):
                flat = ys * house.width + xs
                cells[h, i] = np.resize(flat, width)  # pads by repeating: writing a cell twice is harmless
        return cls(
            houses=houses,
            shared=shared,
            width=first.width,
            height=first.height,
            fur_map=np.concatenate([h.fur_map.ravel() for h in houses]).astype(np.int64),
            room_type=np.concatenate([h.room_type_map.ravel() for h in houses]).astype(np.int64),
            fur_codes=np.concatenate([h.fur_codes for h in houses]),
            obj_codes=np.concatenate([h.obj_codes for h in houses]),
            fur_cells=cells.reshape(-1, width),
        )

    def __len__(self) -> int:
        return len(self.houses)

    @property
    def num_cells(self) -> int:
        return self.width * self.height

    @property
    def num_furniture(self) -> int:
        return len(self.fur_codes) // len(self.houses) - 1

    @property
    def num_objects(self) -> int:
        return len(self.obj_codes) // len(self.houses) - 1

    def house(self, episode: int) -> House:
        """The house of episode ``episode``."""
        return self.houses[0] if self.shared else self.houses[episode]

    def check_episodes(self, n: int) -> None:
        """Raise unless these tables can serve a batch of ``n`` episodes."""
        if not self.shared and len(self.houses) != n:
            raise HouseShapeError(f"a batch of {n} episodes needs {n} houses, got {len(self.houses)}")

    def cell(self, local: np.ndarray, flat: np.ndarray) -> np.ndarray:
        """Which table row serves each cell: its index within the house, or within the batch for a stack."""
        return local if self.shared else flat

    def fur_code(self, rows: np.ndarray, fur: np.ndarray) -> np.ndarray:
        """Type code of furniture instance ``fur`` (-1: none, code 0) in the houses of episodes ``rows``."""
        if self.shared:
            return self.fur_codes[fur]
        # Index -1 of episode r's table lands on the 0 that ends the table of episode r - 1 (of the last for r = 0).
        return self.fur_codes[rows * (self.num_furniture + 1) + fur]

    def obj_code(self, rows: np.ndarray, obj: np.ndarray) -> np.ndarray:
        """Type code of object ``obj`` (-1: none, code 0) in the houses of episodes ``rows``."""
        if self.shared:
            return self.obj_codes[obj]
        return self.obj_codes[rows * (self.num_objects + 1) + obj]

    def room_type_at(self, rows: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Room type code of cell (x, y) in the houses of episodes ``rows`` (0 on walls and doors)."""
        local = y * self.width + x
        return self.room_type[local if self.shared else rows * self.num_cells + local]

    def cells_of(self, rows: np.ndarray, fur: np.ndarray) -> np.ndarray:
        """(len(rows), K) cell indices (within the house) of furniture instance ``fur`` (>= 0) of each episode."""
        if self.shared:
            return self.fur_cells[fur]
        return self.fur_cells[rows * self.num_furniture + fur]


def check_same_shape(houses: Sequence[House]) -> None:
    """Raise :class:`HouseShapeError` naming the first shape in which a house differs from the first."""
    first = houses[0]

    def shape(house: House) -> dict[str, object]:
        return {
            "grid size (width, height)": (house.width, house.height),
            "furniture count (doors included)": house.num_furniture,
            "object count": house.num_objects,
            "agent count": house.num_agents,
        }

    want = shape(first)
    for i, house in enumerate(houses[1:], start=1):
        for name, value in shape(house).items():
            if value != want[name]:
                raise HouseShapeError(
                    f"houses of different shapes cannot share a batch: house {i} has {name} {value}, "
                    f"house 0 has {want[name]}"
                )


_SHARED: weakref.WeakKeyDictionary[House, HouseBatch] = weakref.WeakKeyDictionary()
"""The tables of each shared house, built on first use and dropped with the house."""
