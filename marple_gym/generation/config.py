"""Typed house configurations, and the paper's JSON config format.

A :class:`HouseConfig` says as much or as little about a house as its author
wants; generation samples everything left unspecified. It reads two formats:

* the original benchmark's JSON (supplement Figure B.2), recognised by its
  top-level ``"Grid"`` key: ``{"Grid": {"auto": {...}, "width": .., "height": ..,
  "agents": {"num": n, "initial": [...]}, "rooms": {"num": n, "initial": [...]},
  "doors": {...}}}``;
* our own plain form, the fields of these dataclasses (``HouseConfig.to_dict``).

Both are read by one reader generated from the dataclasses: each field is defined once (:func:`config_field`: its
type, default, bounds and where the paper's format keeps it), and the reader reads every field by its type and
refuses unknown keys at every level. Every problem found raises :class:`ConfigError`, which names the offending field
by its path in the input (``Grid.rooms.initial[1].furnitures.initial[0].type``).
Counts (``num``) are totals: a room with ``"furnitures": {"num": 3, "initial":
[one]}`` gets its one piece, whatever missions need, and random pieces up to 3.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import MISSING, Field, dataclass, field, fields, replace
from types import NoneType
from typing import Any, get_args, get_origin, get_type_hints

from marple_gym.errors import MarpleError
from marple_gym.validation import (
    REQUIRED,
    Fields,
    describe,
    did_you_mean,
    is_int,
    is_number,
    parse_json,
    read_json_file,
)
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


def config_field(
    default: Any = MISSING,
    *,
    factory: Any = MISSING,
    paper: str | tuple[str, ...] | None = "",
    low: int | None = None,
    high: int | None = None,
    max_len: int | None = MAX_OBJECTS,
    missing: str = "missing",
) -> Any:
    """A config field, defined once for both formats.

    ``paper`` is where the paper's format keeps it: the same name (``""``), another key, a key inside a nested
    object (``"auto.min_room_dim"``; a ``{"num": n, "initial": [...]}`` block reads as ``"furnitures.initial"``
    and ``"furnitures.num"``, and a bare list stands for its ``initial``), several keys of which the first
    present is read, or None where the paper's format has no such field. ``low`` and ``high`` bound an integer
    (checked on reading and by :meth:`HouseConfig.validate`), ``max_len`` a list, ``missing`` is the reason
    given when a required field is absent.
    """
    meta = {"paper": paper, "low": low, "high": high, "max_len": max_len, "missing": missing}
    return field(default=default, default_factory=factory, metadata=meta)


def _where() -> Any:
    """The entry's path in the input, for messages (not compared, not written)."""
    return field(default="", repr=False, compare=False)


@dataclass
class ObjectSpec:
    """An object, optionally with its cell and states."""

    type: str = config_field()
    pos: tuple[int, int] | None = config_field(None)
    state: dict[str, bool] = config_field(factory=dict)
    name: str | None = config_field(None)
    where: str = _where()


@dataclass
class FurnitureSpec:
    """A piece of furniture and the objects on or in it (``num_objects`` = total wanted)."""

    type: str = config_field()
    pos: tuple[int, int] | None = config_field(None)
    state: dict[str, bool] = config_field(factory=dict)
    objects: list[ObjectSpec] = config_field(factory=list, paper="objs.initial")
    num_objects: int | None = config_field(None, paper="objs.num", low=0, high=MAX_OBJECTS)
    name: str | None = config_field(None)
    where: str = _where()


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
    where: str = _where()

    @property
    def explicit(self) -> bool:
        return self.top is not None


@dataclass
class DoorSpec:
    """A door in a wall between two rooms."""

    pos: tuple[int, int] = config_field(missing="a door needs a position")
    open: bool = config_field(True, paper="state")  # the paper writes "open" or "closed"
    where: str = _where()


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
    where: str = _where()


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
    room_split_dirs: tuple[str, ...] = config_field(SPLIT_DIRS, paper="auto.room_split_dirs")
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
                top.allow(("Grid",))
                config = _read(cls, top.fields("Grid").folded(), paper=True)
            else:
                config = _read(cls, top, paper=False)
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
        for name, low, high in _bounded(type(self)):  # the bounds the reader checks, for a config built in Python
            if getattr(self, name) is not None:
                _check_int(name, getattr(self, name), low, high)
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


# ---- reading both formats: one reader, generated from the fields above ------------------------------------

PAPER_IGNORED: dict[type, dict[str, tuple[str, ...]]] = {
    # Keys of the paper's format that the generator does not use (ids, the agents' count and their other
    # attributes): allowed and ignored, where anything else is refused as a likely misspelling.
    ObjectSpec: {"": ("id",)},
    FurnitureSpec: {"": ("id",)},
    RoomSpec: {"": ("id",)},
    DoorSpec: {"": ("type", "name", "id", "dir")},
    AgentSpec: {"": ("id", "gender", "step_size", "forgetness", "carrying", "cur_mission", "cur_subgoal")},
    HouseConfig: {"auto": ("max_num_agent",), "agents": ("num",)},
}
BLOCK_KEYS = ("num", "initial")
"""The keys of a paper ``{"num": n, "initial": [...]}`` block."""


def _config_error(file: str | None, field: str, reason: str) -> ConfigError:
    return ConfigError(field, reason, file)


@functools.cache
def _bounded(spec: type) -> tuple[tuple[str, int, int | None], ...]:
    """(name, low, high) of each field with integer bounds (every reset validates its config: list them once)."""
    return tuple((f.name, f.metadata["low"], f.metadata["high"]) for f in fields(spec) if f.metadata["low"] is not None)


@functools.cache
def _sources(spec: type, paper: bool) -> list[tuple[Field, tuple[str, ...]]]:
    """Each field read from a format with the keys that may hold it, a nested key as ``outer.inner``."""
    out = []
    for f in fields(spec):
        if not f.compare:  # where: set by the reader, never read
            continue
        names = f.metadata["paper"] if paper else f.name
        if names is None:
            continue
        names = (names or f.name,) if isinstance(names, str) else names
        out.append((f, names))
    return out


@functools.cache
def _allowed(spec: type, paper: bool) -> dict[str, list[str]]:
    """The keys allowed in a spec's object (``""``) and in each object nested in it."""
    allowed: dict[str, list[str]] = {"": []}
    for _, names in _sources(spec, paper):
        for name in names:
            outer, _, inner = name.rpartition(".")
            allowed[""].append(outer or inner)
            if outer:
                allowed.setdefault(outer, []).append(inner)
    for outer, extra in (PAPER_IGNORED.get(spec, {}) if paper else {}).items():
        allowed.setdefault(outer, []).extend(extra)
    return {outer: list(dict.fromkeys(keys)) for outer, keys in allowed.items()}


def _read(spec: type, f: Fields, paper: bool) -> Any:
    """A spec dataclass from its JSON object, every field read by its type from the format's key."""
    allowed = _allowed(spec, paper)
    f.allow(allowed[""])
    for outer, keys in allowed.items():
        section = f.get(outer) if outer else None
        if isinstance(section, Mapping):
            _nested(f.fields(outer), keys)
        elif section is not None and not (isinstance(section, list) and "initial" in keys):  # a block may be a list
            raise f.fail(outer, f"expected a JSON object, got {type(section).__name__}")
    if paper and spec is AgentSpec:
        _check_paper_agent(f)
    kinds = _kinds(spec)
    values = {"where": f.where} if "where" in kinds else {}
    for fld, names in _sources(spec, paper):
        holder, inner_key = _locate(f, names)
        outer = names[0].split(".")[0]  # absent, an optional list is None; empty, a default list is named by it
        given = f.get(outer) is not None
        values[fld.name] = _value(holder, inner_key, fld, kinds[fld.name], paper, given, f.path(outer))
    return spec(**values)


@functools.cache
def _kinds(spec: type) -> dict[str, tuple[str, type | None]]:
    """Each field's reader, chosen once from its type (``X | None`` as ``X``), and a list's item type."""
    out = {}
    for name, hint in get_type_hints(spec).items():
        args = get_args(hint)
        if NoneType in args:  # null or absent is None
            (hint,) = (a for a in args if a is not NoneType)
            args = get_args(hint)
        origin = get_origin(hint)
        if hint in (int, str, bool):
            kind = hint.__name__
        elif origin is tuple:
            kind = "cell" if args == (int, int) else "names"
        elif origin is dict:
            kind = "states" if args[1] is bool else "weights"
        elif origin is list:
            kind = "list"
        else:
            raise TypeError(f"{spec.__name__}.{name}: no reader for {hint}")  # a field added without one
        out[name] = (kind, args[0] if origin is list else None)
    return out


def _nested(f: Fields, keys: list[str]) -> None:
    """Check a nested object's keys; a block's count is checked even where it is not used (the agents')."""
    if set(keys) <= set(BLOCK_KEYS):
        f.allow(BLOCK_KEYS).int("num", None, 0, MAX_OBJECTS)
    else:
        f.allow(keys)


def _locate(f: Fields, names: tuple[str, ...]) -> tuple[Fields | None, str]:
    """The object holding the first of ``names`` present (else the last) and the key in it. A bare list where a
    block is expected holds its entries (``initial``) and no count (a holder of None)."""
    for name in names[:-1]:
        holder, inner_key = _holder(f, name)
        if holder is not None and holder.has(inner_key):
            return holder, inner_key
    return _holder(f, names[-1])


def _holder(f: Fields, name: str) -> tuple[Fields | None, str]:
    outer, _, inner = name.rpartition(".")
    if not outer:
        return f, inner
    value = f.get(outer)
    if isinstance(value, list):  # a bare list: the block's entries, no count
        return (f, outer) if inner == "initial" else (None, inner)
    return f.fields(outer, None) or f.child({}, f.path(outer)), inner


def _value(
    f: Fields | None, key: str, fld: Field, kind: tuple[str, type | None], paper: bool, given: bool, where: str
) -> Any:
    """One field's value, read by its type; absent (or its holder absent), the field's default."""
    meta = fld.metadata
    default = fld.default if fld.default is not MISSING else REQUIRED
    if fld.default_factory is not MISSING:
        default = fld.default_factory()
    if f is None:
        return default
    if default is REQUIRED and meta["missing"] != "missing" and not f.has(key):
        raise f.fail(key, meta["missing"])
    kind, item = kind
    if kind == "int":
        return f.int(key, default, meta["low"], meta["high"])
    if kind == "str":
        value = f.str(key, default)
        return value.replace("-", "_") if key == "type" else value  # "coffee-table" in the paper's files
    if kind == "bool":
        return _door_state(f, key) if paper and key == "state" else f.bool(key, default)
    if kind == "cell":
        return _cell(f, key) if default is None or default is REQUIRED else _pair(f, key, default)
    if kind == "names":
        return _split_dirs(f, key, default)
    if kind == "states":
        return _states(f, key)
    if kind == "weights":
        return _preferences(f, key)
    if default is None and not given:  # a list
        return None
    items = [_read(item, entry, paper) for entry in f.entries(key, meta["max_len"])]
    return items if items or not default else [replace(x, where=where) for x in default]


def _cell(f: Fields, key: str) -> tuple[int, int] | None:
    value = f.get(key)
    if value is None:
        return None
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(is_int(v) for v in value):
        raise f.fail(key, f"expected [x, y] integers, got {describe(value)}")
    return int(value[0]), int(value[1])


def _pair(f: Fields, key: str, default: tuple[int, int]) -> tuple[int, int]:
    value = f.get(key, default)  # absent: the default; null: refused
    if value is default:
        return default
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(is_int(v) for v in value):
        raise f.fail(key, f"expected [low, high] integers, got {describe(value)}")
    return int(value[0]), int(value[1])


def _states(f: Fields, key: str) -> dict[str, bool]:
    """An object of state name: true/false (0 and 1 are read as false and true)."""
    out = {}
    for name, value in f.mapping(key, {}).items():
        if not isinstance(value, bool) and value not in (0, 1):
            raise f.fail(f"{key}.{name}", f"expected true or false, got {describe(value)}")
        out[name] = bool(value)
    return out


def _preferences(f: Fields, key: str) -> dict[str, float]:
    prefs = f.mapping(key, {})
    for name, weight in prefs.items():
        f.check_number(f"{key}.{name}", weight, low=0)
    return prefs


def _split_dirs(f: Fields, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
    dirs = f.list(key, []) or list(default)
    for i, d in enumerate(dirs):
        if d not in SPLIT_DIRS:
            raise f.fail(f"{key}[{i}]", f"unknown split direction {describe(d)}; use 'vert' or 'horz'")
    return tuple(dirs)


def _door_state(f: Fields, key: str) -> bool:
    """The paper's door ``state``: "open" or "closed" (or true/false)."""
    state = f.get(key, "open")
    if state not in ("open", "closed") and not isinstance(state, bool):
        raise f.fail(key, f"expected 'open' or 'closed', got {describe(state)}")
    return state in ("open", True)


def _check_paper_agent(f: Fields) -> None:
    """The paper's agent attributes this generator cannot honour are refused rather than ignored."""
    if f.int("step_size", 1) != 1:
        raise f.fail("step_size", f"only step_size 1 is supported, got {f.get('step_size')!r}")
    carrying = f.get("carrying")
    if isinstance(carrying, list) or carrying is None:
        carried = carrying or []
    else:
        block = f.fields("carrying")
        _nested(block, list(BLOCK_KEYS))
        carried = block.list("initial", [])
    if carried:
        raise f.fail("carrying", "agents start empty-handed; initial carried objects are not supported")


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
