"""Room layout: split the floor into rooms, then join them with doors.

Procedural layouts split the interior recursively, vertically or horizontally,
keeping every room at least ``min_room_dim`` cells on a side, with a one-cell
wall along each split. Doors form a random spanning tree over rooms that share
a wall, so every room is reachable. Explicit rooms and doors from a config are
checked instead of generated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from marple_gym.generation.config import DoorSpec, HouseConfig, HouseConfigError, RoomSpec
from marple_gym.world.assets import ASSETS
from marple_gym.world.sampling import weighted_index


@dataclass
class RoomBox:
    """A laid-out room: its floor rectangle and the spec it came from (if any)."""

    type: str
    top: tuple[int, int]
    size: tuple[int, int]
    name: str
    spec: RoomSpec | None = None

    def cells(self) -> tuple[slice, slice]:
        """Index of the room's floor in an (H, W) array."""
        (x, y), (w, h) = self.top, self.size
        return slice(y, y + h), slice(x, x + w)


@dataclass
class Layout:
    """Rooms, walls and doors of a house."""

    width: int
    height: int
    rooms: list[RoomBox]
    room_map: np.ndarray  # (H, W) int8 room index, -1 elsewhere
    doors: list[tuple[int, int, bool]] = field(default_factory=list)


def _split(config: HouseConfig, n: int, rng: np.random.Generator) -> list[tuple[int, int, int, int]]:
    """Split the interior into ``n`` rectangles (x, y, w, h) with walls between them."""
    m = config.min_room_dim
    rects = [(1, 1, config.width - 2, config.height - 2)]
    if rects[0][2] < m or rects[0][3] < m:
        raise HouseConfigError(
            "width", f"a {config.width} x {config.height} grid cannot hold a room of {m} x {m} cells"
        )
    while len(rects) < n:
        options = []
        for i, (_, _, w, h) in enumerate(rects):
            if "vert" in config.room_split_dirs and w >= 2 * m + 1:
                options.append((i, "vert", w * h))
            if "horz" in config.room_split_dirs and h >= 2 * m + 1:
                options.append((i, "horz", w * h))
        if not options:
            raise HouseConfigError(
                "num_rooms",
                f"cannot split a {config.width} x {config.height} grid into {n} rooms of at least {m} x {m} cells",
            )
        # Areas are integers: their sum is exact, and each share the same float numpy divides to.
        total = sum(a for _, _, a in options)
        i, direction, _ = options[weighted_index(rng, [a / total for _, _, a in options])]
        x, y, w, h = rects.pop(i)
        if direction == "vert":
            cut = int(rng.integers(x + m, x + w - m))
            rects += [(x, y, cut - x, h), (cut + 1, y, x + w - cut - 1, h)]
        else:
            cut = int(rng.integers(y + m, y + h - m))
            rects += [(x, y, w, cut - y), (x, cut + 1, w, y + h - cut - 1)]
    return rects


def _room_types(config: HouseConfig, n: int, required: list[str], rng: np.random.Generator) -> list[RoomSpec | str]:
    """One entry per room: the config's room specs, then types missions need, then random types."""
    entries: list[RoomSpec | str] = list(config.rooms)
    have = {r.type for r in config.rooms}
    missing = [t for t in dict.fromkeys(required) if t not in have]
    if len(entries) + len(missing) > n:
        raise HouseConfigError(
            "rooms",
            f"the missions need rooms of type {', '.join(dict.fromkeys(required))}, which do not fit in {n} rooms",
        )
    entries += missing
    # Other rooms get types the house lacks (a house rarely has three bedrooms); repeats only once all six are used.
    present = {e.type if isinstance(e, RoomSpec) else e for e in entries}
    unused = [t for t in ASSETS.room_types if t not in present]
    while len(entries) < n:
        pool = unused or list(ASSETS.room_types)
        pick = pool[int(rng.integers(len(pool)))]
        entries.append(pick)
        if pick in unused:
            unused.remove(pick)
    return entries


def _explicit_room_map(config: HouseConfig) -> np.ndarray:
    room_map = np.full((config.height, config.width), -1, dtype=np.int8)
    for i, spec in enumerate(config.rooms):
        ys, xs = RoomBox(spec.type, spec.top, spec.size, "").cells()
        clash = room_map[ys, xs]
        if (clash >= 0).any():
            other = config.rooms[int(clash[clash >= 0][0])]
            raise HouseConfigError(spec.where, f"room overlaps {other.where or other.type}")
        room_map[ys, xs] = i
    # Rooms must be separated by walls: no floor cell may touch another room's floor.
    for a, b in ((room_map[:, :-1], room_map[:, 1:]), (room_map[:-1, :], room_map[1:, :])):
        touch = (a >= 0) & (b >= 0) & (a != b)
        if touch.any():
            i, j = int(a[touch][0]), int(b[touch][0])
            raise HouseConfigError(
                config.rooms[j].where, f"room touches {config.rooms[i].where} with no wall between them"
            )
    return room_map


def _name(spec_or_type: RoomSpec | str, counts: dict[str, int]) -> tuple[str, str, RoomSpec | None]:
    spec = spec_or_type if isinstance(spec_or_type, RoomSpec) else None
    rtype = spec.type if spec else spec_or_type
    counts[rtype] = counts.get(rtype, 0) + 1
    return rtype, (spec.name if spec and spec.name else f"{rtype}_{counts[rtype]}"), spec


def lay_out_rooms(config: HouseConfig, required: list[str], rng: np.random.Generator) -> Layout:
    """Place the rooms, from the config's explicit rectangles or by splitting the floor."""
    counts: dict[str, int] = {}
    if config.rooms and config.rooms[0].explicit:
        room_map = _explicit_room_map(config)
        present = {r.type for r in config.rooms}
        lacking = [t for t in dict.fromkeys(required) if t not in present]
        if lacking:
            raise HouseConfigError(
                "rooms", f"the missions need a room of type {', '.join(lacking)}, but the config has none"
            )
        rooms = []
        for spec in config.rooms:
            rtype, name, _ = _name(spec, counts)
            rooms.append(RoomBox(rtype, spec.top, spec.size, name, spec))
        return Layout(config.width, config.height, rooms, room_map)
    n = config.rooms_wanted()
    entries = _room_types(config, n, required, rng)
    rects = _split(config, n, rng)
    order = rng.permutation(n)
    rooms = []
    room_map = np.full((config.height, config.width), -1, dtype=np.int8)
    for i, k in enumerate(order.tolist()):
        x, y, w, h = rects[k]
        rtype, name, spec = _name(entries[i], counts)
        rooms.append(RoomBox(rtype, (x, y), (w, h), name, spec))
        room_map[y : y + h, x : x + w] = i
    return Layout(config.width, config.height, rooms, room_map)


def _door_candidates(rooms: list[RoomBox]) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """Wall cells with two different rooms on opposite sides, grouped by room pair (lower index first).

    Rooms are rectangles that do not touch, so two rooms share a wall where one
    ends one cell before the other begins, along their overlap. The pairs come
    in the order a row-major scan of the grid meets their first cell, those
    across a vertical wall first; each pair's cells in row-major order.
    """
    vertical, horizontal = [], []
    for i, j in combinations(range(len(rooms)), 2):
        for a, b in ((rooms[i], rooms[j]), (rooms[j], rooms[i])):
            (ax, ay), (aw, ah) = a.top, a.size
            (bx, by), (bw, bh) = b.top, b.size
            if ax + aw + 1 == bx:  # a, a wall column, b
                ys = range(max(ay, by), min(ay + ah, by + bh))
                if ys:
                    vertical.append(((ys[0], ax + aw), (i, j), [(ax + aw, y) for y in ys]))
            if ay + ah + 1 == by:  # a, a wall row, b
                xs = range(max(ax, bx), min(ax + aw, bx + bw))
                if xs:
                    horizontal.append(((ay + ah, xs[0]), (i, j), [(x, ay + ah) for x in xs]))
    out: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for _, pair, cells in sorted(vertical) + sorted(horizontal):
        out.setdefault(pair, cells)
    return out


def _connected(n: int, edges: list[tuple[int, int]]) -> list[int]:
    """Component label per room for the given door edges (union-find)."""
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in edges:
        parent[find(a)] = find(b)
    return [find(i) for i in range(n)]


def add_doors(config: HouseConfig, layout: Layout, rng: np.random.Generator) -> None:
    """Check the config's doors, or add a random spanning tree of doors."""
    candidates = _door_candidates(layout.rooms)
    if config.doors is not None:
        where_pair = {cell: pair for pair, cells in candidates.items() for cell in cells}
        edges = []
        for door in config.doors:
            pair = where_pair.get(tuple(door.pos))
            if pair is None:
                raise HouseConfigError(
                    door.where + ".pos", f"door at {list(door.pos)} is not in a wall between two rooms"
                )
            edges.append(pair)
            layout.doors.append((door.pos[0], door.pos[1], door.open))
        _require_connected(config.doors, layout, edges)
        return
    pairs = list(candidates)
    rng.shuffle(pairs)
    labels = list(range(len(layout.rooms)))
    for a, b in pairs:
        if labels[a] != labels[b]:
            cells = candidates[(a, b)]
            x, y = cells[int(rng.integers(len(cells)))]
            layout.doors.append((x, y, True))
            old, new = labels[a], labels[b]
            labels = [new if label == old else label for label in labels]
    if len(set(labels)) > 1:
        raise HouseConfigError("rooms", "the rooms do not all share walls, so no doors can connect them")


def _require_connected(doors: list[DoorSpec], layout: Layout, edges: list[tuple[int, int]]) -> None:
    labels = _connected(len(layout.rooms), edges)
    home = labels[0]
    for room, label in zip(layout.rooms, labels):
        if label != home:
            raise HouseConfigError(
                "doors", f"room {room.name} cannot be reached from {layout.rooms[0].name}: no door path"
            )
