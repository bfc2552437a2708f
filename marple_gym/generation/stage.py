"""Stages: the set of one short episode, built and rebuilt with obstacles placed, moved or taken away.

A :class:`Stage` names everything about one episode's house explicitly: the
rooms (rectangles of floor; every other cell is wall), the doors, static
furniture, obstacles (1 x 1 pieces of furniture, chairs by default, that block
the way), the objects lying on the floor, the agent's starting pose, and the
cells an onlooker cannot see (an occluder in front of them). Stages are values:
placing or removing an obstacle between two episodes is a new stage
(:meth:`Stage.with_obstacles`, :meth:`Stage.without_obstacles`), and
:meth:`Stage.world` builds its world through the house generator from a fully
explicit config, so the same stage always gives the same world.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np

from marple_gym.evidence.visibility import Visibility
from marple_gym.generation.generator import generate_world
from marple_gym.world.assets import ASSETS
from marple_gym.world.house import House
from marple_gym.world.world import World

Cell = tuple[int, int]


@dataclass(frozen=True)
class StageRoom:
    """A room's type and floor rectangle: ``top`` (x, y) its top-left floor cell, ``size`` (w, h)."""

    type: str
    top: Cell
    size: Cell

    def contains(self, cell: Cell) -> bool:
        (x, y), (w, h) = self.top, self.size
        return x <= cell[0] < x + w and y <= cell[1] < y + h


@dataclass(frozen=True)
class Stage:
    """One episode's house, obstacles, objects, starting pose and occluder (see module docs).

    ``furniture`` lists static pieces as (type, top-left cell); ``obstacles`` the
    cells of 1 x 1 obstacle pieces of type ``obstacle_type``; ``objects`` the
    objects on the floor as (type, cell); ``agent`` is (x, y, heading);
    ``occluder`` the cells hidden from an onlooker.
    """

    width: int
    height: int
    rooms: tuple[StageRoom, ...]
    doors: tuple[Cell, ...] = ()
    furniture: tuple[tuple[str, Cell], ...] = ()
    obstacles: tuple[Cell, ...] = ()
    objects: tuple[tuple[str, Cell], ...] = ()
    agent: tuple[int, int, int] = (1, 1, 0)
    occluder: tuple[Cell, ...] = ()
    obstacle_type: str = "chair"

    def __post_init__(self) -> None:
        def cells(values: Iterable[Any]) -> tuple[Cell, ...]:
            return tuple((int(x), int(y)) for x, y in values)

        object.__setattr__(self, "rooms", tuple(self.rooms))
        object.__setattr__(self, "doors", cells(self.doors))
        object.__setattr__(self, "furniture", tuple((str(t), cells([c])[0]) for t, c in self.furniture))
        object.__setattr__(self, "obstacles", tuple(sorted(set(cells(self.obstacles)))))
        object.__setattr__(self, "objects", tuple((str(t), cells([c])[0]) for t, c in self.objects))
        object.__setattr__(self, "agent", tuple(int(v) for v in self.agent))
        object.__setattr__(self, "occluder", tuple(sorted(set(cells(self.occluder)))))
        unknown = [t for t, _ in self.objects if t not in ASSETS.object_code]
        if unknown:
            raise ValueError(f"unknown object types {unknown}")
        if self.obstacle_type not in ASSETS.furniture_code or ASSETS.furniture_type(self.obstacle_type).width != 1:
            raise ValueError(f"obstacle_type must be a 1 x 1 piece of furniture, got {self.obstacle_type!r}")
        for what, cell in [("obstacle", c) for c in self.obstacles] + [("object", c) for _, c in self.objects]:
            if self.room_of(cell) is None:
                raise ValueError(f"{what} at {cell} is not on a room's floor")
        taken = [c for c in self.obstacles if c in {o for _, o in self.objects} or c == self.agent[:2]]
        if taken:
            raise ValueError(f"obstacles at {taken} share a cell with an object or the agent")

    # ---- changing the set ---------------------------------------------------------------------------------------
    def with_obstacles(self, cells: Iterable[Cell]) -> Stage:
        """This stage with obstacles added at ``cells``."""
        return replace(self, obstacles=self.obstacles + tuple(cells))

    def without_obstacles(self, cells: Iterable[Cell] | None = None) -> Stage:
        """This stage with the obstacles at ``cells`` taken away (all of them by default)."""
        gone = None if cells is None else {(int(x), int(y)) for x, y in cells}
        return replace(self, obstacles=() if gone is None else tuple(c for c in self.obstacles if c not in gone))

    def with_objects(self, objects: Iterable[tuple[str, Cell]]) -> Stage:
        """This stage with exactly ``objects`` on the floor."""
        return replace(self, objects=tuple(objects))

    def with_agent(self, pose: tuple[int, int, int]) -> Stage:
        return replace(self, agent=pose)

    def with_occluder(self, cells: Iterable[Cell]) -> Stage:
        """This stage with ``cells`` hidden from an onlooker (none: no occluder)."""
        return replace(self, occluder=tuple(cells))

    def room_of(self, cell: Cell) -> int | None:
        """The index of the room whose floor holds ``cell`` (None: a wall or a door)."""
        return next((i for i, r in enumerate(self.rooms) if r.contains(cell)), None)

    # ---- building it --------------------------------------------------------------------------------------------
    def config(self) -> dict[str, Any]:
        """The fully explicit house config of this stage (the house generator's plain form)."""
        rooms = []
        for i, room in enumerate(self.rooms):
            pieces = [(t, c) for t, c in self.furniture if self.room_of(c) == i]
            pieces += [(self.obstacle_type, c) for c in self.obstacles if self.room_of(c) == i]
            floor = [{"type": t, "pos": list(c)} for t, c in self.objects if self.room_of(c) == i]
            rooms.append(
                {
                    "type": room.type,
                    "top": list(room.top),
                    "size": list(room.size),
                    "furniture": [{"type": t, "pos": list(c), "objects": [], "num_objects": 0} for t, c in pieces],
                    "num_furniture": len(pieces),
                    "floor_objects": floor,
                    "num_floor_objects": len(floor),
                }
            )
        x, y, d = self.agent
        return {
            "width": self.width,
            "height": self.height,
            "rooms": rooms,
            "doors": [{"pos": list(c)} for c in self.doors],
            "agents": [{"name": "agent", "pos": [x, y], "dir": d}],
        }

    @property
    def _built(self) -> World:
        return _build(self)

    def world(self) -> World:
        """A new world of this stage (its house is built once and shared by equal stages; the state is a fresh
        copy)."""
        built = self._built
        return World(built.house, built.state.copy())

    @property
    def house(self) -> House:
        return self._built.house

    @staticmethod
    def object_types(house: House) -> list[str]:
        return [ASSETS.object_names[int(c)] for c in house.obj_type]

    def visibility(self) -> Visibility:
        """What an onlooker sees of this stage: everything but the occluder's cells."""
        return Visibility.hiding(self.house, self.occluder)

    # ---- plain form ---------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form that :meth:`from_dict` reads back to an equal stage."""
        return {
            "width": self.width,
            "height": self.height,
            "rooms": [{"type": r.type, "top": list(r.top), "size": list(r.size)} for r in self.rooms],
            "doors": [list(c) for c in self.doors],
            "furniture": [{"type": t, "pos": list(c)} for t, c in self.furniture],
            "obstacle_type": self.obstacle_type,
            "obstacles": [list(c) for c in self.obstacles],
            "objects": [{"type": t, "pos": list(c)} for t, c in self.objects],
            "agent": list(self.agent),
            "occluder": [list(c) for c in self.occluder],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Stage:
        """The stage of :meth:`to_dict`'s form (KeyError or ValueError on a malformed one)."""
        return cls(
            width=int(data["width"]),
            height=int(data["height"]),
            rooms=tuple(StageRoom(r["type"], tuple(r["top"]), tuple(r["size"])) for r in data["rooms"]),
            doors=tuple(tuple(c) for c in data["doors"]),
            furniture=tuple((f["type"], tuple(f["pos"])) for f in data["furniture"]),
            obstacles=tuple(tuple(c) for c in data["obstacles"]),
            objects=tuple((o["type"], tuple(o["pos"])) for o in data["objects"]),
            agent=tuple(data["agent"]),
            occluder=tuple(tuple(c) for c in data["occluder"]),
            obstacle_type=data["obstacle_type"],
        )


@lru_cache(maxsize=512)
def _build(stage: Stage) -> World:
    """The world of ``stage``, built once per distinct stage (trials rebuild the same stage several times)."""
    world = generate_world(stage.config(), np.random.default_rng(0))  # explicit: nothing is left to chance
    placed = {(t, tuple(world.state.obj_pos[i].tolist())) for i, t in enumerate(Stage.object_types(world.house))}
    if placed != set(stage.objects):
        raise ValueError(f"the house generator did not place the stage's objects as asked: {sorted(placed)}")
    return world
