"""Typed house configurations: what a house is to be, as much or as little as its author says.

A :class:`HouseConfig` says as much or as little about a house as its author
wants; generation samples everything left unspecified. It reads two formats
(:mod:`marple_gym.generation.config_reader`, one reader generated from these dataclasses' fields):

* the original benchmark's JSON (supplement Figure B.2), recognised by its
  top-level ``"Grid"`` key: ``{"Grid": {"auto": {...}, "width": .., "height": ..,
  "agents": {"num": n, "initial": [...]}, "rooms": {"num": n, "initial": [...]},
  "doors": {...}}}``;
* our own plain form, the fields of these dataclasses (``HouseConfig.to_dict``).

Each field is defined once (:func:`~marple_gym.generation.config_reader.config_field`: its type, default, bounds
and where the paper's format keeps it). Every problem found, on reading or by :meth:`HouseConfig.validate`, raises
:class:`HouseConfigError`, which names the offending field by its path in the input
(``Grid.rooms.initial[1].furnitures.initial[0].type``). Counts (``num``) are totals: a room with ``"furnitures":
{"num": 3, "initial": [one]}`` gets its one piece, whatever missions need, and random pieces up to 3.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from marple_gym.errors import MarpleError
from marple_gym.generation.config_reader import (
    MAX_ITEMS,
    PaperFormat,
    block_entries,
    config_field,
    plain,
    read_spec,
    where_field,
)
from marple_gym.missions.mission import MISSIONS
from marple_gym.validation import Fields, describe, did_you_mean, is_int, is_number, parse_json, read_json_file
from marple_gym.world.assets import ASSETS

SPLIT_DIRS = ("vert", "horz")
MAX_GRID_SIDE = 128
"""Widest and tallest grid: positions are int16 and shards index cells with int16 (128 x 128 < 2**15)."""
MAX_OBJECTS = MAX_ITEMS
"""Most objects in a house: the vision grid's object-id channel is uint8 (id = index + 1, 0 = none)."""
MAX_AGENTS = 255
"""Most agents: the agent-id channel is uint8 as well."""


class HouseConfigError(MarpleError, ValueError):
    """A house configuration that is malformed or cannot be built.

    ``field`` is the path of the offending entry in the input, ``file`` the
    config file it was read from (None for a dict or a JSON string).
    """

    def __init__(self, field: str, reason: str, file: str | None = None) -> None:
        super().__init__(": ".join(p for p in (file, field, reason) if p))
        self.field = field
        self.reason = reason
        self.file = file

    def in_file(self, file: str | None) -> HouseConfigError:
        """The same error, naming ``file``."""
        return self if file is None or self.file else HouseConfigError(self.field, self.reason, file)


@dataclass
class ObjectSpec:
    """An object, optionally with its cell and states."""

    type: str = config_field()
    pos: tuple[int, int] | None = config_field(None)
    state: dict[str, bool] = config_field(factory=dict)
    name: str | None = config_field(None)
    where: str = where_field()


@dataclass
class FurnitureSpec:
    """A piece of furniture and the objects on or in it (``num_objects`` = total wanted)."""

    type: str = config_field()
    pos: tuple[int, int] | None = config_field(None)
    state: dict[str, bool] = config_field(factory=dict)
    objects: list[ObjectSpec] = config_field(factory=list, paper="objs.initial")
    num_objects: int | None = config_field(None, paper="objs.num", low=0, high=MAX_OBJECTS)
    name: str | None = config_field(None)
    where: str = where_field()


@dataclass
class RoomSpec:
    """A room; ``top`` (x, y) and ``size`` (w, h) of its floor, or both None to be laid out."""

    type: str = config_field()
    top: tuple[int, int] | None = config_field(None)
    size: tuple[int, int] | None = config_field(None)
    furniture: list[FurnitureSpec] = config_field(factory=list, paper="furnitures.initial")
    num_furniture: int | None = config_field(None, paper="furnitures.num", low=0, high=MAX_OBJECTS)
    floor_objects: list[ObjectSpec] = config_field(factory=list, paper="floor_objs.initial")
    num_floor_objects: int | None = config_field(None, paper="floor_objs.num", low=0, high=MAX_OBJECTS)
    name: str | None = config_field(None)
    where: str = where_field()

    @property
    def explicit(self) -> bool:
        return self.top is not None


@dataclass
class DoorSpec:
    """A door in a wall between two rooms."""

    pos: tuple[int, int] = config_field(missing="a door needs a position")
    open: bool = config_field(True, paper="state")  # the paper writes "open" or "closed"
    where: str = where_field()


@dataclass
class AgentSpec:
    """An agent: where it starts and which missions it prefers."""

    name: str = config_field("A")
    pos: tuple[int, int] | None = config_field(None)
    dir: int | None = config_field(None)
    color: str = config_field("red")
    mission_preferences: dict[str, float] = config_field(
        factory=dict, paper=("mission_preference_initial", "mission_preferences")
    )
    where: str = where_field()


@dataclass
class HouseConfig:
    """A (partial) description of a house; generation fills in the rest.

    ``furniture_per_room`` and ``objects_per_furniture`` are the inclusive ranges
    sampled when a room or a piece of furniture gives no count.
    """

    width: int = config_field(20, low=3, high=MAX_GRID_SIDE)
    height: int = config_field(20, low=3, high=MAX_GRID_SIDE)
    num_rooms: int | None = config_field(None, paper="rooms.num")  # its bound depends on the grid: see validate
    max_num_rooms: int = config_field(4, paper="auto.max_num_room", low=1)
    min_room_dim: int = config_field(5, paper="auto.min_room_dim", low=1, high=MAX_GRID_SIDE)
    room_split_dirs: tuple[str, ...] = config_field(
        SPLIT_DIRS, paper="auto.room_split_dirs", choices=SPLIT_DIRS, what="split direction"
    )
    rooms: list[RoomSpec] = config_field(factory=list, paper="rooms.initial")
    doors: list[DoorSpec] | None = config_field(None, paper="doors.initial", max_len=None)
    agents: list[AgentSpec] = config_field(factory=lambda: [AgentSpec()], paper="agents.initial", max_len=MAX_AGENTS)
    furniture_per_room: tuple[int, int] = config_field((1, 3), paper=None)
    objects_per_furniture: tuple[int, int] = config_field((0, 3), paper=None)

    # ---- construction -----------------------------------------------------
    @classmethod
    def load(cls, source: HouseConfig | dict | str | os.PathLike | None) -> HouseConfig:
        """A config from a config, a dict, a JSON string or a path to a JSON file."""
        if source is None:
            return cls()
        if isinstance(source, HouseConfig):
            source.validate()
            return source
        if isinstance(source, Mapping):
            return cls.from_dict(source)
        if isinstance(source, str) and source.lstrip().startswith("{"):
            return cls.from_dict(parse_json(source, None, _config_error))
        if not isinstance(source, str | os.PathLike):
            raise HouseConfigError(
                "config",
                f"expected a path to a JSON file, a JSON string, a dict or a HouseConfig, got {type(source).__name__}",
            )
        path = os.fsdecode(os.fspath(source))
        return cls.from_dict(read_json_file(path, _config_error, "file"), file=path)

    @classmethod
    def from_dict(cls, data: Any, file: str | None = None) -> HouseConfig:
        """A config from either format's JSON document; errors name ``file`` when given."""
        try:
            top = Fields(data, "", _config_error, file)
            if "Grid" in top.data:
                top.allow(("Grid",))
                config = read_spec(cls, top.fields("Grid").folded(), PAPER_FORMAT)
            else:
                config = read_spec(cls, top, None)
            config.validate()
        except HouseConfigError as exc:
            raise exc.in_file(file) from None
        return config

    def to_dict(self) -> dict[str, Any]:
        """The plain form, which :meth:`from_dict` reads back to an equal config."""
        return plain(self)

    # ---- checks that need no generation -------------------------------------
    def validate(self) -> None:
        """Check names, numbers and positions that can be checked before building."""
        for name, low, high in _bounded(type(self)):  # the bounds the reader checks, for a config built in Python
            if getattr(self, name) is not None:
                _check_int(name, getattr(self, name), low, high)
        for d in self.room_split_dirs:
            if d not in SPLIT_DIRS:
                raise HouseConfigError(
                    "room_split_dirs", f"unknown split direction {describe(d)}; use 'vert' or 'horz'"
                )
        if self.num_rooms is not None:
            # Every room needs a floor cell and walls: at most one room per 2 x 2 block of the interior.
            _check_int("num_rooms", self.num_rooms, 1, ((self.width - 1) // 2) * ((self.height - 1) // 2))
            if self.num_rooms < len(self.rooms):
                raise HouseConfigError(
                    "num_rooms", f"{self.num_rooms} rooms asked for but {len(self.rooms)} are listed"
                )
        if self.rooms_wanted() > self.max_num_rooms:
            raise HouseConfigError(
                "num_rooms", f"{self.rooms_wanted()} rooms exceed max_num_rooms = {self.max_num_rooms}"
            )
        for name in ("furniture_per_room", "objects_per_furniture"):
            _check_range(name, getattr(self, name))
        if len(self.agents) > MAX_AGENTS:
            raise HouseConfigError("agents", f"{len(self.agents)} agents exceed the limit of {MAX_AGENTS}")
        if self.objects_listed() > MAX_OBJECTS:
            raise HouseConfigError(
                "rooms", f"{self.objects_listed()} objects are asked for; a house holds at most {MAX_OBJECTS}"
            )
        explicit = [r.explicit for r in self.rooms]
        if any(explicit) and not all(explicit) or (any(explicit) and self.rooms_wanted() > len(self.rooms)):
            raise HouseConfigError(
                "rooms", "give top and size for every room or for none (rooms are laid out together)"
            )
        for room in self.rooms:
            _check_room(self, room)
        for door in self.doors or []:
            _check_cell(door.where + ".pos", door.pos, self.width, self.height)
        if not self.agents:
            raise HouseConfigError("agents", "at least one agent is needed")
        for agent in self.agents:
            _check_agent(self, agent)

    def objects_listed(self) -> int:
        """The fewest objects the house will hold: those listed, or the counts given where larger."""
        total = 0
        for room in self.rooms:
            total += max(len(room.floor_objects), room.num_floor_objects or 0)
            total += sum(max(len(f.objects), f.num_objects or 0) for f in room.furniture)
        return total

    def rooms_wanted(self) -> int:
        """How many rooms the house will have (a default of 4 when nothing says)."""
        if self.num_rooms is not None:
            return self.num_rooms
        return len(self.rooms) if self.rooms else min(4, self.max_num_rooms)


# ---- checks ---------------------------------------------------------------------


def _suggest(name: str, known) -> str:
    close = did_you_mean(name, known)
    return f" ({close[2:]})" if close else ""


def _check_int(where: str, value: Any, low: int, high: int | None = None) -> None:
    if not is_int(value) or value < low or (high is not None and value > high):
        bound = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise HouseConfigError(where, f"expected an integer {bound}, got {describe(value)}")


def _check_range(where: str, value: Any) -> None:
    """A (low, high) pair of counts with 0 <= low <= high <= MAX_OBJECTS."""
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(is_int(v) for v in value):
        raise HouseConfigError(where, f"expected [low, high] integers, got {describe(value)}")
    lo, hi = value
    if not (0 <= lo <= hi <= MAX_OBJECTS):
        raise HouseConfigError(where, f"expected a range 0 <= low <= high <= {MAX_OBJECTS}, got ({lo}, {hi})")


def _check_cell(where: str, pos: Any, width: int, height: int) -> None:
    if pos is None:
        return
    if not isinstance(pos, list | tuple) or len(pos) != 2 or not all(is_int(v) for v in pos):
        raise HouseConfigError(where, f"expected [x, y] integers, got {describe(pos)}")
    x, y = pos
    if not (0 < x < width - 1 and 0 < y < height - 1):
        raise HouseConfigError(where, f"cell {list(pos)} is outside the {width} x {height} grid's interior")


def _check_states(where: str, kind: str, type_name: str, abilities: tuple[str, ...], state: dict) -> None:
    for name, value in state.items():
        if name not in abilities:
            have = ", ".join(abilities) or "none"
            raise HouseConfigError(
                f"{where}.state.{name}", f"{kind} {type_name!r} has no state {name!r} (it has: {have})"
            )
        if not isinstance(value, bool):
            raise HouseConfigError(f"{where}.state.{name}", f"expected true or false, got {value!r}")


def _check_object(spec: ObjectSpec) -> None:
    if spec.type not in ASSETS.object_code:
        raise HouseConfigError(
            spec.where + ".type", f"unknown object {spec.type!r}{_suggest(spec.type, ASSETS.object_code)}"
        )
    _check_states(spec.where, "object", spec.type, ASSETS.object_type(spec.type).abilities, spec.state)


def _check_room(config: HouseConfig, room: RoomSpec) -> None:
    if room.type not in ASSETS.room_code:
        raise HouseConfigError(
            room.where + ".type", f"unknown room type {room.type!r}{_suggest(room.type, ASSETS.room_code)}"
        )
    if (room.top is None) != (room.size is None):
        raise HouseConfigError(room.where, "give both top and size, or neither")
    if room.explicit:
        (x, y), (w, h) = room.top, room.size
        if w < 1 or h < 1:
            raise HouseConfigError(room.where + ".size", f"room size must be positive, got {list(room.size)}")
        if x < 1 or y < 1 or x + w > config.width - 1 or y + h > config.height - 1:
            raise HouseConfigError(
                room.where,
                f"room at {list(room.top)} of size {list(room.size)} does not fit inside the "
                f"{config.width} x {config.height} grid's outer walls",
            )
    for fur in room.furniture:
        if fur.type not in ASSETS.furniture_code or fur.type in ("wall", "door"):
            known = [f.name for f in ASSETS.furniture]
            raise HouseConfigError(fur.where + ".type", f"unknown furniture {fur.type!r}{_suggest(fur.type, known)}")
        ftype = ASSETS.furniture_type(fur.type)
        _check_states(fur.where, "furniture", fur.type, ftype.abilities, fur.state)
        _check_cell(fur.where + ".pos", fur.pos, config.width, config.height)
        if fur.objects and ftype.holds is None:
            raise HouseConfigError(fur.where + ".objs", f"a {fur.type} holds no objects")
        for obj in fur.objects:
            _check_object(obj)
        if fur.num_objects is not None and fur.num_objects < len(fur.objects):
            raise HouseConfigError(
                fur.where + ".objs.num", f"num = {fur.num_objects} but {len(fur.objects)} objects are listed"
            )
    for obj in room.floor_objects:
        _check_object(obj)
        _check_cell(obj.where + ".pos", obj.pos, config.width, config.height)
    if room.num_furniture is not None and room.num_furniture < len(room.furniture):
        raise HouseConfigError(
            room.where + ".furnitures.num", f"num = {room.num_furniture} but {len(room.furniture)} are listed"
        )


def _check_agent(config: HouseConfig, agent: AgentSpec) -> None:
    _check_cell(agent.where + ".pos", agent.pos, config.width, config.height)
    if agent.dir is not None and agent.dir not in (0, 1, 2, 3):
        raise HouseConfigError(
            agent.where + ".dir", f"direction must be 0 (east), 1 (south), 2 (west) or 3 (north), got {agent.dir!r}"
        )
    for name, weight in agent.mission_preferences.items():
        if name not in MISSIONS:
            raise HouseConfigError(
                f"{agent.where}.mission_preferences.{name}", f"unknown mission {name!r}{_suggest(name, MISSIONS)}"
            )
        if not is_number(weight) or weight < 0:
            raise HouseConfigError(
                f"{agent.where}.mission_preferences.{name}", f"expected a finite weight >= 0, got {describe(weight)}"
            )
    if agent.mission_preferences and sum(agent.mission_preferences.values()) <= 0:
        raise HouseConfigError(agent.where + ".mission_preferences", "preferences must not all be zero")


# ---- the paper's format: what it holds besides the fields ------------------------------------------------


def _check_paper_agent(f: Fields) -> None:
    """The paper's agent attributes this generator cannot honour are refused rather than ignored."""
    if f.int("step_size", 1) != 1:
        raise f.fail("step_size", f"only step_size 1 is supported, got {f.get('step_size')!r}")
    if block_entries(f, "carrying"):
        raise f.fail("carrying", "agents start empty-handed; initial carried objects are not supported")


PAPER_FORMAT = PaperFormat(
    # Keys of the paper's format that the generator does not use (ids, the agents' count and their other
    # attributes): allowed and ignored, where anything else is refused as a likely misspelling.
    ignored={
        ObjectSpec: {"": ("id",)},
        FurnitureSpec: {"": ("id",)},
        RoomSpec: {"": ("id",)},
        DoorSpec: {"": ("type", "name", "id", "dir")},
        AgentSpec: {"": ("id", "gender", "step_size", "forgetness", "carrying", "cur_mission", "cur_subgoal")},
        HouseConfig: {"auto": ("max_num_agent",), "agents": ("num",)},
    },
    checks={AgentSpec: _check_paper_agent},
)


def _config_error(file: str | None, field: str, reason: str) -> HouseConfigError:
    return HouseConfigError(field, reason, file)


@functools.cache
def _bounded(spec: type) -> tuple[tuple[str, int, int | None], ...]:
    """(name, low, high) of each field with integer bounds (every reset validates its config: list them once)."""
    return tuple((f.name, f.metadata["low"], f.metadata["high"]) for f in fields(spec) if f.metadata["low"] is not None)
