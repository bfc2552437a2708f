"""Build a house from a (partial) config, a seeded generator and the missions it must serve.

The order of work: lay out rooms and doors; place the config's furniture; make
sure every mission requirement has a piece of furniture to serve it (adding
pieces where needed); add random furniture up to each room's count; floor
objects; objects on and in furniture (required ones first); agents. Random
placements that do not fit are retried with fresh draws; anything the config
states that cannot hold raises :class:`HouseConfigError` naming the field.

The built house records a fully explicit copy of its config
(``house.source["config"]``): generating from it gives the same house, cell for
cell, whatever the generator's seed.
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterator, KeysView, ValuesView
from functools import cache, lru_cache, partial
from itertools import chain
from typing import Any

import numpy as np

from marple_gym.generation.config import (
    MAX_OBJECTS,
    AgentSpec,
    DoorSpec,
    FurnitureSpec,
    HouseConfig,
    HouseConfigError,
    ObjectSpec,
    RoomSpec,
)
from marple_gym.generation.furnish import Draft, PlacedFurniture, PlacedObject, PlacementFailed, sample_states
from marple_gym.generation.layout import Layout, add_doors, lay_out_rooms
from marple_gym.missions.mission import Mission, get_mission
from marple_gym.missions.requirements import Requirement, house_requirements
from marple_gym.world.assets import ASSETS, DOOR, OPEN_BIT, bits_from_states
from marple_gym.world.encoding import paint_grid
from marple_gym.world.house import House, Room
from marple_gym.world.state import HANDS, WorldState
from marple_gym.world.world import World

ATTEMPTS = 50


def generate_world(
    config: HouseConfig | dict | str | None,
    rng: np.random.Generator,
    missions: list[str | Mission] = (),
) -> World:
    """A new world whose house satisfies ``config`` and makes every mission feasible.

    Raises :class:`HouseConfigError` when the config is malformed or cannot be built.
    """
    return build_world(HouseConfig.load(config), rng, missions)


def build_world(config: HouseConfig, rng: np.random.Generator, missions: list[str | Mission] = ()) -> World:
    """:func:`generate_world` from a config already checked (:meth:`HouseConfig.load`): an env that resets many
    times with one config checks it once.

    Raises :class:`HouseConfigError` when the config cannot be built.
    """
    missions = [get_mission(m) if isinstance(m, str) else m for m in missions]
    for agent in config.agents:
        missions += [get_mission(m) for m, w in agent.mission_preferences.items() if w > 0]
    requirements = _requirements(tuple(dict.fromkeys(missions)))
    last: PlacementFailed | None = None
    for _ in range(ATTEMPTS):
        try:
            return _attempt(config, requirements, rng)
        except PlacementFailed as exc:
            last = exc
    raise HouseConfigError("rooms", f"could not furnish the house in {ATTEMPTS} attempts: {last}")


@lru_cache(maxsize=256)
def _requirements(missions: tuple[Mission, ...]) -> tuple[Requirement, ...]:
    """:func:`house_requirements` of ``missions``, worked out once (generation only reads them)."""
    return tuple(house_requirements(list(missions)))


def _attempt(config: HouseConfig, requirements: tuple[Requirement, ...], rng: np.random.Generator) -> World:
    layout = lay_out_rooms(config, [r.room for r in requirements], rng)
    add_doors(config, layout, rng)
    draft = Draft(config, layout, rng)
    _place_config_furniture(draft)
    assigned = [(req, _assign(draft, req)) for req in requirements]
    _add_random_furniture(draft)
    _place_floor_objects(draft)
    for f in list(draft.furniture):
        _place_objects(draft, f)
    _place_agents(draft)
    for req, f in assigned:
        _check_served(draft, req, f)
    return _build(draft)


# ---- furniture ----------------------------------------------------------------------------


def _place_config_furniture(draft: Draft) -> None:
    pending = []
    for i, room in enumerate(draft.layout.rooms):
        for spec in room.spec.furniture if room.spec else []:
            f = PlacedFurniture(spec.type, i, spec.pos, spec)
            if spec.pos is not None:
                draft.place_furniture_at(f, spec.where + ".pos")
            else:
                pending.append(f)
    for f in sorted(pending, key=lambda f: -f.size[0] * f.size[1]):
        if not draft.place_furniture_randomly(f):
            raise PlacementFailed(f"{f.spec.where}: no space for a {f.type} in {draft.layout.rooms[f.room].name}")


def _compatible(f: PlacedFurniture, req: Requirement) -> bool:
    return all(f.fixed.get(s, v) == v and f.state.get(s, v) == v for s, v in req.initial.items())


def _assign(draft: Draft, req: Requirement) -> PlacedFurniture:
    """The piece of furniture that serves a requirement, added if the house has none."""
    rooms = [i for i, r in enumerate(draft.layout.rooms) if r.type == req.room]
    candidates = [f for f in draft.furniture if f.type == req.fur and f.room in rooms and _compatible(f, req)]
    if candidates:
        # Prefer a piece that already holds what the mission will pick up from it.
        def holds(f: PlacedFurniture) -> int:
            spec_objs = [o.type for o in f.spec.objects] if f.spec else []
            return sum(o in spec_objs for o in req.contains) + len(f.required_objects)

        best = max(holds(f) for f in candidates)
        pool = [f for f in candidates if holds(f) == best]
        chosen = pool[int(draft.rng.integers(len(pool)))]
    else:
        chosen = None
        for room in _shuffled(draft, rooms):
            f = PlacedFurniture(req.fur, room, (0, 0))
            if draft.place_furniture_randomly(f):
                chosen = f
                break
        if chosen is None:
            needed_by = ", ".join(req.missions)
            raise PlacementFailed(f"no space for the {req.fur} that {needed_by} needs in a {req.room}")
    chosen.state.update(req.initial)
    spec_objs = [o.type for o in chosen.spec.objects] if chosen.spec else []
    chosen.required_objects += [o for o in req.contains if o not in spec_objs and o not in chosen.required_objects]
    chosen.keep_free = max(chosen.keep_free, int(req.needs_free_cell))
    return chosen


def _add_random_furniture(draft: Draft) -> None:
    lo, hi = draft.config.furniture_per_room
    for i, room in enumerate(draft.layout.rooms):
        count = sum(f.room == i for f in draft.furniture)
        given = room.spec.num_furniture if room.spec else None
        target = given if given is not None else max(count, int(draft.rng.integers(lo, hi + 1)))
        kinds = _furniture_kinds(room.type)
        failures = 0
        while count < target and failures < 8:
            f = PlacedFurniture(_pick(draft, kinds), i, (0, 0))
            if draft.place_furniture_randomly(f):
                count += 1
            else:
                failures += 1
        if count < target and given is not None:
            raise PlacementFailed(f"{room.spec.where}: no space for {given} pieces of furniture in {room.name}")


@cache
def _furniture_kinds(room_type: str) -> list[str]:
    """Furniture types generation may add to a room of this type."""
    return [f.name for f in ASSETS.furniture if room_type in f.rooms]


@cache
def _object_kinds(room_type: str, accepts: tuple[str, ...] | None) -> list[str]:
    """Object types generation may put in a room of this type (on furniture accepting them)."""
    return [o.name for o in ASSETS.objects if room_type in o.rooms and (accepts is None or o.category in accepts)]


# ---- objects --------------------------------------------------------------------------------


def _place_floor_objects(draft: Draft) -> None:
    for i, room in enumerate(draft.layout.rooms):
        specs = room.spec.floor_objects if room.spec else []
        for spec in specs:
            if not draft.place_floor_object(i, spec, spec.type, spec.where):
                raise PlacementFailed(f"{spec.where}: no free floor for a {spec.type} in {room.name}")
        target = room.spec.num_floor_objects if room.spec and room.spec.num_floor_objects is not None else len(specs)
        kinds = _object_kinds(room.type, None)
        for _ in range(target - len(specs)):
            if not draft.place_floor_object(i, None, _pick(draft, kinds), room.spec.where):
                raise PlacementFailed(f"{room.spec.where}: no free floor for {target} objects in {room.name}")


def _new_object(draft: Draft, type_name: str, pos: tuple[int, int], spec: ObjectSpec | None = None) -> PlacedObject:
    state = sample_states(ASSETS.object_type(type_name).abilities, spec.state if spec else {}, draft.rng)
    return PlacedObject(type_name, pos, state, spec.name if spec else None)


def _pick(draft: Draft, options: list):
    """One option drawn uniformly with the draft's generator (a single option draws nothing, as numpy does)."""
    return options[0] if len(options) == 1 else options[int(draft.rng.integers(len(options)))]


def _shuffled(draft: Draft, options: list) -> list:
    """``draft.rng.permutation(options)`` as a list, drawn as numpy draws it (numpy shuffles an array of the
    options and an ``arange`` with the same swaps), without turning the options into an array; a single option
    draws nothing, as in numpy."""
    return options if len(options) < 2 else [options[i] for i in draft.rng.permutation(len(options)).tolist()]


def _place_objects(draft: Draft, f: PlacedFurniture) -> None:
    ftype = ASSETS.furniture_type(f.type)
    room = draft.layout.rooms[f.room]
    f.state = sample_states(ftype.abilities, {**f.state, **f.fixed}, draft.rng)
    if ftype.holds is None:
        return
    free = draft.access_cells(f)  # reachable cells no object uses yet (the floor is laid: objects do not change it)

    def put(obj: PlacedObject) -> None:
        f.objects.append(obj)
        if obj.pos in free:
            free.remove(obj.pos)  # the others keep their row-major order

    for spec in f.spec.objects if f.spec else []:
        if spec.pos is not None:
            cells = f.cells()
            if spec.pos not in cells or any(o.pos == spec.pos for o in f.objects):
                reason = "is not a cell of" if spec.pos not in cells else "is already used on"
                raise HouseConfigError(spec.where + ".pos", f"{list(spec.pos)} {reason} the {f.type} at {list(f.pos)}")
            put(_new_object(draft, spec.type, spec.pos, spec))
        else:
            cells = free or [c for c in f.cells() if all(o.pos != c for o in f.objects)]
            if not cells:
                raise PlacementFailed(f"{spec.where}: the {f.type} is full")
            put(_new_object(draft, spec.type, _pick(draft, cells), spec))
    if len(free) < len(f.required_objects) + f.keep_free:
        raise PlacementFailed(f"the {f.type} in {room.name} has too few reachable cells for what the missions need")
    for obj in f.required_objects:
        put(_new_object(draft, obj, _pick(draft, free)))
    lo, hi = draft.config.objects_per_furniture
    given = f.spec.num_objects if f.spec else None
    target = given if given is not None else int(draft.rng.integers(lo, hi + 1)) + len(f.required_objects)
    kinds = _object_kinds(room.type, ftype.accepts)
    while len(f.objects) < target and kinds:
        if len(free) <= f.keep_free:
            if given is not None:
                raise PlacementFailed(f"{f.spec.where}: no room for {given} objects on the {f.type}")
            break
        put(_new_object(draft, _pick(draft, kinds), _pick(draft, free)))


def _check_served(draft: Draft, req: Requirement, f: PlacedFurniture) -> None:
    """A mission requirement must be usable: its objects reachable, a free cell if it drops there."""
    reachable = set(draft.access_cells(f))
    where = f.spec.where if f.spec else f"the {f.type} in {draft.layout.rooms[f.room].name}"
    for obj in req.contains:
        if not any(o.type == obj and o.pos in reachable for o in f.objects):
            raise HouseConfigError(
                where,
                f"mission {', '.join(req.missions)} must pick up a {obj} here, but none lies in a cell an agent can reach",
            )
    if req.needs_free_cell and not any(c not in {o.pos for o in f.objects} for c in reachable):
        raise HouseConfigError(
            where, f"mission {', '.join(req.missions)} must put something here, but no reachable cell is free"
        )


# ---- agents ----------------------------------------------------------------------------------


def _place_agents(draft: Draft) -> None:
    board = draft.board
    free = draft.floor & ~draft.taken
    for spec in draft.config.agents:
        if spec.pos is not None:
            x, y = spec.pos
            if not free & board.bit(int(x), int(y)):  # a position may come as numpy integers
                raise HouseConfigError(
                    spec.where + ".pos",
                    f"agent {spec.name} cannot start at {list(spec.pos)}: the cell is not free floor",
                )
            pos = spec.pos
        else:
            if not free:
                raise PlacementFailed("no free floor left for the agents")
            pos = board.nth(free, int(draft.rng.integers(free.bit_count())))
        free &= ~board.bit(int(pos[0]), int(pos[1]))
        direction = spec.dir if spec.dir is not None else int(draft.rng.integers(4))
        draft.agents.append((pos, direction))


# ---- assembly ----------------------------------------------------------------------------------


def _names(types: list[str], given: list[str | None]) -> tuple[str, ...]:
    counts: dict[str, int] = {}
    out = []
    for t, name in zip(types, given):
        counts[t] = counts.get(t, 0) + 1
        out.append(name or f"{t}_{counts[t]}")
    return tuple(out)


def _pairs(pairs: list[tuple[int, int]]) -> np.ndarray:
    """An (n, 2) int16 array of (x, y) pairs (numpy reads a flat list of numbers twice as fast as pairs)."""
    return np.array(list(chain.from_iterable(pairs)), dtype=np.int16).reshape(-1, 2)


def _build(draft: Draft) -> World:
    layout: Layout = draft.layout
    furniture = sorted(draft.furniture, key=lambda f: f.room)  # stable: config order within a room
    objects = [o for f in furniture for o in f.objects] + [
        o for _, o in sorted(draft.floor_objects, key=lambda r: r[0])
    ]
    if len(objects) > MAX_OBJECTS:  # ids would wrap in the uint8 object-id channel
        raise HouseConfigError(
            "objects_per_furniture",
            f"the house would hold {len(objects)} objects, but at most {MAX_OBJECTS} fit the vision grid's "
            "uint8 object-id channel; lower furniture_per_room or objects_per_furniture",
        )
    n_doors = len(layout.doors)
    wall = layout.room_map < 0
    for x, y, _ in layout.doors:
        wall[y, x] = False
    fur_names = _names([f.type for f in furniture], [f.spec.name if f.spec else None for f in furniture])
    door_names = tuple(f"door_{i + 1}" for i in range(n_doors))
    house = House(
        width=layout.width,
        height=layout.height,
        rooms=tuple(Room(r.name, r.type, tuple(r.top), tuple(r.size)) for r in layout.rooms),
        room_map=layout.room_map.copy(),
        wall=wall,
        fur_type=np.array([ASSETS.furniture_code[f.type] for f in furniture] + [DOOR] * n_doors, dtype=np.int16),
        fur_room=np.array([f.room for f in furniture] + [-1] * n_doors, dtype=np.int16),
        fur_pos=_pairs([f.pos for f in furniture] + [(x, y) for x, y, _ in layout.doors]),
        fur_size=_pairs([f.size for f in furniture] + [(1, 1)] * n_doors),
        fur_names=fur_names + door_names,
        obj_type=np.array([ASSETS.object_code[o.type] for o in objects], dtype=np.int16),
        obj_names=_names([o.type for o in objects], [o.name for o in objects]),
        agent_names=tuple(a.name for a in draft.config.agents),
        agent_colors=tuple(a.color for a in draft.config.agents),
        source=_LazySource(
            partial(_resolved_config, draft.config, layout, furniture, draft.floor_objects, draft.agents, fur_names)
        ),
    )
    fur_state = np.array(
        [bits_from_states(f.state) for f in furniture] + [OPEN_BIT if is_open else 0 for _, _, is_open in layout.doors],
        dtype=np.uint8,
    )
    obj_state = np.array([bits_from_states(o.state) for o in objects], dtype=np.uint8)
    state = WorldState(
        grid=np.zeros((layout.height, layout.width, 8), dtype=np.uint8),
        fur_state=fur_state,
        obj_pos=_pairs([o.pos for o in objects]),
        obj_state=obj_state,
        agent_pos=_pairs([p for p, _ in draft.agents]),
        agent_dir=np.array([d for _, d in draft.agents], dtype=np.int8),
        carrying=np.full((len(draft.agents), HANDS), -1, dtype=np.int16),
    )
    paint_grid(house, state)
    return World(house, state)


class _LazySource(dict):
    """A generated house's ``source``: its ``"config"`` (the resolved config) is built on the first read.

    Building it is a good part of a reset, and most houses are played, never saved. It is built from the
    finished draft's pieces, which nothing changes after :func:`_build`, and the config the house was generated
    from (which callers do not change after generating). Every Python way of reading the dict (a key, ``in``,
    ``get``, iteration, ``keys``/``items``/``values``, ``len``, comparison, ``dict(...)``, ``**``) sees the
    config; copied or pickled, it is a plain dict. (C code that reads a dict's slots directly, such as
    ``json``'s fast encoder, sees it once read: give it ``dict(house.source)``.)
    """

    def __init__(self, resolve: Callable[[], HouseConfig]) -> None:
        super().__init__()
        self._resolve: Callable[[], HouseConfig] | None = resolve

    def _resolve_config(self) -> None:
        """Build the config now, if no read has yet."""
        if self._resolve is not None:
            resolve, self._resolve = self._resolve, None
            super().setdefault("config", resolve())

    def __missing__(self, key: str) -> Any:
        if key == "config" and self._resolve is not None:
            self._resolve_config()
            return super().__getitem__(key)
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return (key == "config" and self._resolve is not None) or super().__contains__(key)

    def get(self, key: str, default: Any = None) -> Any:
        if key == "config":
            self._resolve_config()
        return super().get(key, default)

    # The whole-dict views build the config first (dict(...) and ** go through keys() and items()).
    def __iter__(self) -> Iterator[str]:
        self._resolve_config()
        return super().__iter__()

    def __len__(self) -> int:
        self._resolve_config()
        return super().__len__()

    def keys(self) -> KeysView:
        self._resolve_config()
        return super().keys()

    def items(self) -> ItemsView:
        self._resolve_config()
        return super().items()

    def values(self) -> ValuesView:
        self._resolve_config()
        return super().values()

    def copy(self) -> dict:
        return dict(self.items())

    def __eq__(self, other: object) -> bool:
        return self.copy() == other

    def __repr__(self) -> str:
        return repr(self.copy())

    def __reduce__(self) -> tuple:
        return dict, (self.copy(),)


def _resolved_config(
    config: HouseConfig,
    layout: Layout,
    furniture: list[PlacedFurniture],
    floor_objects: list[tuple[int, PlacedObject]],
    agents: list[tuple[tuple[int, int], int]],
    fur_names: tuple[str, ...],
) -> HouseConfig:
    """A config that states every choice made, so it rebuilds this exact house."""
    rooms = []
    names = iter(fur_names)
    floor = sorted(floor_objects, key=lambda r: r[0])
    for i, room in enumerate(layout.rooms):
        pieces = [
            FurnitureSpec(
                f.type,
                f.pos,
                dict(f.state),
                [ObjectSpec(o.type, o.pos, dict(o.state), o.name) for o in f.objects],
                len(f.objects),
                next(names),
            )
            for f in furniture
            if f.room == i
        ]
        floor_objs = [ObjectSpec(o.type, o.pos, dict(o.state), o.name) for r, o in floor if r == i]
        rooms.append(
            RoomSpec(room.type, room.top, room.size, pieces, len(pieces), floor_objs, len(floor_objs), room.name)
        )
    return HouseConfig(
        width=config.width,
        height=config.height,
        num_rooms=len(rooms),
        max_num_rooms=max(config.max_num_rooms, len(rooms)),
        min_room_dim=config.min_room_dim,
        room_split_dirs=tuple(config.room_split_dirs),
        rooms=rooms,
        doors=[DoorSpec((x, y), is_open) for x, y, is_open in layout.doors],
        agents=[
            AgentSpec(a.name, pos, d, a.color, dict(a.mission_preferences))
            for a, (pos, d) in zip(config.agents, agents)
        ],
        furniture_per_room=config.furniture_per_room,
        objects_per_furniture=config.objects_per_furniture,
    )
