"""Room names written on the walls, so a newcomer knows the Kitchen from the Bathroom.

A name goes on the stretch of wall above its room (or below, when a door is in
the way) and is drawn in the room's floor colour. Walls never change, so the
label layer of a house is drawn once per tile size and pasted onto every frame.
"""

from __future__ import annotations

import weakref

import numpy as np

from marple_gym.evidence.language import word
from marple_gym.rendering.palette import WALL, floor_color
from marple_gym.rendering.text import draw_text, text_width
from marple_gym.world.assets import ASSETS
from marple_gym.world.house import House, Room

MIN_TILE = 16
"""Below this tile size names are unreadable and are left out."""

_CACHE: weakref.WeakKeyDictionary[House, dict[int, tuple[np.ndarray, np.ndarray]]] = weakref.WeakKeyDictionary()


def add_room_labels(frame: np.ndarray, house: House, tile_size: int) -> None:
    """Write the room names onto ``frame`` (in place)."""
    per_size = _CACHE.setdefault(house, {})
    if tile_size not in per_size:
        per_size[tile_size] = _label_layer(house, tile_size)
    mask, pixels = per_size[tile_size]
    frame[mask] = pixels


def _label_layer(house: House, tile_size: int) -> tuple[np.ndarray, np.ndarray]:
    """(mask, pixels): where the labels are drawn and their colours there."""
    canvas = np.zeros((house.height * tile_size, house.width * tile_size, 3), dtype=np.uint8)
    canvas[:] = WALL
    size = max(int(tile_size * 0.62), 8)
    free = house.wall.copy()  # wall cells not yet written on
    for room in house.rooms:
        name = word(room.type)
        cells = -(-(text_width(name, size) + tile_size // 2) // tile_size)
        spot = _wall_run(free, room, cells)
        if spot is None:
            continue
        x, y = spot
        free[y, x : x + cells] = False
        color = floor_color(ASSETS.room_code[room.type])
        canvas = draw_text(
            canvas, (x * tile_size + tile_size // 4, y * tile_size + tile_size // 2), name, size, color, anchor="lm"
        )
    mask = np.any(canvas != np.asarray(WALL, dtype=np.uint8), axis=2)
    return mask, canvas[mask]


def _wall_run(free: np.ndarray, room: Room, cells: int) -> tuple[int, int] | None:
    """The first of ``cells`` consecutive free wall cells above (else below) the room, or None."""
    (x0, y0), (w, h) = room.top, room.size
    for y in (y0 - 1, y0 + h):
        if not 0 <= y < free.shape[0]:
            continue
        run = 0
        for x in range(x0, min(x0 + w, free.shape[1])):
            run = run + 1 if free[y, x] else 0
            if run == cells:
                return x - cells + 1, y
    return None
