"""Typed house configurations, and the paper's JSON config format.

A :class:`HouseConfig` says as much or as little about a house as its author
wants; generation samples everything left unspecified. It reads two formats:

* the original benchmark's JSON (supplement Figure B.2), recognised by its
  top-level ``"Grid"`` key: ``{"Grid": {"auto": {...}, "width": .., "height": ..,
  "agents": {"num": n, "initial": [...]}, "rooms": {"num": n, "initial": [...]},
  "doors": {...}}}``;
* our own plain form, the fields of these dataclasses (``HouseConfig.to_dict``).

Every problem found raises :class:`ConfigError`, which names the offending field
by its path in the input (``Grid.rooms.initial[1].furnitures.initial[0].type``).
Counts (``num``) are totals: a room with ``"furnitures": {"num": 3, "initial":
[one]}`` gets its one piece, whatever missions need, and random pieces up to 3.
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from marple_gym.errors import MarpleError
from marple_gym.world.assets import ASSETS

SPLIT_DIRS = ("vert", "horz")


class ConfigError(MarpleError, ValueError):
    """A house configuration that is malformed or cannot be built.

    ``field`` is the path of the offending entry in the input.
    """

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}" if field else reason)
        self.field = field
        self.reason = reason


@dataclass
class ObjectSpec:
    """An object, optionally with its cell and states."""

    type: str
    pos: tuple[int, int] | None = None
    state: dict[str, bool] = field(default_factory=dict)
    name: str | None = None
    where: str = field(default="", repr=False, compare=False)


@dataclass
class FurnitureSpec:
    """A piece of furniture and the objects on or in it (``num_objects`` = total wanted)."""

    type: str
    pos: tuple[int, int] | None = None
    state: dict[str, bool] = field(default_factory=dict)
    objects: list[ObjectSpec] = field(default_factory=list)
    num_objects: int | None = None
    name: str | None = None
    where: str = field(default="", repr=False, compare=False)


@dataclass
class RoomSpec:
    """A room; ``top`` (x, y) and ``size`` (w, h) of its floor, or both None to be laid out."""

    type: str
    top: tuple[int, int] | None = None
    size: tuple[int, int] | None = None
    furniture: list[FurnitureSpec] = field(default_factory=list)
    num_furniture: int | None = None
    floor_objects: list[ObjectSpec] = field(default_factory=list)
    num_floor_objects: int | None = None
    name: str | None = None
    where: str = field(default="", repr=False, compare=False)

    @property
    def explicit(self) -> bool:
        return self.top is not None


@dataclass
class DoorSpec:
    """A door in a wall between two rooms."""

    pos: tuple[int, int]
    open: bool = True
    where: str = field(default="", repr=False, compare=False)


@dataclass
class AgentSpec:
    """An agent: where it starts and which missions it prefers."""

    name: str = "A"
    pos: tuple[int, int] | None = None
    dir: int | None = None
    color: str = "red"
    mission_preferences: dict[str, float] = field(default_factory=dict)
    where: str = field(default="", repr=False, compare=False)


@dataclass
class HouseConfig:
    """A (partial) description of a house; generation fills in the rest.

    ``furniture_per_room`` and ``objects_per_furniture`` are the inclusive ranges
    sampled when a room or a piece of furniture gives no count.
    """

    width: int = 20
    height: int = 20
    num_rooms: int | None = None
    max_num_rooms: int = 4
    min_room_dim: int = 5
    room_split_dirs: tuple[str, ...] = SPLIT_DIRS
    rooms: list[RoomSpec] = field(default_factory=list)
    doors: list[DoorSpec] | None = None
    agents: list[AgentSpec] = field(default_factory=lambda: [AgentSpec()])
    furniture_per_room: tuple[int, int] = (1, 3)
    objects_per_furniture: tuple[int, int] = (0, 3)

    # ---- construction -----------------------------------------------------
    @classmethod
    def load(cls, source: HouseConfig | dict | str | os.PathLike | None) -> HouseConfig:
        """A config from a config, a dict, a JSON string or a path to a JSON file."""
        if source is None:
            return cls()
        if isinstance(source, HouseConfig):
            return source
        if isinstance(source, dict):
            return cls.from_dict(source)
        text = str(source)
        if not text.lstrip().startswith("{"):
            path = Path(text)
            if not path.is_file():
                raise ConfigError("config", f"no such file: {path}")
            text = path.read_text()
            origin = str(path)
        else:
            origin = "config"
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(origin, f"malformed JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> HouseConfig:
        if not isinstance(data, dict):
            raise ConfigError("config", f"expected a JSON object, got {type(data).__name__}")
        config = _parse_paper(data["Grid"]) if "Grid" in data else _parse_plain(data)
        config.validate()
        return config

    def to_dict(self) -> dict[str, Any]:
        """The plain form, which :meth:`from_dict` reads back to an equal config."""
        return _plain(self)

    # ---- checks that need no generation -------------------------------------
    def validate(self) -> None:
        """Check names, numbers and positions that can be checked before building."""
        _check_int("width", self.width, 3)
        _check_int("height", self.height, 3)
        _check_int("min_room_dim", self.min_room_dim, 1)
        _check_int("max_num_rooms", self.max_num_rooms, 1)
        for d in self.room_split_dirs:
            if d not in SPLIT_DIRS:
                raise ConfigError("room_split_dirs", f"unknown split direction {d!r}; use 'vert' or 'horz'")
        if self.num_rooms is not None:
            _check_int("num_rooms", self.num_rooms, 1)
            if self.num_rooms < len(self.rooms):
                raise ConfigError("num_rooms", f"{self.num_rooms} rooms asked for but {len(self.rooms)} are listed")
        if self.rooms_wanted() > self.max_num_rooms:
            raise ConfigError("num_rooms", f"{self.rooms_wanted()} rooms exceed max_num_rooms = {self.max_num_rooms}")
        for lo, hi, name in (
            (*self.furniture_per_room, "furniture_per_room"),
            (*self.objects_per_furniture, "objects_per_furniture"),
        ):
            if not (0 <= lo <= hi):
                raise ConfigError(name, f"expected a range 0 <= low <= high, got ({lo}, {hi})")
        explicit = [r.explicit for r in self.rooms]
        if any(explicit) and not all(explicit) or (any(explicit) and self.rooms_wanted() > len(self.rooms)):
            raise ConfigError("rooms", "give top and size for every room or for none (rooms are laid out together)")
        for room in self.rooms:
            _check_room(self, room)
        for door in self.doors or []:
            _check_cell(door.where + ".pos", door.pos, self.width, self.height)
        if not self.agents:
            raise ConfigError("agents", "at least one agent is needed")
        for agent in self.agents:
            _check_agent(self, agent)

    def rooms_wanted(self) -> int:
        """How many rooms the house will have (a default of 4 when nothing says)."""
        if self.num_rooms is not None:
            return self.num_rooms
        return len(self.rooms) if self.rooms else min(4, self.max_num_rooms)


# ---- checks ---------------------------------------------------------------------


def _suggest(name: str, known) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_int(where: str, value: Any, low: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ConfigError(where, f"expected an integer >= {low}, got {value!r}")


def _check_cell(where: str, pos: Any, width: int, height: int) -> None:
    if pos is None:
        return
    x, y = pos
    if not (0 < x < width - 1 and 0 < y < height - 1):
        raise ConfigError(where, f"cell {list(pos)} is outside the {width} x {height} grid's interior")


def _check_states(where: str, kind: str, type_name: str, abilities: tuple[str, ...], state: dict) -> None:
    for name, value in state.items():
        if name not in abilities:
            have = ", ".join(abilities) or "none"
            raise ConfigError(f"{where}.state.{name}", f"{kind} {type_name!r} has no state {name!r} (it has: {have})")
        if not isinstance(value, bool):
            raise ConfigError(f"{where}.state.{name}", f"expected true or false, got {value!r}")


def _check_object(spec: ObjectSpec) -> None:
    if spec.type not in ASSETS.object_code:
        raise ConfigError(
            spec.where + ".type", f"unknown object {spec.type!r}{_suggest(spec.type, ASSETS.object_code)}"
        )
    _check_states(spec.where, "object", spec.type, ASSETS.object_type(spec.type).abilities, spec.state)


def _check_room(config: HouseConfig, room: RoomSpec) -> None:
    if room.type not in ASSETS.room_code:
        raise ConfigError(
            room.where + ".type", f"unknown room type {room.type!r}{_suggest(room.type, ASSETS.room_code)}"
        )
    if (room.top is None) != (room.size is None):
        raise ConfigError(room.where, "give both top and size, or neither")
    if room.explicit:
        (x, y), (w, h) = room.top, room.size
        if w < 1 or h < 1:
            raise ConfigError(room.where + ".size", f"room size must be positive, got {list(room.size)}")
        if x < 1 or y < 1 or x + w > config.width - 1 or y + h > config.height - 1:
            raise ConfigError(
                room.where,
                f"room at {list(room.top)} of size {list(room.size)} does not fit inside the "
                f"{config.width} x {config.height} grid's outer walls",
            )
    for fur in room.furniture:
        if fur.type not in ASSETS.furniture_code or fur.type in ("wall", "door"):
            known = [f.name for f in ASSETS.furniture]
            raise ConfigError(fur.where + ".type", f"unknown furniture {fur.type!r}{_suggest(fur.type, known)}")
        ftype = ASSETS.furniture_type(fur.type)
        _check_states(fur.where, "furniture", fur.type, ftype.abilities, fur.state)
        _check_cell(fur.where + ".pos", fur.pos, config.width, config.height)
        if fur.objects and ftype.holds is None:
            raise ConfigError(fur.where + ".objs", f"a {fur.type} holds no objects")
        for obj in fur.objects:
            _check_object(obj)
        if fur.num_objects is not None and fur.num_objects < len(fur.objects):
            raise ConfigError(
                fur.where + ".objs.num", f"num = {fur.num_objects} but {len(fur.objects)} objects are listed"
            )
    for obj in room.floor_objects:
        _check_object(obj)
        _check_cell(obj.where + ".pos", obj.pos, config.width, config.height)
    if room.num_furniture is not None and room.num_furniture < len(room.furniture):
        raise ConfigError(
            room.where + ".furnitures.num", f"num = {room.num_furniture} but {len(room.furniture)} are listed"
        )


def _check_agent(config: HouseConfig, agent: AgentSpec) -> None:
    from marple_gym.missions.mission import MISSIONS

    _check_cell(agent.where + ".pos", agent.pos, config.width, config.height)
    if agent.dir is not None and agent.dir not in (0, 1, 2, 3):
        raise ConfigError(
            agent.where + ".dir", f"direction must be 0 (east), 1 (south), 2 (west) or 3 (north), got {agent.dir!r}"
        )
    for name, weight in agent.mission_preferences.items():
        if name not in MISSIONS:
            raise ConfigError(
                f"{agent.where}.mission_preferences.{name}", f"unknown mission {name!r}{_suggest(name, MISSIONS)}"
            )
        if not isinstance(weight, (int, float)) or isinstance(weight, bool) or weight < 0:
            raise ConfigError(
                f"{agent.where}.mission_preferences.{name}", f"expected a probability >= 0, got {weight!r}"
            )
    if agent.mission_preferences and sum(agent.mission_preferences.values()) <= 0:
        raise ConfigError(agent.where + ".mission_preferences", "preferences must not all be zero")


# ---- the paper's format ---------------------------------------------------------------


class _Reader:
    """Reads one JSON object, remembering its path for error messages."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise ConfigError(where, f"expected a JSON object, got {type(data).__name__}")
        self.data = {k.lower(): v for k, v in data.items()}
        self.where = where

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key.lower(), default)

    def path(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def int(self, key: str, default: int | None = None) -> int | None:
        value = self.get(key, default)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise ConfigError(self.path(key), f"expected an integer, got {value!r}")
        return value

    def cell(self, key: str) -> tuple[int, int] | None:
        value = self.get(key)
        if value is None:
            return None
        if (
            not isinstance(value, (list, tuple))
            or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise ConfigError(self.path(key), f"expected [x, y] integers, got {value!r}")
        return int(value[0]), int(value[1])

    def states(self, key: str = "state") -> dict[str, bool]:
        value = self.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ConfigError(self.path(key), f"expected an object of state: true/false, got {value!r}")
        return {k: bool(v) if isinstance(v, int) else v for k, v in value.items()}

    def listing(self, key: str) -> tuple[int | None, list[_Reader]]:
        """A ``{"num": n, "initial": [...]}`` block: its count and its entries."""
        block = self.get(key)
        if block is None:
            return None, []
        if isinstance(block, list):  # tolerate a bare list of entries
            return None, [_Reader(e, f"{self.path(key)}[{i}]") for i, e in enumerate(block)]
        reader = _Reader(block, self.path(key))
        entries = reader.get("initial") or []
        if not isinstance(entries, list):
            raise ConfigError(reader.path("initial"), f"expected a list, got {type(entries).__name__}")
        return reader.int("num"), [_Reader(e, f"{reader.path('initial')}[{i}]") for i, e in enumerate(entries)]


def _type_name(reader: _Reader) -> str:
    value = reader.get("type")
    if not isinstance(value, str):
        raise ConfigError(reader.path("type"), f"expected a type name, got {value!r}")
    return value.replace("-", "_")


def _paper_object(r: _Reader) -> ObjectSpec:
    return ObjectSpec(_type_name(r), r.cell("pos"), r.states(), r.get("name"), r.where)


def _paper_furniture(r: _Reader) -> FurnitureSpec:
    num, objs = r.listing("objs")
    return FurnitureSpec(
        _type_name(r), r.cell("pos"), r.states(), [_paper_object(o) for o in objs], num, r.get("name"), r.where
    )


def _paper_room(r: _Reader) -> RoomSpec:
    num_fur, furs = r.listing("furnitures")
    num_floor, floor = r.listing("floor_objs")
    return RoomSpec(
        type=_type_name(r),
        top=r.cell("top"),
        size=r.cell("size"),
        furniture=[_paper_furniture(f) for f in furs],
        num_furniture=num_fur,
        floor_objects=[_paper_object(o) for o in floor],
        num_floor_objects=num_floor,
        name=r.get("name"),
        where=r.where,
    )


def _paper_agent(r: _Reader) -> AgentSpec:
    step = r.get("step_size", 1)
    if step not in (None, 1):
        raise ConfigError(r.path("step_size"), f"only step_size 1 is supported, got {step!r}")
    _, carried = r.listing("carrying")
    if carried:
        raise ConfigError(r.path("carrying"), "agents start empty-handed; initial carried objects are not supported")
    prefs = r.get("mission_preference_initial") or r.get("mission_preferences") or {}
    if not isinstance(prefs, dict):
        raise ConfigError(r.path("mission_preference_initial"), f"expected an object of mission: weight, got {prefs!r}")
    return AgentSpec(
        name=str(r.get("name") or "A"),
        pos=r.cell("pos"),
        dir=r.int("dir"),
        color=str(r.get("color") or "red"),
        mission_preferences=dict(prefs),
        where=r.where,
    )


def _paper_door(r: _Reader) -> DoorSpec:
    pos = r.cell("pos")
    if pos is None:
        raise ConfigError(r.path("pos"), "a door needs a position")
    state = r.get("state", "open")
    if state not in ("open", "closed", True, False, None):
        raise ConfigError(r.path("state"), f"expected 'open' or 'closed', got {state!r}")
    return DoorSpec(pos, state in ("open", True, None), r.where)


def _parse_paper(grid: Any) -> HouseConfig:
    g = _Reader(grid, "Grid")
    auto = _Reader(g.get("auto") or {}, g.path("auto"))
    dirs = auto.get("room_split_dirs") or list(SPLIT_DIRS)
    num_rooms, rooms = g.listing("rooms")
    _, agents = g.listing("agents")
    doors = g.get("doors")
    return HouseConfig(
        width=g.int("width", 20),
        height=g.int("height", 20),
        num_rooms=num_rooms,
        max_num_rooms=auto.int("max_num_room", 4),
        min_room_dim=auto.int("min_room_dim", 5),
        room_split_dirs=tuple(dirs),
        rooms=[_paper_room(r) for r in rooms],
        doors=None if doors is None else [_paper_door(d) for d in g.listing("doors")[1]],
        agents=[_paper_agent(a) for a in agents] or [AgentSpec(where="Grid.agents")],
    )


# ---- our plain format ---------------------------------------------------------------


def _plain_object(r: _Reader) -> ObjectSpec:
    return ObjectSpec(_type_name(r), r.cell("pos"), r.states(), r.get("name"), r.where)


def _entries(r: _Reader, key: str) -> list[_Reader]:
    value = r.get(key) or []
    if not isinstance(value, list):
        raise ConfigError(r.path(key), f"expected a list, got {type(value).__name__}")
    return [_Reader(e, f"{r.path(key)}[{i}]") for i, e in enumerate(value)]


def _parse_plain(data: dict) -> HouseConfig:
    r = _Reader(data, "")
    known = set(HouseConfig.__dataclass_fields__)
    for key in data:
        if key not in known:
            raise ConfigError(key, f"unknown field{_suggest(key, known)}; expected one of {', '.join(sorted(known))}")
    rooms = []
    for rr in _entries(r, "rooms"):
        furniture = []
        for fr in _entries(rr, "furniture"):
            furniture.append(
                FurnitureSpec(
                    _type_name(fr),
                    fr.cell("pos"),
                    fr.states(),
                    [_plain_object(o) for o in _entries(fr, "objects")],
                    fr.int("num_objects"),
                    fr.get("name"),
                    fr.where,
                )
            )
        rooms.append(
            RoomSpec(
                _type_name(rr),
                rr.cell("top"),
                rr.cell("size"),
                furniture,
                rr.int("num_furniture"),
                [_plain_object(o) for o in _entries(rr, "floor_objects")],
                rr.int("num_floor_objects"),
                rr.get("name"),
                rr.where,
            )
        )
    doors = (
        None
        if r.get("doors") is None
        else [DoorSpec(d.cell("pos"), bool(d.get("open", True)), d.where) for d in _entries(r, "doors")]
    )
    agents = [
        AgentSpec(
            str(a.get("name") or "A"),
            a.cell("pos"),
            a.int("dir"),
            str(a.get("color") or "red"),
            dict(a.get("mission_preferences") or {}),
            a.where,
        )
        for a in _entries(r, "agents")
    ]
    defaults = HouseConfig()
    return HouseConfig(
        width=r.int("width", defaults.width),
        height=r.int("height", defaults.height),
        num_rooms=r.int("num_rooms"),
        max_num_rooms=r.int("max_num_rooms", defaults.max_num_rooms),
        min_room_dim=r.int("min_room_dim", defaults.min_room_dim),
        room_split_dirs=tuple(r.get("room_split_dirs") or SPLIT_DIRS),
        rooms=rooms,
        doors=doors,
        agents=agents or [AgentSpec(where="agents")],
        furniture_per_room=tuple(r.get("furniture_per_room") or defaults.furniture_per_room),
        objects_per_furniture=tuple(r.get("objects_per_furniture") or defaults.objects_per_furniture),
    )


def _plain(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "__dataclass_fields__"):
        return {
            name: _plain(getattr(value, name))
            for name, f in value.__dataclass_fields__.items()
            if f.compare and getattr(value, name) is not None
        }
    return value
