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

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from marple_gym.errors import MarpleError
from marple_gym.validation import Fields, describe, did_you_mean, is_int, is_number, parse_json, read_json_file
from marple_gym.world.assets import ASSETS

SPLIT_DIRS = ("vert", "horz")
MAX_GRID_SIDE = 128
"""Widest and tallest grid: positions are int16 and shards index cells with int16 (128 x 128 < 2**15)."""
MAX_OBJECTS = 255
"""Most objects in a house: the vision grid's object-id channel is uint8 (id = index + 1, 0 = none)."""
MAX_AGENTS = 255
"""Most agents: the agent-id channel is uint8 as well."""


class ConfigError(MarpleError, ValueError):
    """A house configuration that is malformed or cannot be built.

    ``field`` is the path of the offending entry in the input, ``file`` the
    config file it was read from (None for a dict or a JSON string).
    """

    def __init__(self, field: str, reason: str, file: str | None = None) -> None:
        super().__init__(": ".join(p for p in (file, field, reason) if p))
        self.field = field
        self.reason = reason
        self.file = file

    def in_file(self, file: str | None) -> ConfigError:
        """The same error, naming ``file``."""
        return self if file is None or self.file else ConfigError(self.field, self.reason, file)


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
            source.validate()
            return source
        if isinstance(source, Mapping):
            return cls.from_dict(source)
        if isinstance(source, str) and source.lstrip().startswith("{"):
            return cls.from_dict(parse_json(source, None, _config_error))
        if not isinstance(source, str | os.PathLike):
            raise ConfigError(
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
                top.allow(PAPER_KEYS["top"])
                config = _parse_paper(top.fields("Grid").folded())
            else:
                config = _parse_plain(top)
            config.validate()
        except ConfigError as exc:
            raise exc.in_file(file) from None
        return config

    def to_dict(self) -> dict[str, Any]:
        """The plain form, which :meth:`from_dict` reads back to an equal config."""
        return _plain(self)

    # ---- checks that need no generation -------------------------------------
    def validate(self) -> None:
        """Check names, numbers and positions that can be checked before building."""
        _check_int("width", self.width, 3, MAX_GRID_SIDE)
        _check_int("height", self.height, 3, MAX_GRID_SIDE)
        _check_int("min_room_dim", self.min_room_dim, 1, MAX_GRID_SIDE)
        _check_int("max_num_rooms", self.max_num_rooms, 1)
        for d in self.room_split_dirs:
            if d not in SPLIT_DIRS:
                raise ConfigError("room_split_dirs", f"unknown split direction {describe(d)}; use 'vert' or 'horz'")
        if self.num_rooms is not None:
            # Every room needs a floor cell and walls: at most one room per 2 x 2 block of the interior.
            _check_int("num_rooms", self.num_rooms, 1, ((self.width - 1) // 2) * ((self.height - 1) // 2))
            if self.num_rooms < len(self.rooms):
                raise ConfigError("num_rooms", f"{self.num_rooms} rooms asked for but {len(self.rooms)} are listed")
        if self.rooms_wanted() > self.max_num_rooms:
            raise ConfigError("num_rooms", f"{self.rooms_wanted()} rooms exceed max_num_rooms = {self.max_num_rooms}")
        for name in ("furniture_per_room", "objects_per_furniture"):
            _check_range(name, getattr(self, name))
        if len(self.agents) > MAX_AGENTS:
            raise ConfigError("agents", f"{len(self.agents)} agents exceed the limit of {MAX_AGENTS}")
        if self.objects_listed() > MAX_OBJECTS:
            raise ConfigError(
                "rooms", f"{self.objects_listed()} objects are asked for; a house holds at most {MAX_OBJECTS}"
            )
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
        raise ConfigError(where, f"expected an integer {bound}, got {describe(value)}")


def _check_range(where: str, value: Any) -> None:
    """A (low, high) pair of counts with 0 <= low <= high <= MAX_OBJECTS."""
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(is_int(v) for v in value):
        raise ConfigError(where, f"expected [low, high] integers, got {describe(value)}")
    lo, hi = value
    if not (0 <= lo <= hi <= MAX_OBJECTS):
        raise ConfigError(where, f"expected a range 0 <= low <= high <= {MAX_OBJECTS}, got ({lo}, {hi})")


def _check_cell(where: str, pos: Any, width: int, height: int) -> None:
    if pos is None:
        return
    if not isinstance(pos, list | tuple) or len(pos) != 2 or not all(is_int(v) for v in pos):
        raise ConfigError(where, f"expected [x, y] integers, got {describe(pos)}")
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
        if not is_number(weight) or weight < 0:
            raise ConfigError(
                f"{agent.where}.mission_preferences.{name}", f"expected a finite weight >= 0, got {describe(weight)}"
            )
    if agent.mission_preferences and sum(agent.mission_preferences.values()) <= 0:
        raise ConfigError(agent.where + ".mission_preferences", "preferences must not all be zero")


# ---- reading both formats -------------------------------------------------------------------

# The paper's format: allowed keys at each level (keys the generator does not use, such as
# ids, are allowed and ignored; anything else is refused as a likely misspelling).
PAPER_KEYS = {
    "top": ("Grid",),
    "grid": ("width", "height", "auto", "agents", "rooms", "doors"),
    "auto": ("max_num_agent", "max_num_room", "min_room_dim", "room_split_dirs"),
    "block": ("num", "initial"),
    "agent": (
        *("name", "id", "gender", "pos", "dir", "color", "step_size", "forgetness", "carrying"),
        *("mission_preference_initial", "mission_preferences", "cur_mission", "cur_subgoal"),
    ),
    "room": ("type", "name", "id", "top", "size", "furnitures", "floor_objs"),
    "furniture": ("type", "name", "id", "pos", "state", "objs"),
    "object": ("type", "name", "id", "pos", "state"),
    "door": ("type", "name", "id", "pos", "state", "dir"),
}


def _keys(spec: type) -> tuple[str, ...]:
    """The keys of our plain format for a spec dataclass: its compared fields."""
    return tuple(name for name, f in spec.__dataclass_fields__.items() if f.compare)


def _config_error(file: str | None, field: str, reason: str) -> ConfigError:
    return ConfigError(field, reason, file)


def _cell(f: Fields, key: str) -> tuple[int, int] | None:
    value = f.get(key)
    if value is None:
        return None
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(is_int(v) for v in value):
        raise f.fail(key, f"expected [x, y] integers, got {describe(value)}")
    return int(value[0]), int(value[1])


def _states(f: Fields, key: str = "state") -> dict[str, bool]:
    """An object of state name: true/false (0 and 1 are read as false and true)."""
    out = {}
    for name, value in f.mapping(key, {}).items():
        if not isinstance(value, bool) and value not in (0, 1):
            raise f.fail(f"{key}.{name}", f"expected true or false, got {describe(value)}")
        out[name] = bool(value)
    return out


def _pair(f: Fields, key: str, default: tuple[int, int]) -> tuple[int, int]:
    value = f.get(key, default)  # absent: the default; null: refused
    if value is default:
        return default
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(is_int(v) for v in value):
        raise f.fail(key, f"expected [low, high] integers, got {describe(value)}")
    return int(value[0]), int(value[1])


def _type_name(f: Fields) -> str:
    return f.str("type").replace("-", "_")


def _preferences(f: Fields, key: str) -> dict[str, float]:
    prefs = f.mapping(key, {})
    for name, weight in prefs.items():
        f.check_number(f"{key}.{name}", weight, low=0)
    return prefs


def _listing(f: Fields, key: str) -> tuple[int | None, list[Fields]]:
    """A paper ``{"num": n, "initial": [...]}`` block (or a bare list): its count and its entries."""
    if isinstance(f.get(key), list):
        return None, f.entries(key, MAX_OBJECTS)
    block = f.fields(key, None)
    if block is None:
        return None, []
    block.allow(PAPER_KEYS["block"])
    return block.int("num", None, 0, MAX_OBJECTS), block.entries("initial", MAX_OBJECTS)


def _paper_object(f: Fields) -> ObjectSpec:
    f.allow(PAPER_KEYS["object"])
    return ObjectSpec(_type_name(f), _cell(f, "pos"), _states(f), f.str("name", None), f.where)


def _paper_furniture(f: Fields) -> FurnitureSpec:
    f.allow(PAPER_KEYS["furniture"])
    num, objs = _listing(f, "objs")
    return FurnitureSpec(
        _type_name(f), _cell(f, "pos"), _states(f), [_paper_object(o) for o in objs], num, f.str("name", None), f.where
    )


def _paper_room(f: Fields) -> RoomSpec:
    f.allow(PAPER_KEYS["room"])
    num_fur, furs = _listing(f, "furnitures")
    num_floor, floor = _listing(f, "floor_objs")
    return RoomSpec(
        type=_type_name(f),
        top=_cell(f, "top"),
        size=_cell(f, "size"),
        furniture=[_paper_furniture(x) for x in furs],
        num_furniture=num_fur,
        floor_objects=[_paper_object(o) for o in floor],
        num_floor_objects=num_floor,
        name=f.str("name", None),
        where=f.where,
    )


def _paper_agent(f: Fields) -> AgentSpec:
    f.allow(PAPER_KEYS["agent"])
    if f.int("step_size", 1) != 1:
        raise f.fail("step_size", f"only step_size 1 is supported, got {f.get('step_size')!r}")
    _, carried = _listing(f, "carrying")
    if carried:
        raise f.fail("carrying", "agents start empty-handed; initial carried objects are not supported")
    key = "mission_preference_initial" if f.has("mission_preference_initial") else "mission_preferences"
    return AgentSpec(
        name=f.str("name", "A"),
        pos=_cell(f, "pos"),
        dir=f.int("dir", None),
        color=f.str("color", "red"),
        mission_preferences=_preferences(f, key),
        where=f.where,
    )


def _paper_door(f: Fields) -> DoorSpec:
    f.allow(PAPER_KEYS["door"])
    pos = _cell(f, "pos")
    if pos is None:
        raise f.fail("pos", "a door needs a position")
    state = f.get("state", "open")
    if state not in ("open", "closed") and not isinstance(state, bool):
        raise f.fail("state", f"expected 'open' or 'closed', got {describe(state)}")
    return DoorSpec(pos, state in ("open", True), f.where)


def _parse_paper(g: Fields) -> HouseConfig:
    g.allow(PAPER_KEYS["grid"])
    auto = g.fields("auto", None) or g.child({}, g.path("auto"))
    auto.allow(PAPER_KEYS["auto"])
    num_rooms, rooms = _listing(g, "rooms")
    _, agents = _listing(g, "agents")
    return HouseConfig(
        width=g.int("width", 20),
        height=g.int("height", 20),
        num_rooms=num_rooms,
        max_num_rooms=auto.int("max_num_room", 4),
        min_room_dim=auto.int("min_room_dim", 5),
        room_split_dirs=_split_dirs(auto),
        rooms=[_paper_room(r) for r in rooms],
        doors=None if g.get("doors") is None else [_paper_door(d) for d in _listing(g, "doors")[1]],
        agents=[_paper_agent(a) for a in agents] or [AgentSpec(where=g.path("agents"))],
    )


def _split_dirs(f: Fields) -> tuple[str, ...]:
    dirs = f.list("room_split_dirs", []) or list(SPLIT_DIRS)
    for i, d in enumerate(dirs):
        if d not in SPLIT_DIRS:
            raise f.fail(f"room_split_dirs[{i}]", f"unknown split direction {describe(d)}; use 'vert' or 'horz'")
    return tuple(dirs)


def _plain_object(f: Fields) -> ObjectSpec:
    f.allow(_keys(ObjectSpec))
    return ObjectSpec(_type_name(f), _cell(f, "pos"), _states(f), f.str("name", None), f.where)


def _plain_furniture(f: Fields) -> FurnitureSpec:
    f.allow(_keys(FurnitureSpec))
    return FurnitureSpec(
        _type_name(f),
        _cell(f, "pos"),
        _states(f),
        [_plain_object(o) for o in f.entries("objects", MAX_OBJECTS)],
        f.int("num_objects", None, 0, MAX_OBJECTS),
        f.str("name", None),
        f.where,
    )


def _plain_room(f: Fields) -> RoomSpec:
    f.allow(_keys(RoomSpec))
    return RoomSpec(
        _type_name(f),
        _cell(f, "top"),
        _cell(f, "size"),
        [_plain_furniture(x) for x in f.entries("furniture", MAX_OBJECTS)],
        f.int("num_furniture", None, 0, MAX_OBJECTS),
        [_plain_object(o) for o in f.entries("floor_objects", MAX_OBJECTS)],
        f.int("num_floor_objects", None, 0, MAX_OBJECTS),
        f.str("name", None),
        f.where,
    )


def _plain_door(f: Fields) -> DoorSpec:
    f.allow(_keys(DoorSpec))
    pos = _cell(f, "pos")
    if pos is None:
        raise f.fail("pos", "a door needs a position")
    return DoorSpec(pos, f.bool("open", True), f.where)


def _plain_agent(f: Fields) -> AgentSpec:
    f.allow(_keys(AgentSpec))
    return AgentSpec(
        f.str("name", "A"),
        _cell(f, "pos"),
        f.int("dir", None),
        f.str("color", "red"),
        _preferences(f, "mission_preferences"),
        f.where,
    )


def _parse_plain(r: Fields) -> HouseConfig:
    r.allow(_keys(HouseConfig))
    defaults = HouseConfig()
    return HouseConfig(
        width=r.int("width", defaults.width),
        height=r.int("height", defaults.height),
        num_rooms=r.int("num_rooms", None),
        max_num_rooms=r.int("max_num_rooms", defaults.max_num_rooms),
        min_room_dim=r.int("min_room_dim", defaults.min_room_dim),
        room_split_dirs=_split_dirs(r),
        rooms=[_plain_room(x) for x in r.entries("rooms", MAX_OBJECTS)],
        doors=None if r.get("doors") is None else [_plain_door(d) for d in r.entries("doors")],
        agents=[_plain_agent(a) for a in r.entries("agents", MAX_AGENTS)] or [AgentSpec(where=r.path("agents"))],
        furniture_per_room=_pair(r, "furniture_per_room", defaults.furniture_per_room),
        objects_per_furniture=_pair(r, "objects_per_furniture", defaults.objects_per_furniture),
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
