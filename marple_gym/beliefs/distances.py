"""How many actions it takes to face a target: distances over poses (cell, direction).

A searching agent weighs places by what it costs to check them, and an observer replays its choice at
every step, so the cost is measured in actions, turns included: from pose ``(cell, direction)`` a turn costs
one action, a step forward one, a step into a closed door two (open it, then step). A backward search from
every pose that faces a target cell gives each pose its cost; a policy then takes, at its pose, an action
that lowers the cost by its own price.

The walkable cells are the planner's (:func:`marple_gym.planner.paths.passable_mask`: floor and doors, free
of objects and other agents). The costs of one set of targets depend on nothing else, so they are kept per
house (:func:`house_distances`) and shared by every agent, episode and hypothesis that asks again.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from marple_gym.planner.paths import passable_mask
from marple_gym.world.assets import OPEN_BIT
from marple_gym.world.house import House
from marple_gym.world.state import WorldState

UNREACHABLE = 1 << 20
"""The cost of a pose from which no target can be faced."""
MAX_CACHED = 4096
"""Most cost tables a house keeps (least recently used first out)."""


def pose(width: int, x: int, y: int, direction: int) -> int:
    """The flat index of a pose: ``(y * width + x) * 4 + direction``."""
    return (y * width + x) * 4 + direction


def _steps(width: int) -> tuple[int, int, int, int]:
    """The flat-cell offset of a step in each direction (0 east, 1 south, 2 west, 3 north)."""
    return (1, width, -1, -width)


def pose_costs(width: int, passable: list[bool], closed_doors: frozenset[int], targets: tuple[int, ...]) -> np.ndarray:
    """The cost in actions, from every pose, of facing one of the flat ``targets`` cells (:data:`UNREACHABLE`
    where none can be faced): a backward search from the poses facing them, turns and steps costing one
    action, a step into a closed door two."""
    steps = _steps(width)
    dist = [UNREACHABLE] * (len(passable) * 4)
    layer: list[int] = []
    for t in targets:
        for d in range(4):
            c = t - steps[d]
            if 0 <= c < len(passable) and passable[c] and dist[c * 4 + d]:
                dist[c * 4 + d] = 0
                layer.append(c * 4 + d)
    later: dict[int, list[int]] = {}  # poses two actions on (behind a closed door), by cost
    k = 0
    while layer or later:
        following: list[int] = later.pop(k + 1, [])
        for p in layer:
            if dist[p] != k:
                continue
            d = p & 3
            c = p >> 2
            for q in (p - d + ((d + 1) & 3), p - d + ((d + 3) & 3)):  # a turn at the same cell leads to p
                if dist[q] > k + 1:
                    dist[q] = k + 1
                    following.append(q)
            back = c - steps[d]  # a step forward from the cell behind leads to p
            if passable[back]:
                q = back * 4 + d
                if c in closed_doors:
                    if dist[q] > k + 2:
                        dist[q] = k + 2
                        later.setdefault(k + 2, []).append(q)
                elif dist[q] > k + 1:
                    dist[q] = k + 1
                    following.append(q)
        layer = following
        k += 1
    return np.array(dist, dtype=np.int32)


class HouseDistances:
    """The cost tables of one house, by (target cells, walkable cells): worked out once, looked up after."""

    def __init__(self, house: House) -> None:
        self.width = house.width
        self.fingerprint = house.fingerprint
        self._door_cells = [(int(y) * house.width + int(x), int(f)) for f in house.doors for x, y in [house.fur_pos[f]]]
        self._tables: OrderedDict[tuple, np.ndarray] = OrderedDict()

    def ground(self, house: House, state: WorldState, agent: int) -> Ground:
        """The walkable cells for ``agent`` in ``state`` (where it is, other agents and objects block)."""
        mask = passable_mask(house, state, agent)
        closed = frozenset(c for c, f in self._door_cells if not state.fur_state[f] & OPEN_BIT)
        return Ground(mask, closed, (mask.tobytes(), closed))

    def costs(self, ground: Ground, targets: tuple[int, ...]) -> np.ndarray:
        """:func:`pose_costs` of flat ``targets`` cells on ``ground`` (cached)."""
        key = (targets, ground.key)
        table = self._tables.get(key)
        if table is None:
            table = pose_costs(self.width, ground.passable, ground.closed_doors, targets)
            self._tables[key] = table
            if len(self._tables) > MAX_CACHED:
                self._tables.popitem(last=False)
        else:
            self._tables.move_to_end(key)
        return table


class Ground:
    """Where an agent can walk in one state: the walkable cells, the closed doors, and a key for both."""

    __slots__ = ("mask", "closed_doors", "key", "_passable")

    def __init__(self, mask: np.ndarray, closed_doors: frozenset[int], key: tuple) -> None:
        self.mask = mask
        self.closed_doors = closed_doors
        self.key = key
        self._passable: list[bool] | None = None

    @property
    def passable(self) -> list[bool]:
        """The walkable cells, flat (``y * width + x``)."""
        if self._passable is None:
            self._passable = self.mask.ravel().tolist()
        return self._passable


_HOUSES: OrderedDict[str, HouseDistances] = OrderedDict()
_MAX_HOUSES = 32


def house_distances(house: House) -> HouseDistances:
    """The shared cost tables of ``house`` (by fingerprint: a rebuilt copy of a house shares them)."""
    table = _HOUSES.get(house.fingerprint)
    if table is None:
        table = _HOUSES[house.fingerprint] = HouseDistances(house)
        if len(_HOUSES) > _MAX_HOUSES:
            _HOUSES.popitem(last=False)
    else:
        _HOUSES.move_to_end(house.fingerprint)
    return table
