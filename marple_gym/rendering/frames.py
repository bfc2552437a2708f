"""RGB frames of a world, drawn tile by tile with MiniGrid's rendering primitives.

Each tile's picture depends only on the cell's vision channels and on which
neighbours belong to the same piece of furniture, so tiles are cached by that
key and a frame is mostly array copies.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from minigrid.utils.rendering import (
    downsample,
    fill_coords,
    point_in_circle,
    point_in_rect,
    point_in_triangle,
    rotate_fn,
)

from marple_gym.world.assets import ASSETS, DOOR, DUSTY_BIT, OPEN_BIT, STAIN_BIT, TOGGLE_BIT, WALL
from marple_gym.world.world import World

PALETTE: dict[str, tuple[int, int, int]] = {
    "slate": (112, 128, 144),
    "purple": (140, 90, 170),
    "tan": (196, 160, 110),
    "teal": (60, 150, 150),
    "brown": (130, 85, 50),
    "navy": (50, 60, 120),
    "walnut": (95, 60, 35),
    "sand": (215, 190, 140),
    "ice": (180, 220, 235),
    "blue": (70, 110, 200),
    "yellow": (235, 205, 60),
    "red": (200, 70, 70),
    "steel": (150, 160, 170),
    "charcoal": (60, 60, 65),
    "white": (235, 235, 235),
    "green": (80, 170, 90),
    "orange": (230, 140, 50),
}
AGENT_COLORS = ("red", "blue", "green", "purple", "yellow", "orange")
CATEGORY_COLORS = {
    "food": (230, 120, 40),
    "kitchenware": (120, 130, 150),
    "textile": (210, 90, 160),
    "cleaning": (40, 170, 200),
    "stationery": (245, 245, 245),
    "tools": (90, 90, 95),
    "misc": (250, 215, 60),
}
WALL_COLOR = (70, 70, 75)
SUBDIVS = 3


def _furniture_color(code: int) -> tuple[int, int, int]:
    return PALETTE[ASSETS.furniture[code - 3].color]


def _object_color(code: int) -> tuple[int, int, int]:
    return CATEGORY_COLORS[ASSETS.objects[code - 1].category]


@lru_cache(maxsize=8192)
def render_tile(cell: tuple[int, ...], edges: int, agent_color: int, tile_size: int) -> np.ndarray:
    """One tile: (tile_size, tile_size, 3) uint8. ``edges`` bit k: neighbour k is the same furniture."""
    room, fur, fur_state, obj, obj_state, _, agent, agent_dir = cell
    img = np.zeros((tile_size * SUBDIVS, tile_size * SUBDIVS, 3), dtype=np.uint8)
    floor = ASSETS.room_colors[ASSETS.room_types[room - 1]] if room else (200, 200, 200)
    fill_coords(img, point_in_rect(0, 1, 0, 1), tuple(int(c * 0.55 + 255 * 0.25) for c in floor))
    fill_coords(img, point_in_rect(0, 0.02, 0, 1), (100, 100, 100))
    fill_coords(img, point_in_rect(0, 1, 0, 0.02), (100, 100, 100))
    bits = fur_state - 1
    if fur == WALL:
        fill_coords(img, point_in_rect(0, 1, 0, 1), WALL_COLOR)
    elif fur == DOOR:
        _draw_door(img, bool(bits & OPEN_BIT))
    elif fur:
        _draw_furniture(img, fur, bits, edges)
    if obj:
        _draw_object(img, obj, obj_state - 1, held=bool(agent))
    if agent:
        color = PALETTE[AGENT_COLORS[agent_color % len(AGENT_COLORS)]]
        tri = point_in_triangle((0.12, 0.19), (0.87, 0.50), (0.12, 0.81))
        fill_coords(img, rotate_fn(tri, cx=0.5, cy=0.5, theta=0.5 * math.pi * (agent_dir - 1)), color)
        if obj:  # redraw what the agent holds on top of its body
            _draw_object(img, obj, obj_state - 1, held=True)
    return downsample(img, SUBDIVS)


def _draw_door(img: np.ndarray, is_open: bool) -> None:
    color = (150, 100, 50)
    if is_open:
        fill_coords(img, point_in_rect(0.0, 0.12, 0.0, 1.0), color)
        fill_coords(img, point_in_rect(0.88, 1.0, 0.0, 1.0), color)
    else:
        fill_coords(img, point_in_rect(0, 1, 0, 1), color)
        fill_coords(img, point_in_rect(0.1, 0.9, 0.1, 0.9), (110, 70, 35))
        fill_coords(img, point_in_circle(0.75, 0.5, 0.07), (240, 210, 90))


def _draw_furniture(img: np.ndarray, code: int, bits: int, edges: int) -> None:
    color = _furniture_color(code)
    # Fill to the tile border where the same piece continues, inset elsewhere: blocks read as one piece.
    e, s, w, n = (edges >> k & 1 for k in range(4))
    x0, x1 = (0.0 if w else 0.06), (1.0 if e else 0.94)
    y0, y1 = (0.0 if n else 0.06), (1.0 if s else 0.94)
    fill_coords(img, point_in_rect(x0, x1, y0, y1), color)
    mask = int(ASSETS.fur_mask[code])
    if mask & OPEN_BIT and bits & OPEN_BIT:  # open: a dark interior shows
        fill_coords(img, point_in_rect(max(x0, 0.18), min(x1, 0.82), max(y0, 0.18), min(y1, 0.82)), (35, 30, 30))
    if mask & TOGGLE_BIT:  # a lamp: bright yellow when on, grey when off
        on = bool(bits & TOGGLE_BIT)
        fill_coords(img, point_in_circle(0.82, 0.18, 0.12), (255, 240, 80) if on else (90, 90, 90))
    if bits & (DUSTY_BIT | STAIN_BIT) and mask & (DUSTY_BIT | STAIN_BIT):  # dirt specks
        for cx, cy in ((0.25, 0.75), (0.4, 0.85), (0.15, 0.88)):
            fill_coords(img, point_in_circle(cx, cy, 0.05), (90, 75, 50))


def _draw_object(img: np.ndarray, code: int, bits: int, held: bool) -> None:
    color = _object_color(code)
    if held:
        fill_coords(img, point_in_circle(0.5, 0.5, 0.16), color)
        return
    fill_coords(img, point_in_circle(0.5, 0.5, 0.3), (30, 30, 30))
    fill_coords(img, point_in_circle(0.5, 0.5, 0.26), color)


def _edges(fur_map: np.ndarray) -> np.ndarray:
    """(H, W) bitmask per cell: which 4-neighbours (E, S, W, N) are the same furniture instance."""
    out = np.zeros(fur_map.shape, dtype=np.int64)
    same = fur_map >= 0
    out[:, :-1] |= (same[:, :-1] & (fur_map[:, :-1] == fur_map[:, 1:])) * 1
    out[:-1, :] |= (same[:-1, :] & (fur_map[:-1, :] == fur_map[1:, :])) * 2
    out[:, 1:] |= (same[:, 1:] & (fur_map[:, 1:] == fur_map[:, :-1])) * 4
    out[1:, :] |= (same[1:, :] & (fur_map[1:, :] == fur_map[:-1, :])) * 8
    return out


def render_frame(world: World, tile_size: int = 32) -> np.ndarray:
    """The whole house as an (H * tile, W * tile, 3) uint8 RGB image."""
    house, grid = world.house, world.state.grid
    edges = _edges(house.fur_map).tolist()
    cells = grid.tolist()
    h, w = grid.shape[:2]
    frame = np.zeros((h * tile_size, w * tile_size, 3), dtype=np.uint8)
    for y in range(h):
        row = cells[y]
        for x in range(w):
            cell = row[x]
            agent = cell[6]
            cell[5] = 0  # object ids do not change how a tile looks; leaving them out shares tiles
            cell[6] = 1 if agent else 0
            tile = render_tile(tuple(cell), edges[y][x], agent - 1 if agent else 0, tile_size)
            frame[y * tile_size : (y + 1) * tile_size, x * tile_size : (x + 1) * tile_size] = tile
    return frame
