"""How floors, walls, doors and each of the 22 furniture types look, in every state.

A piece of furniture is drawn whole (a bed is one 3 x 2 picture, not six
unrelated tiles) and then cut into tiles. Every type has its own painter, so a
closet, a fridge and a cabinet of the same size read differently, and the
states a mission changes are drawn where a person would look for them:

* **open**: the doors swing aside and the inside shows (dark, or lit in a fridge);
* **on**: lights glow, the TV shows a picture, water runs in the shower and sink,
  burners glow, the washing machine's drum turns blue and its lamp goes green;
* **dusty**: a grey film with specks; **stained**: brown blotches.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from marple_gym.rendering import palette as P
from marple_gym.rendering.canvas import Canvas, Color, Mask
from marple_gym.world.assets import ASSETS, DUSTY_BIT, OPEN_BIT, STAIN_BIT, TOGGLE_BIT

Painter = Callable[[Canvas, int, int, int], Mask]
"""``painter(canvas, width, height, state_bits) -> body mask`` (the mask receives dust and stains)."""

INSET = 0.07  # gap between a piece and its footprint's border, so neighbouring pieces stay apart
EDGE = 0.055  # outline thickness


# ---- floors, walls, doors -------------------------------------------------------------------------
def paint_floor(c: Canvas, room: int, width: int, height: int) -> None:
    """The room's tinted floor with a faint texture by room type and faint cell lines."""
    base = P.floor_color(room)
    c.fill(np.ones(c.image.shape[:2], dtype=bool), base)
    fx, fy = c.x % 1.0, c.y % 1.0
    kind = ASSETS.room_types[room - 1] if room else ""
    line = P.shade(base, 0.9)
    if kind == "Kitchen":  # checkerboard tiles
        c.fill((np.floor(c.x * 2) + np.floor(c.y * 2)) % 2 == 0, P.shade(base, 0.95))
    elif kind == "Bathroom":  # small square tiles
        c.fill(((c.x * 3) % 1.0 < 0.06) | ((c.y * 3) % 1.0 < 0.06), line)
    elif kind in ("Bedroom", "LivingRoom", "Study"):  # floorboards, joints staggered
        c.fill((c.y * 4) % 1.0 < 0.07, line)
        c.fill(((c.x + 0.5 * (np.floor(c.y * 4) % 2)) % 1.0 < 0.03) & (fy >= 0), line)
    # Faint cell lines make steps countable.
    c.fill((fx < 0.025) | (fy < 0.025), P.shade(base, 0.82))


def paint_wall(c: Canvas) -> None:
    c.fill(np.ones(c.image.shape[:2], dtype=bool), P.WALL)


def paint_door(c: Canvas, is_open: bool, vertical_wall: bool) -> None:
    """A door in a wall; ``vertical_wall``: the wall runs north-south, so one walks through east-west."""
    v = c if vertical_wall else c.transposed()
    if is_open:
        c.fill(np.ones(c.image.shape[:2], dtype=bool), P.DOORWAY)
        v.fill(v.rect(0, 1, 0, 0.1) | v.rect(0, 1, 0.9, 1), P.WALL)  # jambs
        v.fill(v.rect(0.06, 0.94, 0.1, 0.24), P.DARK_WOOD)  # the leaf, swung against the jamb
        v.fill(v.rect(0.1, 0.9, 0.13, 0.21), P.WOOD)
    else:
        c.fill(np.ones(c.image.shape[:2], dtype=bool), P.DARK_WOOD)
        v.fill(v.rect(0.2, 0.8, 0.04, 0.96), P.WOOD)
        v.fill(v.rect(0.28, 0.72, 0.12, 0.88), P.LIGHT_WOOD, alpha=0.35)
        v.fill(v.circle(0.5, 0.68, 0.09), (240, 205, 80))


# ---- helpers --------------------------------------------------------------------------------------
def _block(c: Canvas, w: int, h: int, color: Color, r: float = 0.14, inset: float = INSET) -> Mask:
    """A rounded, outlined block filling the footprint; returns its mask."""
    c.fill(c.rounded_rect(inset + 0.04, w - inset + 0.04, inset + 0.06, h - inset + 0.06, r), P.SHADOW, 0.25)
    outer = c.rounded_rect(inset, w - inset, inset, h - inset, r)
    c.fill(outer, P.shade(color, 0.5))
    c.fill(c.rounded_rect(inset + EDGE, w - inset - EDGE, inset + EDGE, h - inset - EDGE, max(r - EDGE, 0.02)), color)
    return outer


def _open_doors(c: Canvas, w: int, h: int, color: Color, inside: Color) -> None:
    """Doors swung aside: the inside shows between two door leaves."""
    c.fill(c.rounded_rect(0.26, w - 0.26, 0.2, h - 0.2, 0.06), inside)
    for x0 in (INSET + 0.02, w - INSET - 0.2):
        c.fill(c.rect(x0, x0 + 0.18, INSET + 0.03, h - INSET - 0.03), P.shade(color, 1.25))
        c.fill(c.rect(x0 + 0.05, x0 + 0.13, INSET + 0.12, h - INSET - 0.12), P.shade(color, 0.8))


def _glow(c: Canvas, cx: float, cy: float, r: float, color: Color) -> None:
    for k in range(3):  # soft halo from three nested translucent discs
        c.fill(c.circle(cx, cy, r * (1 - 0.22 * k)), color, alpha=0.22)


# ---- the painters ---------------------------------------------------------------------------------
def _ashcan(c: Canvas, w: int, h: int, bits: int) -> Mask:
    body = c.circle(0.5, 0.5, 0.38)
    c.fill(c.circle(0.53, 0.55, 0.38), P.SHADOW, 0.25)
    c.fill(body, P.DARK_METAL)
    c.fill(c.circle(0.5, 0.5, 0.32), P.METAL)
    c.fill(c.circle(0.5, 0.5, 0.22), P.shade(P.DARK_METAL, 0.7))
    c.fill(c.line(0.3, 0.5, 0.7, 0.5, 0.06), P.METAL)  # the lid's hinge bar
    return body


def _bed(c: Canvas, w: int, h: int, bits: int) -> Mask:
    frame = (120, 80, 55)
    body = _block(c, w, h, frame, r=0.1)
    c.fill(c.rounded_rect(0.16, w - 0.14, 0.16, h - 0.16, 0.08), (246, 244, 236))  # sheet
    c.fill(c.rounded_rect(0.24, 0.78, 0.26, h - 0.26, 0.12), P.WHITE)  # pillow at the head
    c.fill(
        c.rounded_rect(0.24, 0.78, 0.26, h - 0.26, 0.12) & ~c.rounded_rect(0.28, 0.74, 0.3, h - 0.3, 0.1),
        (200, 200, 196),
    )
    c.fill(c.rounded_rect(1.0, w - 0.14, 0.16, h - 0.16, 0.08), (110, 120, 200))  # blanket
    c.fill(c.rect(1.0, 1.14, 0.16, h - 0.16), (150, 160, 230))  # turned-down edge
    return body


def _bin(c: Canvas, w: int, h: int, bits: int) -> Mask:
    green = (60, 130, 80)
    body = _block(c, w, h, green, r=0.1, inset=0.14)
    c.fill(c.rect(0.26, 0.74, 0.26, 0.74), P.shade(green, 0.6))
    c.fill(c.triangle((0.5, 0.33), (0.66, 0.62), (0.34, 0.62)), (225, 240, 225))
    c.fill(c.triangle((0.5, 0.42), (0.59, 0.57), (0.41, 0.57)), P.shade(green, 0.6))
    return body


def _box(c: Canvas, w: int, h: int, bits: int) -> Mask:
    body = _block(c, w, h, P.CARDBOARD, r=0.05)
    c.fill(c.rect(w / 2 - 0.14, w / 2 + 0.14, INSET + EDGE, h - INSET - EDGE), (226, 196, 140))  # tape
    c.fill(c.rect(INSET + EDGE, w - INSET - EDGE, h / 2 - 0.02, h / 2 + 0.02), P.shade(P.CARDBOARD, 0.75))
    return body


def _bucket(c: Canvas, w: int, h: int, bits: int) -> Mask:
    teal = (50, 150, 150)
    cx, cy, rx, ry = w / 2, h / 2, w * 0.4, h * 0.36
    c.fill(c.ellipse(cx + 0.03, cy + 0.05, rx, ry), P.SHADOW, 0.25)
    body = c.ellipse(cx, cy, rx, ry)
    c.fill(body, P.shade(teal, 0.55))
    c.fill(c.ellipse(cx, cy, rx - 0.06, ry - 0.06), teal)
    c.fill(c.ellipse(cx, cy, rx - 0.14, ry - 0.14), P.shade(teal, 0.65))
    c.fill(c.line(cx - rx + 0.02, cy, cx + rx - 0.02, cy, 0.05), P.DARK_METAL)  # handle
    return body


def _cabinet(c: Canvas, w: int, h: int, bits: int) -> Mask:
    body = _block(c, w, h, P.WOOD, r=0.08)
    if bits & OPEN_BIT:
        _open_doors(c, w, h, P.WOOD, P.INTERIOR)
        for k in (1, 2):
            c.fill(c.rect(0.26, w - 0.26, h * k / 3 - 0.03, h * k / 3 + 0.03), P.DARK_WOOD)  # shelves
    else:
        c.fill(c.rect(INSET + EDGE, w - INSET - EDGE, 0.5, 0.56), P.DARK_WOOD)  # drawer over two doors
        c.fill(c.rect(w / 2 - 0.025, w / 2 + 0.025, 0.56, h - INSET - EDGE), P.DARK_WOOD)
        for x0, x1 in ((0.25, w / 2 - 0.12), (w / 2 + 0.12, w - 0.25)):
            c.fill(c.rect(x0, x1, 0.72, h - 0.24) & ~c.rect(x0 + 0.05, x1 - 0.05, 0.77, h - 0.29), P.DARK_WOOD)
        for x in (w / 2 - 0.17, w / 2 + 0.17):
            c.fill(c.circle(x, h * 0.55 + 0.2, 0.07), (235, 205, 120))  # knobs
        c.fill(c.circle(w / 2, 0.3, 0.07), (235, 205, 120))
    return body


def _car(c: Canvas, w: int, h: int, bits: int) -> Mask:
    navy = (45, 70, 150)
    for x in (0.55, w - 0.55):
        for y in (0.12, h - 0.12):
            c.fill(c.rounded_rect(x - 0.28, x + 0.28, y - 0.1, y + 0.1, 0.05), (25, 25, 28))  # wheels
    body = _block(c, w, h, navy, r=0.45, inset=0.16)
    if bits & OPEN_BIT:
        c.fill(c.rounded_rect(0.7, w - 0.9, 0.38, h - 0.38, 0.1), P.INTERIOR)
        for x in (1.0, 1.6):
            c.fill(c.rounded_rect(x, x + 0.4, 0.48, h - 0.48, 0.08), (150, 120, 100))  # seats
        for y in (0.0, h - 0.2):
            c.fill(c.rect(1.05, 1.95, y, y + 0.2), P.shade(navy, 1.3))  # doors swung out
    else:
        c.fill(c.rounded_rect(0.9, w - 1.0, 0.36, h - 0.36, 0.12), P.shade(navy, 0.75))  # roof
        c.fill(c.polygon([(w - 1.0, 0.36), (w - 0.55, 0.3), (w - 0.55, h - 0.3), (w - 1.0, h - 0.36)]), P.GLASS)
        c.fill(c.polygon([(0.9, 0.4), (0.6, 0.36), (0.6, h - 0.36), (0.9, h - 0.4)]), P.shade(P.GLASS, 0.8))
    for y in (0.42, h - 0.42):
        c.fill(c.circle(w - 0.25, y, 0.08), (255, 236, 140))  # headlights
    return body


def _chair(c: Canvas, w: int, h: int, bits: int) -> Mask:
    seat = _block(c, w, h, P.WOOD, r=0.08, inset=0.2)
    c.fill(c.rounded_rect(0.14, 0.86, 0.1, 0.3, 0.06), P.DARK_WOOD)  # backrest
    c.fill(c.rounded_rect(0.3, 0.7, 0.42, 0.72, 0.06), P.shade(P.WOOD, 1.2))
    return seat


def _closet(c: Canvas, w: int, h: int, bits: int) -> Mask:
    walnut = (112, 72, 44)
    body = _block(c, w, h, walnut, r=0.06)
    if bits & OPEN_BIT:
        _open_doors(c, w, h, walnut, P.INTERIOR)
        c.fill(c.rect(0.3, w - 0.3, 0.42, 0.47), P.METAL)  # hanging rail
        for x in np.linspace(0.5, w - 0.5, 4):
            c.fill(
                c.triangle((x, 0.44), (x - 0.14, 0.62), (x + 0.14, 0.62))
                & ~c.triangle((x, 0.52), (x - 0.08, 0.59), (x + 0.08, 0.59)),
                P.METAL,
            )
    else:
        c.fill(c.rect(INSET + EDGE, w - INSET - EDGE, 0.2, 0.26), P.shade(walnut, 0.65))  # crown moulding
        c.fill(c.rect(w / 2 - 0.03, w / 2 + 0.03, 0.26, h - INSET - EDGE), P.shade(walnut, 0.6))
        for x in (w / 2 - 0.13, w / 2 + 0.13):
            c.fill(c.line(x, h * 0.4, x, h * 0.62, 0.08), (225, 200, 140))  # long bar handles
    return body


def _countertop(c: Canvas, w: int, h: int, bits: int) -> Mask:
    stone = (222, 218, 208)
    body = _block(c, w, h, stone, r=0.06)
    for x0 in (0.4, 1.3, 2.2):
        c.fill(c.line(x0, 0.3, x0 + 0.45, h - 0.35, 0.025), P.shade(stone, 0.85))  # marble veins
    c.fill(c.rect(INSET + EDGE, w - INSET - EDGE, h - 0.3, h - INSET - EDGE), P.shade(stone, 0.8))  # front lip
    return body


def _dog(c: Canvas, w: int, h: int, bits: int) -> Mask:
    mat = _block(c, w, h, (226, 206, 160), r=0.2, inset=0.1)
    fur, dark = (175, 115, 60), (100, 60, 30)
    cx = w / 2
    c.fill(c.line(cx, h * 0.82, cx + 0.22, h * 0.95, 0.1), fur)  # tail
    c.fill(c.ellipse(cx, h * 0.6, 0.3, 0.55), dark)
    c.fill(c.ellipse(cx, h * 0.6, 0.26, 0.5), fur)
    c.fill(c.ellipse(cx - 0.24, 0.42, 0.09, 0.17), dark)  # ears
    c.fill(c.ellipse(cx + 0.24, 0.42, 0.09, 0.17), dark)
    c.fill(c.circle(cx, 0.4, 0.22), fur)
    c.fill(c.ellipse(cx, 0.27, 0.1, 0.08), (230, 200, 160))  # snout
    c.fill(c.circle(cx, 0.22, 0.04), (20, 20, 20))
    for x in (cx - 0.09, cx + 0.09):
        c.fill(c.circle(x, 0.38, 0.035), (20, 20, 20))
    return mat


def _fridge(c: Canvas, w: int, h: int, bits: int) -> Mask:
    white = (226, 236, 244)
    body = _block(c, w, h, white, r=0.1)
    if bits & OPEN_BIT:
        _open_doors(c, w, h, white, (255, 246, 205))  # the inside is lit
        for k in (1, 2):
            c.fill(c.rect(0.26, w - 0.26, h * k / 3 - 0.025, h * k / 3 + 0.025), (190, 200, 210))
    else:
        c.fill(c.rect(INSET + EDGE, w - INSET - EDGE, h * 0.33 - 0.025, h * 0.33 + 0.025), P.METAL)  # freezer
        for y0, y1 in ((0.3, h * 0.33 - 0.15), (h * 0.33 + 0.17, h * 0.62)):
            c.fill(c.line(w - 0.35, y0, w - 0.35, y1, 0.09), P.DARK_METAL)  # handles
        c.fill(c.circle(0.5, h * 0.33 + 0.32, 0.08), (120, 190, 230))  # a snowflake badge
    return body


def _laundry(c: Canvas, w: int, h: int, bits: int) -> Mask:
    body = _block(c, w, h, P.PORCELAIN, r=0.12)
    on = bool(bits & TOGGLE_BIT)
    c.fill(c.rect(INSET + EDGE, w - INSET - EDGE, INSET + EDGE, 0.42), (205, 210, 218))  # control panel
    c.fill(c.circle(0.45, 0.27, 0.09), P.DARK_METAL)  # dial
    c.fill(c.circle(w - 0.35, 0.27, 0.1), P.LED_ON if on else P.LED_OFF)  # power lamp
    if on:
        _glow(c, w - 0.35, 0.27, 0.2, P.LED_ON)
    cx, cy, r = w / 2, 0.42 + (h - 0.42) / 2, min(w, h - 0.42) * 0.4
    if bits & OPEN_BIT:
        c.fill(c.circle(cx, cy, r), P.INTERIOR)  # the empty drum shows
        c.fill(c.ring(cx, cy, r, 0.06), P.METAL)
        c.fill(c.ellipse(0.24, cy, 0.12, r + 0.05), P.DARK_METAL)  # door swung open, seen edge-on
        c.fill(c.ellipse(0.24, cy, 0.06, r - 0.05), P.GLASS)
    else:
        c.fill(c.circle(cx, cy, r), P.DARK_METAL)
        c.fill(c.circle(cx, cy, r - 0.09), P.WATER if on else (150, 168, 182))
        if on:  # water swirling
            c.fill(c.ring(cx - 0.08, cy - 0.05, r * 0.55, 0.05) & (c.y < cy), P.WHITE)
            c.fill(c.ring(cx + 0.08, cy + 0.05, r * 0.55, 0.05) & (c.y > cy), P.WHITE)
        else:
            c.fill(c.line(cx - r * 0.4, cy - r * 0.2, cx - r * 0.1, cy - r * 0.5, 0.06), P.WHITE, 0.6)
    return body


def _light(c: Canvas, w: int, h: int, bits: int) -> Mask:
    on = bool(bits & TOGGLE_BIT)
    body = c.circle(0.5, 0.5, 0.32)
    if on:
        _glow(c, 0.5, 0.5, 0.5, P.LIT)
        for k in range(8):
            a = k * np.pi / 4
            c.fill(
                c.line(
                    0.5 + 0.36 * np.cos(a), 0.5 + 0.36 * np.sin(a), 0.5 + 0.47 * np.cos(a), 0.5 + 0.47 * np.sin(a), 0.05
                ),
                (250, 190, 30),
            )
        c.fill(body, (215, 160, 20))
        c.fill(c.circle(0.5, 0.5, 0.27), (255, 236, 120))
        c.fill(c.circle(0.5, 0.5, 0.12), P.WHITE)
    else:
        c.fill(c.circle(0.53, 0.55, 0.32), P.SHADOW, 0.25)  # a cream lampshade around a dark bulb
        c.fill(body, (120, 105, 70))
        c.fill(c.circle(0.5, 0.5, 0.27), (225, 212, 175))
        c.fill(c.circle(0.5, 0.5, 0.12), (95, 92, 88))
    return body


def _shelf(c: Canvas, w: int, h: int, bits: int) -> Mask:
    wood = (150, 100, 58)
    body = _block(c, w, h, wood, r=0.05)
    c.fill(c.rect(0.2, w - 0.2, 0.2, h - 0.2), P.shade(wood, 0.8))  # back panel: mid-tone, unlike an open cabinet
    for k in range(3):
        y = 0.2 + (h - 0.4) * (k + 1) / 3
        c.fill(c.rect(0.14, w - 0.14, y - 0.08, y), P.shade(wood, 1.25))  # planks
    return body


def _shower(c: Canvas, w: int, h: int, bits: int) -> Mask:
    tray = (236, 242, 248)
    body = _block(c, w, h, tray, r=0.1)
    inner = c.rect(INSET + EDGE, w - INSET - EDGE, INSET + EDGE, h - INSET - EDGE)
    c.fill(inner & (((c.x * 2) % 1.0 < 0.05) | ((c.y * 2) % 1.0 < 0.05)), (196, 210, 224))  # tiles
    c.fill(c.circle(w / 2, h / 2, 0.1), P.DARK_METAL)  # drain
    c.fill(c.circle(w / 2, h / 2, 0.05), (200, 200, 200))
    c.fill(c.circle(0.4, h / 2, 0.2), P.DARK_METAL)  # shower head
    c.fill(c.circle(0.4, h / 2, 0.14), P.METAL)
    if bits & TOGGLE_BIT:  # water falling in streaks
        c.fill(inner, P.WATER, alpha=0.3)
        rng = np.random.default_rng(7)
        for x, y in zip(rng.uniform(0.7, w - 0.2, 22), rng.uniform(0.2, h - 0.35, 22)):
            c.fill(c.line(x, y, x + 0.06, y + 0.16, 0.05), (30, 110, 220))
    return body


def _sink(c: Canvas, w: int, h: int, bits: int) -> Mask:
    body = _block(c, w, h, (206, 210, 218), r=0.12)
    on = bool(bits & TOGGLE_BIT)
    cx, cy = w / 2, h * 0.58
    c.fill(c.ellipse(cx, cy, w * 0.34, h * 0.3), P.DARK_METAL)
    c.fill(c.ellipse(cx, cy, w * 0.34 - 0.05, h * 0.3 - 0.05), P.WATER if on else (160, 166, 176))
    c.fill(c.line(cx, 0.25, cx, h * 0.42, 0.1), P.DARK_METAL)  # faucet
    for x in (cx - 0.3, cx + 0.3):
        c.fill(c.circle(x, 0.27, 0.07), P.DARK_METAL)
    if on:
        c.fill(c.line(cx, h * 0.42, cx, cy, 0.07), (30, 110, 220))
        c.fill(c.ring(cx, cy, 0.2, 0.04) | c.ring(cx, cy, 0.36, 0.04), P.WHITE, 0.7)  # ripples
    return body


def _sofa(c: Canvas, w: int, h: int, bits: int) -> Mask:
    red = P.FABRIC_RED
    body = _block(c, w, h, P.shade(red, 0.8), r=0.2)
    c.fill(c.rounded_rect(0.45, w - 0.45, 0.5, h - 0.16, 0.1), P.shade(red, 0.6))
    for k in range(3):  # seat cushions
        x0 = 0.45 + (w - 0.9) * k / 3
        c.fill(c.rounded_rect(x0 + 0.03, x0 + (w - 0.9) / 3 - 0.03, 0.53, h - 0.2, 0.1), red)
    return body


def _stove(c: Canvas, w: int, h: int, bits: int) -> Mask:
    body = _block(c, w, h, (72, 74, 82), r=0.08)
    on = bool(bits & TOGGLE_BIT)
    for cx in (w * 0.28, w * 0.72):
        for cy in (h * 0.3, h * 0.62):
            if on:
                _glow(c, cx, cy, 0.36, (255, 120, 30))
                c.fill(c.circle(cx, cy, 0.25), (235, 80, 30))
                c.fill(c.ring(cx, cy, 0.16, 0.05), (255, 200, 60))
            else:
                c.fill(c.circle(cx, cy, 0.25), (40, 40, 44))
                c.fill(c.ring(cx, cy, 0.2, 0.04) | c.ring(cx, cy, 0.11, 0.04), (110, 110, 116))
    front = h - INSET - EDGE
    if bits & OPEN_BIT:  # the oven door folded down
        c.fill(c.rect(0.3, w - 0.3, front - 0.28, front), (255, 150, 60) if on else P.INTERIOR)
        c.fill(c.rect(0.2, w - 0.2, front - 0.06, front), P.METAL)
    else:
        c.fill(c.line(0.5, front - 0.1, w - 0.5, front - 0.1, 0.07), P.METAL)  # oven handle
    return body


def _table(c: Canvas, w: int, h: int, bits: int) -> Mask:
    body = _block(c, w, h, P.LIGHT_WOOD, r=0.12)
    inner = c.rect(INSET + EDGE, w - INSET - EDGE, INSET + EDGE, h - INSET - EDGE)
    c.fill(inner & ((c.y * 3.0) % 1.0 < 0.04), P.shade(P.LIGHT_WOOD, 0.85))  # planks
    return body


def _television(c: Canvas, w: int, h: int, bits: int) -> Mask:
    c.fill(c.rect(w / 2 - 0.3, w / 2 + 0.3, h - 0.3, h - 0.1), (30, 30, 34))  # stand
    body = _block(c, w, h - 0.22, (30, 30, 34), r=0.08)
    x0, x1, y0, y1 = 0.2, w - 0.2, 0.2, h - 0.42
    screen = c.rect(x0, x1, y0, y1)
    if bits & TOGGLE_BIT:  # a picture: sky, sun and a hill
        c.fill(screen, (110, 185, 250))
        c.fill(screen & c.ellipse(w * 0.35, y1 + 0.25, w * 0.55, 0.6), (80, 180, 90))
        c.fill(c.circle(x1 - 0.35, y0 + 0.3, 0.15), (255, 220, 60))
        c.fill(c.ring(w / 2, (y0 + y1) / 2, max(w, h) * 0.9, 0.04) & screen, P.WHITE, 0.2)
    else:
        c.fill(screen, P.SCREEN_OFF)
        c.fill(screen & c.line(x0 + 0.2, y1 - 0.1, x1 - 0.5, y0 + 0.1, 0.08), (90, 96, 108))  # glare
    return body


def _toilet(c: Canvas, w: int, h: int, bits: int) -> Mask:
    grey = (150, 158, 170)
    c.fill(c.ellipse(0.53, 0.64, 0.32, 0.32), P.SHADOW, 0.25)
    tank = c.rounded_rect(0.16, 0.84, 0.08, 0.34, 0.06)
    bowl = c.ellipse(0.5, 0.6, 0.3, 0.32)
    c.fill(tank | bowl, grey)
    c.fill(c.rounded_rect(0.2, 0.8, 0.12, 0.3, 0.04) | c.ellipse(0.5, 0.6, 0.25, 0.27), P.PORCELAIN)
    c.fill(c.ellipse(0.5, 0.64, 0.14, 0.16), (170, 210, 235))
    return tank | bowl


PAINTERS: dict[str, Painter] = {
    "ashcan": _ashcan,
    "bed": _bed,
    "bin": _bin,
    "box": _box,
    "bucket": _bucket,
    "cabinet": _cabinet,
    "car": _car,
    "chair": _chair,
    "closet": _closet,
    "countertop": _countertop,
    "dog": _dog,
    "electric_refrigerator": _fridge,
    "laundry": _laundry,
    "light": _light,
    "shelf": _shelf,
    "shower": _shower,
    "sink": _sink,
    "sofa": _sofa,
    "stove": _stove,
    "table": _table,
    "television": _television,
    "toilet": _toilet,
}


def _plain(c: Canvas, w: int, h: int, bits: int) -> Mask:
    return _block(c, w, h, (150, 150, 150))


def _dust(c: Canvas, body: Mask, w: int, h: int) -> None:
    c.fill(body, P.DUST, alpha=0.45)
    rng = np.random.default_rng(w * 10 + h)  # the same specks every time
    for x, y in zip(rng.uniform(0.15, w - 0.15, 9 * w * h), rng.uniform(0.15, h - 0.15, 9 * w * h)):
        c.fill(body & c.circle(x, y, 0.04), (110, 106, 98))


def _stains(c: Canvas, body: Mask, w: int, h: int) -> None:
    rng = np.random.default_rng(w * 10 + h + 1)
    n = 2 + w * h // 2
    for x, y in zip(rng.uniform(0.3, w - 0.3, n), rng.uniform(0.3, h - 0.3, n)):
        blot = body & (c.ellipse(x, y, 0.16, 0.11) | c.circle(x + 0.13, y + 0.1, 0.06))
        if not blot.any():
            continue
        # Dark blotches on light surfaces, muddy yellow ones on dark surfaces: visible on both.
        under = c.image[np.broadcast_to(blot, c.image.shape[:2])].mean(axis=0)
        c.fill(blot, P.STAIN if under @ (0.3, 0.59, 0.11) > 110 else (205, 170, 95), alpha=0.9)


def paint_furniture(c: Canvas, code: int, bits: int, width: int, height: int) -> None:
    """Draw a whole piece of furniture type ``code`` in state ``bits`` onto a ``width x height`` canvas."""
    # A type added to the asset data without a painter still shows, as a plain grey block.
    painter = PAINTERS.get(ASSETS.furniture_names[code], _plain)
    body = painter(c, width, height, bits)
    mask = int(ASSETS.fur_mask[code])
    if mask & DUSTY_BIT and bits & DUSTY_BIT:
        _dust(c, body, width, height)
    if mask & STAIN_BIT and bits & STAIN_BIT:
        _stains(c, body, width, height)
