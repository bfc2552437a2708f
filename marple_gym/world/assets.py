"""The asset library: room, furniture, object and state types, loaded from data.

The library is the single source of the integer codes used everywhere in the
world state and in the vision array:

* room codes: 0 = no room (wall or door), 1..6 = room types;
* furniture codes: 0 = nothing, 1 = wall, 2 = door, 3.. = the 22 furniture types;
* object codes: 0 = nothing, 1..82 = the object types.

Boolean states are packed into one byte per entity. Bit ``i`` (counted from the
most significant bit) is ability ``ABILITIES[i]``, so ``openable`` is 16 and
``toggleable`` is 1. The vision array stores ``1 + bits`` so that 0 always means
"no entity here".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources

import numpy as np

ABILITIES: tuple[str, ...] = (
    "cookable",
    "dustyable",
    "freezable",
    "openable",
    "sliceable",
    "soakable",
    "stainable",
    "toggleable",
)
"""The eight mutable boolean states, in bit order (first = most significant)."""

BIT: dict[str, int] = {name: 1 << (7 - i) for i, name in enumerate(ABILITIES)}
OPEN_BIT = BIT["openable"]
TOGGLE_BIT = BIT["toggleable"]
DUSTY_BIT = BIT["dustyable"]
STAIN_BIT = BIT["stainable"]

WALL = 1
DOOR = 2
FIRST_FURNITURE = 3

HOLDS_NONE, HOLDS_ON_TOP, HOLDS_INSIDE = 0, 1, 2
_HOLDS = {None: HOLDS_NONE, "onTop": HOLDS_ON_TOP, "inside": HOLDS_INSIDE}


def bits_from_states(states: dict[str, bool]) -> int:
    """Pack a ``{ability: value}`` dict into the state byte."""
    out = 0
    for name, value in states.items():
        if value:
            out |= BIT[name]
    return out


def states_from_bits(bits: int, mask: int) -> dict[str, bool]:
    """Unpack the state byte into ``{ability: value}`` for the abilities in ``mask``."""
    return {name: bool(bits & b) for name, b in BIT.items() if mask & b}


@dataclass(frozen=True)
class FurnitureType:
    """One furniture type of the library (a row of the data table)."""

    name: str
    code: int
    width: int
    height: int
    abilities: tuple[str, ...]
    properties: tuple[str, ...]
    holds: str | None
    accepts: tuple[str, ...]
    rooms: tuple[str, ...]
    color: str
    idle_sound: bool = False

    @property
    def mask(self) -> int:
        return bits_from_states({a: True for a in self.abilities})

    @property
    def is_gated(self) -> bool:
        """An openable container: its objects can be reached only when open."""
        return self.holds == "inside" and "openable" in self.abilities


@dataclass(frozen=True)
class ObjectType:
    """One object type of the library."""

    name: str
    code: int
    category: str
    abilities: tuple[str, ...]
    properties: tuple[str, ...]
    rooms: tuple[str, ...]

    @property
    def mask(self) -> int:
        return bits_from_states({a: True for a in self.abilities})


@dataclass(frozen=True)
class AssetLibrary:
    """Typed view of ``data/assets.json`` plus lookup arrays indexed by code."""

    room_types: tuple[str, ...]
    room_colors: dict[str, tuple[int, int, int]]
    furniture: tuple[FurnitureType, ...]
    objects: tuple[ObjectType, ...]
    properties: tuple[str, ...]
    relations: tuple[str, ...]
    categories: tuple[str, ...] = field(default=())

    # ---- name <-> code -------------------------------------------------
    @cached_property
    def room_code(self) -> dict[str, int]:
        return {name: i + 1 for i, name in enumerate(self.room_types)}

    @cached_property
    def furniture_code(self) -> dict[str, int]:
        codes = {"wall": WALL, "door": DOOR}
        codes.update({f.name: f.code for f in self.furniture})
        return codes

    @cached_property
    def object_code(self) -> dict[str, int]:
        return {o.name: o.code for o in self.objects}

    @cached_property
    def furniture_names(self) -> tuple[str, ...]:
        """Name for every furniture code, including "" (0), wall and door."""
        return ("", "wall", "door") + tuple(f.name for f in self.furniture)

    @cached_property
    def object_names(self) -> tuple[str, ...]:
        return ("",) + tuple(o.name for o in self.objects)

    def furniture_type(self, name: str) -> FurnitureType:
        return self.furniture[self.furniture_code[name] - FIRST_FURNITURE]

    def object_type(self, name: str) -> ObjectType:
        return self.objects[self.object_code[name] - 1]

    @property
    def state_types(self) -> tuple[str, ...]:
        """All 18 state types: 8 abilities, 5 properties, 5 relations."""
        return ABILITIES + self.properties + self.relations

    # ---- per-code lookup arrays (hot paths index these) -----------------
    @cached_property
    def fur_mask(self) -> np.ndarray:
        """Ability mask per furniture code (doors are openable)."""
        out = np.zeros(len(self.furniture_names), dtype=np.uint8)
        out[DOOR] = OPEN_BIT
        for f in self.furniture:
            out[f.code] = f.mask
        return out

    @cached_property
    def fur_holds(self) -> np.ndarray:
        out = np.zeros(len(self.furniture_names), dtype=np.uint8)
        for f in self.furniture:
            out[f.code] = _HOLDS[f.holds]
        return out

    @cached_property
    def fur_gated(self) -> np.ndarray:
        out = np.zeros(len(self.furniture_names), dtype=bool)
        for f in self.furniture:
            out[f.code] = f.is_gated
        return out

    @cached_property
    def fur_idle_sound(self) -> np.ndarray:
        out = np.zeros(len(self.furniture_names), dtype=bool)
        for f in self.furniture:
            out[f.code] = f.idle_sound
        return out

    @cached_property
    def obj_mask(self) -> np.ndarray:
        out = np.zeros(len(self.object_names), dtype=np.uint8)
        for o in self.objects:
            out[o.code] = o.mask
        return out

    @cached_property
    def obj_cleaning_tool(self) -> np.ndarray:
        out = np.zeros(len(self.object_names), dtype=bool)
        for o in self.objects:
            out[o.code] = "cleaningTool" in o.properties
        return out


def _load() -> AssetLibrary:
    text = resources.files("marple_gym.world").joinpath("data/assets.json").read_text()
    data = json.loads(text)
    furniture = tuple(
        FurnitureType(
            name=name,
            code=FIRST_FURNITURE + i,
            width=spec["size"][0],
            height=spec["size"][1],
            abilities=tuple(spec["abilities"]),
            properties=tuple(spec.get("properties", ())),
            holds=spec.get("holds"),
            accepts=tuple(spec.get("accepts", ())),
            rooms=tuple(spec["rooms"]),
            color=spec["color"],
            idle_sound=spec.get("idle_sound", False),
        )
        for i, (name, spec) in enumerate(data["furniture"].items())
    )
    objects = tuple(
        ObjectType(
            name=name,
            code=1 + i,
            category=spec["category"],
            abilities=tuple(spec["abilities"]),
            properties=tuple(spec.get("properties", ())),
            rooms=tuple(spec["rooms"]),
        )
        for i, (name, spec) in enumerate(data["objects"].items())
    )
    library = AssetLibrary(
        room_types=tuple(data["rooms"]),
        room_colors={k: tuple(v["color"]) for k, v in data["rooms"].items()},
        furniture=furniture,
        objects=objects,
        properties=tuple(data["states"]["properties"]),
        relations=tuple(data["states"]["relations"]),
        categories=tuple(sorted({o.category for o in objects})),
    )
    # The vision array is uint8: every painted state value 1 + bits must fit.
    assert int(library.fur_mask.max()) < 255 and int(library.obj_mask.max()) < 255
    assert len(library.object_names) <= 255
    return library


ASSETS: AssetLibrary = _load()
"""The library every module shares; it is immutable."""
