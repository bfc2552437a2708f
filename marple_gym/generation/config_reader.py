"""Reading house configurations: one reader for both JSON formats, generated from the spec dataclasses.

The specs (:mod:`marple_gym.generation.config`) define each field once with :func:`config_field`: its type,
default, bounds, and where the paper's format keeps it. :func:`read_spec` reads a spec's JSON object in either
format from those definitions: every field by its type from the format's key, every unknown key refused at every
level (the paper's keys this generator does not use are allowed and ignored: :class:`PaperFormat`), every problem raised
through the :class:`~marple_gym.validation.Fields` it reads from, naming the field by its path in the input
(``Grid.rooms.initial[1].furnitures.initial[0].type``). :func:`plain` writes a spec back in the plain format.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field, dataclass, field, fields, replace
from types import NoneType
from typing import Any, get_args, get_origin, get_type_hints

from marple_gym.validation import REQUIRED, Fields, describe, is_int

MAX_ITEMS = 255
"""Longest list a config field holds unless it says otherwise (a house's objects fit in the uint8 id channel)."""
BLOCK_KEYS = ("num", "initial")
"""The keys of a paper ``{"num": n, "initial": [...]}`` block."""


def config_field(
    default: Any = MISSING,
    *,
    factory: Any = MISSING,
    paper: str | tuple[str, ...] | None = "",
    low: int | None = None,
    high: int | None = None,
    max_len: int | None = MAX_ITEMS,
    missing: str = "missing",
    choices: tuple[str, ...] | None = None,
    what: str = "value",
) -> Any:
    """A config field, defined once for both formats.

    ``paper`` is where the paper's format keeps it: the same name (``""``), another key, a key inside a nested
    object (``"auto.min_room_dim"``; a ``{"num": n, "initial": [...]}`` block reads as ``"furnitures.initial"``
    and ``"furnitures.num"``, and a bare list stands for its ``initial``), several keys of which the first
    present is read, or None where the paper's format has no such field. ``low`` and ``high`` bound an integer
    (checked on reading and by :meth:`~marple_gym.generation.config.HouseConfig.validate`), ``max_len`` a list,
    ``missing`` is the reason given when a required field is absent; a tuple of names may only hold ``choices``
    (each one a ``what``, for messages).
    """
    meta = {"paper": paper, "low": low, "high": high, "max_len": max_len, "missing": missing}
    meta |= {"choices": choices, "what": what}
    return field(default=default, default_factory=factory, metadata=meta)


def where_field() -> Any:
    """The entry's path in the input, for messages (not compared, not written)."""
    return field(default="", repr=False, compare=False)


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
def _allowed(spec: type, paper: PaperFormat | None) -> dict[str, list[str]]:
    """The keys allowed in a spec's object (``""``) and in each object nested in it."""
    allowed: dict[str, list[str]] = {"": []}
    for _, names in _sources(spec, paper is not None):
        for name in names:
            outer, _, inner = name.rpartition(".")
            allowed[""].append(outer or inner)
            if outer:
                allowed.setdefault(outer, []).append(inner)
    for outer, extra in (paper.ignored.get(spec, {}) if paper else {}).items():
        allowed.setdefault(outer, []).extend(extra)
    return {outer: list(dict.fromkeys(keys)) for outer, keys in allowed.items()}


def read_spec(spec: type, f: Fields, paper: PaperFormat | None) -> Any:
    """A spec dataclass from its JSON object in the paper's format (``paper``) or the plain one (None), every field
    read by its type from the format's key (and every key checked, see module docs)."""
    allowed = _allowed(spec, paper)
    f.allow(allowed[""])
    for outer, keys in allowed.items():
        section = f.get(outer) if outer else None
        if isinstance(section, Mapping):
            _nested(f.fields(outer), keys)
        elif section is not None and not (isinstance(section, list) and "initial" in keys):  # a block may be a list
            raise f.fail(outer, f"expected a JSON object, got {type(section).__name__}")
    if paper and spec in paper.checks:
        paper.checks[spec](f)
    kinds = _kinds(spec)
    values = {"where": f.where} if "where" in kinds else {}
    for fld, names in _sources(spec, paper is not None):
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
        f.allow(BLOCK_KEYS).int("num", None, 0, MAX_ITEMS)
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
    f: Fields | None,
    key: str,
    fld: Field,
    kind: tuple[str, type | None],
    paper: PaperFormat | None,
    given: bool,
    where: str,
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
        return _names(f, key, default, meta["choices"], meta["what"])
    if kind == "states":
        return _states(f, key)
    if kind == "weights":
        return _preferences(f, key)
    if default is None and not given:  # a list
        return None
    items = [read_spec(item, entry, paper) for entry in f.entries(key, meta["max_len"])]
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


def _names(f: Fields, key: str, default: tuple[str, ...], choices: tuple[str, ...], what: str) -> tuple[str, ...]:
    names = f.list(key, []) or list(default)
    for i, name in enumerate(names):
        if name not in choices:
            raise f.fail(f"{key}[{i}]", f"unknown {what} {describe(name)}; use {' or '.join(map(repr, choices))}")
    return tuple(names)


def _door_state(f: Fields, key: str) -> bool:
    """The paper's door ``state``: "open" or "closed" (or true/false)."""
    state = f.get(key, "open")
    if state not in ("open", "closed") and not isinstance(state, bool):
        raise f.fail(key, f"expected 'open' or 'closed', got {describe(state)}")
    return state in ("open", True)


@dataclass(frozen=True, eq=False)  # hashed by identity: the reader caches what it works out per format
class PaperFormat:
    """What the paper's format holds besides the specs' fields, by spec class: keys allowed and ignored (in the
    spec's object ``""`` or in an object nested in it), and checks of attributes the generator cannot honour."""

    ignored: Mapping[type, Mapping[str, tuple[str, ...]]]
    checks: Mapping[type, Callable[[Fields], None]]


def block_entries(f: Fields, key: str) -> list:
    """The entries of a paper ``{"num": n, "initial": [...]}`` block (or of a bare list standing for one)."""
    value = f.get(key)
    if isinstance(value, list) or value is None:
        return value or []
    block = f.fields(key)
    _nested(block, list(BLOCK_KEYS))
    return block.list("initial", [])


def plain(value: Any) -> Any:
    """A spec (or a value in one) in the plain format: fields that hold None and ``where`` left out."""
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if hasattr(value, "__dataclass_fields__"):
        return {
            name: plain(getattr(value, name))
            for name, f in value.__dataclass_fields__.items()
            if f.compare and getattr(value, name) is not None
        }
    return value
