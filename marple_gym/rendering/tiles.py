"""The picture of one tile, built from its key and cached.

Layers, bottom to top: floor, wall or door, the tile's slice of its piece of
furniture (drawn whole, see :mod:`marple_gym.rendering.furniture`), the object
lying there, the agent and what it holds. Drawing happens at 3x the final
resolution and is averaged down once, so edges are smooth.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from marple_gym.rendering import palette as P
from marple_gym.rendering.canvas import Canvas, Color
from marple_gym.rendering.furniture import paint_door, paint_floor, paint_furniture, paint_wall
from marple_gym.rendering.glyphs import draw_glyph
from marple_gym.rendering.layout import TileKey
from marple_gym.world.assets import ASSETS, DOOR, FIRST_FURNITURE, OPEN_BIT, WALL

SUPERSAMPLE = 3
AGENT_COLOR_NAMES: tuple[str, ...] = tuple(P.AGENT_COLORS)


def agent_color_index(name: str) -> int:
    """Index of a named agent colour (unknown names draw grey)."""
    return AGENT_COLOR_NAMES.index(name) if name in P.AGENT_COLORS else AGENT_COLOR_NAMES.index("grey")


@lru_cache(maxsize=4096)
def _piece(code: int, fur_state: int, width: int, height: int, room: int, tile_size: int) -> np.ndarray:
    """A whole piece of furniture (or a wall, door or bare floor) as a supersampled float image."""
    c = Canvas.blank(width, height, tile_size, SUPERSAMPLE, P.DOORWAY)
    paint_floor(c, room, width, height)
    bits = max(fur_state - 1, 0)
    if code == WALL:
        paint_wall(c)
    elif code:
        paint_furniture(c, code, bits, width, height)
    c.image.setflags(write=False)
    return c.image


@lru_cache(maxsize=64)
def _door(is_open: bool, vertical_wall: bool, tile_size: int) -> np.ndarray:
    c = Canvas.blank(1, 1, tile_size, SUPERSAMPLE, P.DOORWAY)
    paint_door(c, is_open, vertical_wall)
    c.image.setflags(write=False)
    return c.image


def _base(k: TileKey, tile_size: int) -> np.ndarray:
    """This tile's slice of the floor, wall, door or furniture underneath (a writable copy)."""
    px = tile_size * SUPERSAMPLE
    if k.fur == DOOR:
        return _door(bool((k.fur_state - 1) & OPEN_BIT), bool(k.vertical_wall), tile_size).copy()
    if k.fur and k.fur != WALL and k.width:
        piece = _piece(k.fur, k.fur_state, k.width, k.height, k.room, tile_size)
        return piece[k.dy * px : (k.dy + 1) * px, k.dx * px : (k.dx + 1) * px].copy()
    return _piece(k.fur, k.fur_state, 1, 1, k.room, tile_size).copy()


def _enclosed(k: TileKey) -> bool:
    """Is the object inside a closed container (visible in the array, but behind a door)?"""
    return bool(k.fur >= FIRST_FURNITURE and ASSETS.fur_gated[k.fur] and not (k.fur_state - 1) & OPEN_BIT)


def _draw_object(c: Canvas, k: TileKey) -> None:
    bits = k.obj_state - 1
    if k.fur and k.fur != DOOR:
        if _enclosed(k):  # a faint ghost: it is in there, but the door is shut
            ghost = Canvas(c.image.copy(), c.x, c.y)
            draw_glyph(ghost.within(0.18, 0.18, 0.64), k.obj, bits)
            c.image += 0.35 * (ghost.image - c.image)
            return
        c.fill(c.circle(0.5, 0.5, 0.42), P.WHITE, alpha=0.6)  # a light plate lifts it off the furniture
        draw_glyph(c.within(0.12, 0.12, 0.76), k.obj, bits)
    else:
        c.fill(c.ellipse(0.52, 0.86, 0.32, 0.08), P.SHADOW, alpha=0.2)
        draw_glyph(c.within(0.08, 0.06, 0.84), k.obj, bits)


def _rotate(points: list[tuple[float, float]], direction: int) -> list[tuple[float, float]]:
    """Rotate unit-square points about the centre by ``direction`` quarter turns clockwise (y down)."""
    cos, sin = ((1, 0), (0, 1), (-1, 0), (0, -1))[direction % 4]
    return [(0.5 + (x - 0.5) * cos - (y - 0.5) * sin, 0.5 + (x - 0.5) * sin + (y - 0.5) * cos) for x, y in points]


def _draw_agent(c: Canvas, k: TileKey) -> None:
    """A triangle pointing where the agent faces, with what it holds in white badges on its back."""
    direction = k.agent_dir - 1
    color: Color = P.AGENT_COLORS[AGENT_COLOR_NAMES[k.agent_color % len(AGENT_COLOR_NAMES)]]
    outer = _rotate([(0.96, 0.5), (0.06, 0.06), (0.06, 0.94)], direction)
    inner = _rotate([(0.86, 0.5), (0.13, 0.16), (0.13, 0.84)], direction)
    c.fill(c.polygon(outer), P.WHITE)
    c.fill(c.polygon(_rotate([(0.92, 0.5), (0.09, 0.1), (0.09, 0.9)], direction)), P.OUTLINE)
    c.fill(c.polygon(inner), color)
    held = [code for code in (k.obj, k.hand2) if code]
    one, two = [(0.38, 0.5, 0.23)], [(0.3, 0.3, 0.18), (0.3, 0.7, 0.18)]  # badge centres and radii
    spots = one if len(held) == 1 else two
    for code, (x, y, r) in zip(held, spots):
        ((cx, cy),) = _rotate([(x, y)], direction)
        c.fill(c.circle(cx, cy, r + 0.03), P.OUTLINE)
        c.fill(c.circle(cx, cy, r), P.WHITE)
        draw_glyph(c.within(cx - r * 0.8, cy - r * 0.8, r * 1.6), code, (k.obj_state - 1) if code == k.obj else 0)


@lru_cache(maxsize=8192)
def tile_image(key: int, tile_size: int) -> np.ndarray:
    """The (tile_size, tile_size, 3) uint8 picture of a tile key (see :mod:`marple_gym.rendering.layout`)."""
    k = TileKey.unpack(key)
    c = Canvas.over(_base(k, tile_size), tile_size * SUPERSAMPLE)
    if k.agent_dir:
        _draw_agent(c, k)
    elif k.obj:
        _draw_object(c, k)
    image = c.to_pixels(SUPERSAMPLE)
    image.setflags(write=False)
    return image


@lru_cache(maxsize=64)
def occluder_tile(tile_size: int) -> np.ndarray:
    """The (tile_size, tile_size, 3) uint8 picture of a hidden cell: a striped screen, plainly not part of the house."""
    c = Canvas.blank(1, 1, tile_size, SUPERSAMPLE, P.OCCLUDER)
    stripes = ((c.x + c.y) * 4) % 1.0 < 0.3  # diagonal stripes that run on from tile to tile
    c.fill(stripes, P.OCCLUDER_STRIPE)
    image = c.to_pixels(SUPERSAMPLE)
    image.setflags(write=False)
    return image
