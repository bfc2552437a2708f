"""Procedural glyphs for the 82 object types, and marks for their states.

Every glyph is drawn in a unit square from a few shapes, so it scales from a
floor tile down to the badge in an agent's hand. The objects the missions use
(sandwich, dogfood, remote, pot_plant, clothes, towel, pillow) have shapes
nothing else shares; distractors reuse a few family shapes (fruit, bottle,
bowl, book, pen, ...) in their own colours.

State marks sit on the glyph: dusty (grey film and specks), stained (a brown
blotch), soaked (a blue drop), cooked (browned), frozen (frosted, with a
snowflake), sliced (a cut), on (a green lamp), open (a dark opening).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from marple_gym.rendering import palette as P
from marple_gym.rendering.canvas import Canvas, Color
from marple_gym.world.assets import ASSETS, BIT

Glyph = Callable[[Canvas], None]
INK: Color = (45, 38, 40)


def _outlined_circle(c: Canvas, cx: float, cy: float, r: float, color: Color, ink: Color = INK) -> None:
    c.fill(c.circle(cx, cy, r), ink)
    c.fill(c.circle(cx, cy, r - 0.05), color)


def _outlined_rect(c: Canvas, x0: float, x1: float, y0: float, y1: float, color: Color, r: float = 0.05) -> None:
    c.fill(c.rounded_rect(x0, x1, y0, y1, r), INK)
    c.fill(c.rounded_rect(x0 + 0.05, x1 - 0.05, y0 + 0.05, y1 - 0.05, max(r - 0.04, 0.01)), color)


def _outlined_polygon(c: Canvas, points: list[tuple[float, float]], color: Color) -> None:
    c.fill(c.polygon(points) | c.polyline(points + [points[0]], 0.09), INK)
    c.fill(c.polygon(points), color)


# ---- food -------------------------------------------------------------------------------------------
def fruit(c: Canvas, color: Color, leaf: bool = True) -> None:
    _outlined_circle(c, 0.5, 0.56, 0.3, color)
    c.fill(c.circle(0.4, 0.46, 0.07), P.WHITE, 0.5)  # shine
    c.fill(c.line(0.5, 0.3, 0.54, 0.16, 0.06), (100, 70, 40))
    if leaf:
        c.fill(c.ellipse(0.64, 0.2, 0.11, 0.06), (70, 160, 60))


def tomato(c: Canvas) -> None:
    fruit(c, (225, 60, 40), leaf=False)
    c.fill(
        c.polygon(
            [(0.5, 0.22), (0.6, 0.32), (0.72, 0.28), (0.6, 0.36), (0.5, 0.42), (0.4, 0.36), (0.28, 0.28), (0.4, 0.32)]
        ),
        (60, 150, 60),
    )


def lemon(c: Canvas, color: Color = (245, 215, 50)) -> None:
    c.fill(c.ellipse(0.5, 0.5, 0.36, 0.26) | c.circle(0.14, 0.5, 0.06) | c.circle(0.86, 0.5, 0.06), INK)
    c.fill(c.ellipse(0.5, 0.5, 0.31, 0.21) | c.circle(0.16, 0.5, 0.03) | c.circle(0.84, 0.5, 0.03), color)
    c.fill(c.ellipse(0.42, 0.42, 0.1, 0.05), P.WHITE, 0.5)


def banana(c: Canvas) -> None:
    shape = c.circle(0.42, 0.4, 0.42) & ~c.circle(0.32, 0.28, 0.4) & c.rect(0.1, 0.92, 0.1, 0.95)
    c.fill(shape, INK)
    c.fill(c.circle(0.42, 0.4, 0.37) & ~c.circle(0.32, 0.28, 0.45) & c.rect(0.12, 0.9, 0.1, 0.95), (245, 210, 60))


def strawberry(c: Canvas) -> None:
    pts = [(0.2, 0.35), (0.8, 0.35), (0.72, 0.62), (0.5, 0.88), (0.28, 0.62)]
    _outlined_polygon(c, pts, (220, 40, 60))
    for x, y in ((0.38, 0.48), (0.55, 0.46), (0.47, 0.62), (0.62, 0.58), (0.5, 0.75)):
        c.fill(c.circle(x, y, 0.025), (250, 230, 120))
    c.fill(c.ellipse(0.5, 0.3, 0.22, 0.07), (60, 150, 60))


def small_fruits(c: Canvas, color: Color) -> None:
    for cx, cy in ((0.36, 0.56), (0.64, 0.48)):
        c.fill(c.ellipse(cx, cy, 0.2, 0.14), INK)
        c.fill(c.ellipse(cx, cy, 0.16, 0.1), color)


def radish(c: Canvas) -> None:
    c.fill(c.ellipse(0.4, 0.24, 0.07, 0.16) | c.ellipse(0.6, 0.24, 0.07, 0.16), (60, 150, 60))
    _outlined_circle(c, 0.5, 0.6, 0.26, (225, 80, 130))
    c.fill(c.line(0.5, 0.85, 0.5, 0.95, 0.04), (225, 80, 130))


def lettuce(c: Canvas) -> None:
    _outlined_circle(c, 0.5, 0.52, 0.36, (110, 190, 70))
    c.fill(c.ring(0.5, 0.52, 0.24, 0.05) | c.ring(0.5, 0.52, 0.12, 0.05), (170, 225, 120))


def sandwich(c: Canvas) -> None:
    c.fill(c.polygon([(0.06, 0.86), (0.94, 0.86), (0.5, 0.1)]), INK)
    c.fill(c.polygon([(0.11, 0.83), (0.89, 0.83), (0.5, 0.16)]), (195, 130, 60))  # crust
    c.fill(c.polygon([(0.22, 0.77), (0.78, 0.77), (0.5, 0.29)]), (248, 228, 178))  # bread
    c.fill(c.rect(0.14, 0.86, 0.6, 0.67) & c.polygon([(0.11, 0.83), (0.89, 0.83), (0.5, 0.16)]), (80, 175, 60))
    c.fill(c.rect(0.14, 0.86, 0.67, 0.73) & c.polygon([(0.11, 0.83), (0.89, 0.83), (0.5, 0.16)]), (220, 60, 50))


def bread(c: Canvas) -> None:
    _outlined_rect(c, 0.12, 0.88, 0.3, 0.74, (200, 140, 70), r=0.18)
    for x in (0.32, 0.5, 0.68):
        c.fill(c.line(x - 0.06, 0.62, x + 0.06, 0.42, 0.05), (240, 200, 140))


def cake(c: Canvas) -> None:
    _outlined_circle(c, 0.5, 0.52, 0.36, (245, 180, 200))
    for k in range(8):
        a = k * np.pi / 4
        c.fill(c.circle(0.5 + 0.22 * np.cos(a), 0.52 + 0.22 * np.sin(a), 0.05), P.WHITE)
    c.fill(c.circle(0.5, 0.52, 0.09), (210, 30, 50))


def cookie(c: Canvas) -> None:
    _outlined_circle(c, 0.5, 0.5, 0.32, (215, 165, 95))
    for x, y in ((0.4, 0.4), (0.6, 0.45), (0.45, 0.62), (0.62, 0.62)):
        c.fill(c.circle(x, y, 0.05), (90, 50, 30))


def candy(c: Canvas) -> None:
    c.fill(
        c.triangle((0.3, 0.5), (0.1, 0.3), (0.1, 0.7)) | c.triangle((0.7, 0.5), (0.9, 0.3), (0.9, 0.7)), (240, 120, 180)
    )
    _outlined_circle(c, 0.5, 0.5, 0.22, (230, 60, 140))
    c.fill(c.line(0.38, 0.6, 0.6, 0.38, 0.05), P.WHITE)


def chip_bag(c: Canvas) -> None:
    _outlined_rect(c, 0.2, 0.8, 0.14, 0.86, (235, 70, 50), r=0.06)
    c.fill(c.rect(0.25, 0.75, 0.18, 0.26) | c.rect(0.25, 0.75, 0.74, 0.82), (250, 200, 60))
    c.fill(c.ellipse(0.5, 0.5, 0.16, 0.12), (250, 210, 90))


def hamburger(c: Canvas) -> None:
    bun = (215, 150, 70)
    c.fill(c.ellipse(0.5, 0.42, 0.38, 0.22) & (c.y <= 0.42), INK)
    c.fill(c.ellipse(0.5, 0.43, 0.34, 0.19) & (c.y <= 0.43), bun)
    c.fill(c.rect(0.13, 0.87, 0.44, 0.52), (90, 190, 60))
    c.fill(c.rounded_rect(0.13, 0.87, 0.5, 0.62, 0.04), (120, 60, 35))
    _outlined_rect(c, 0.12, 0.88, 0.62, 0.78, bun, r=0.07)
    for x in (0.38, 0.5, 0.62):
        c.fill(c.ellipse(x, 0.33, 0.025, 0.015), P.WHITE)


def steak(c: Canvas) -> None:
    c.fill(c.ellipse(0.5, 0.52, 0.38, 0.28), INK)
    c.fill(c.ellipse(0.5, 0.52, 0.33, 0.23), (190, 55, 60))
    c.fill(c.ring(0.42, 0.5, 0.2, 0.05) & (c.x < 0.42), (245, 225, 225))
    c.fill(c.circle(0.62, 0.5, 0.06), P.WHITE)


def drumstick(c: Canvas) -> None:
    bone = c.line(0.5, 0.5, 0.8, 0.8, 0.1) | c.circle(0.84, 0.76, 0.07) | c.circle(0.76, 0.86, 0.07)
    c.fill(c.line(0.5, 0.5, 0.8, 0.8, 0.18) | c.circle(0.84, 0.76, 0.11) | c.circle(0.76, 0.86, 0.11), INK)
    c.fill(bone, (250, 246, 232))
    c.fill(c.ellipse(0.42, 0.42, 0.3, 0.27), INK)
    c.fill(c.ellipse(0.42, 0.42, 0.25, 0.22), (205, 135, 60))


def fish(c: Canvas) -> None:
    c.fill(c.triangle((0.7, 0.5), (0.92, 0.3), (0.92, 0.7)), (70, 120, 170))
    c.fill(c.ellipse(0.45, 0.5, 0.32, 0.2), INK)
    c.fill(c.ellipse(0.45, 0.5, 0.28, 0.16), (120, 170, 210))
    c.fill(c.circle(0.28, 0.46, 0.04), INK)


def egg(c: Canvas) -> None:
    c.fill(c.ellipse(0.5, 0.52, 0.26, 0.34), INK)
    c.fill(c.ellipse(0.5, 0.52, 0.21, 0.29), (252, 246, 232))


def bowl(c: Canvas, color: Color, dots: Color | None = None) -> None:
    _outlined_circle(c, 0.5, 0.5, 0.38, (245, 245, 245))
    c.fill(c.circle(0.5, 0.5, 0.26), color)
    if dots is not None:
        for x, y in ((0.42, 0.42), (0.58, 0.46), (0.46, 0.6), (0.6, 0.6), (0.5, 0.5)):
            c.fill(c.circle(x, y, 0.045), dots)


def sugar(c: Canvas) -> None:
    c.fill(c.polygon([(0.5, 0.12), (0.86, 0.3), (0.86, 0.72), (0.5, 0.9), (0.14, 0.72), (0.14, 0.3)]), INK)
    c.fill(c.polygon([(0.5, 0.18), (0.8, 0.32), (0.5, 0.46), (0.2, 0.32)]), P.WHITE)
    c.fill(c.polygon([(0.2, 0.36), (0.48, 0.5), (0.48, 0.82), (0.2, 0.68)]), (225, 225, 230))
    c.fill(c.polygon([(0.52, 0.5), (0.8, 0.36), (0.8, 0.68), (0.52, 0.82)]), (200, 200, 210))


def carton(c: Canvas, color: Color, band: Color) -> None:
    _outlined_polygon(c, [(0.26, 0.34), (0.5, 0.14), (0.74, 0.34), (0.74, 0.88), (0.26, 0.88)], color)
    c.fill(c.rect(0.3, 0.7, 0.5, 0.66), band)


def can(c: Canvas, color: Color) -> None:
    _outlined_rect(c, 0.28, 0.72, 0.16, 0.86, color, r=0.1)
    c.fill(c.rect(0.32, 0.68, 0.2, 0.28), P.METAL)
    c.fill(c.line(0.42, 0.4, 0.42, 0.74, 0.06), P.WHITE, 0.6)


def bottle(c: Canvas, color: Color, cap: Color) -> None:
    c.fill(c.rounded_rect(0.26, 0.74, 0.36, 0.9, 0.12) | c.rect(0.4, 0.6, 0.14, 0.4), INK)
    c.fill(c.rounded_rect(0.31, 0.69, 0.41, 0.85, 0.09) | c.rect(0.45, 0.55, 0.22, 0.42), color)
    c.fill(c.rect(0.4, 0.6, 0.1, 0.2), cap)
    c.fill(c.line(0.4, 0.5, 0.4, 0.75, 0.05), P.WHITE, 0.6)


def tea_bag(c: Canvas) -> None:
    c.fill(c.line(0.5, 0.15, 0.5, 0.42, 0.03), INK)
    c.fill(c.rect(0.4, 0.6, 0.08, 0.2), (220, 50, 50))
    _outlined_rect(c, 0.26, 0.74, 0.42, 0.88, (225, 190, 130), r=0.04)


def dogfood(c: Canvas) -> None:
    c.fill(c.ellipse(0.5, 0.55, 0.42, 0.34), INK)
    c.fill(c.ellipse(0.5, 0.55, 0.37, 0.29), (215, 45, 45))  # a red dog bowl
    c.fill(c.ellipse(0.5, 0.52, 0.25, 0.18), (130, 80, 40))
    for x, y in ((0.4, 0.5), (0.5, 0.46), (0.6, 0.51), (0.45, 0.58), (0.56, 0.58)):
        c.fill(c.circle(x, y, 0.045), (200, 140, 80))
    c.fill(c.circle(0.5, 0.13, 0.09) | c.line(0.5, 0.13, 0.5, 0.22, 0.06), (240, 240, 230))  # a bone tag


# ---- kitchenware ------------------------------------------------------------------------------------
def mug(c: Canvas, color: Color) -> None:
    c.fill(c.ring(0.72, 0.52, 0.16, 0.07), INK)
    _outlined_rect(c, 0.2, 0.7, 0.26, 0.82, color, r=0.06)
    c.fill(c.rect(0.26, 0.64, 0.3, 0.38), P.shade(color, 0.7))


def teapot(c: Canvas, color: Color) -> None:
    c.fill(c.line(0.72, 0.56, 0.92, 0.36, 0.08), INK)
    c.fill(c.ring(0.2, 0.56, 0.14, 0.06), INK)
    c.fill(c.ellipse(0.5, 0.6, 0.32, 0.26), INK)
    c.fill(c.ellipse(0.5, 0.6, 0.27, 0.21), color)
    c.fill(c.circle(0.5, 0.3, 0.07), INK)


def kettle(c: Canvas) -> None:
    c.fill(c.ring(0.5, 0.42, 0.24, 0.06) & (c.y < 0.42), INK)
    c.fill(c.line(0.72, 0.62, 0.9, 0.46, 0.08), INK)
    _outlined_rect(c, 0.2, 0.8, 0.42, 0.86, P.METAL, r=0.12)


def plate(c: Canvas) -> None:
    _outlined_circle(c, 0.5, 0.5, 0.38, (250, 250, 250))
    c.fill(c.ring(0.5, 0.5, 0.25, 0.03), (190, 200, 215))


def pan(c: Canvas) -> None:
    c.fill(c.line(0.6, 0.6, 0.94, 0.94, 0.1), INK)
    _outlined_circle(c, 0.42, 0.42, 0.32, (70, 70, 78))
    c.fill(c.circle(0.42, 0.42, 0.2), (100, 100, 108))


def casserole(c: Canvas) -> None:
    c.fill(c.rect(0.06, 0.94, 0.48, 0.56), INK)  # side handles
    _outlined_rect(c, 0.16, 0.84, 0.32, 0.84, (210, 70, 50), r=0.08)
    c.fill(c.rect(0.16, 0.84, 0.3, 0.38), INK)
    c.fill(c.circle(0.5, 0.26, 0.07), INK)


def jar(c: Canvas) -> None:
    _outlined_rect(c, 0.24, 0.76, 0.3, 0.88, (200, 230, 235), r=0.1)
    c.fill(c.rect(0.28, 0.72, 0.16, 0.3), (200, 80, 60))
    c.fill(c.rect(0.3, 0.7, 0.52, 0.8), (230, 150, 60))


def blender(c: Canvas) -> None:
    _outlined_polygon(c, [(0.26, 0.12), (0.74, 0.12), (0.66, 0.64), (0.34, 0.64)], (190, 225, 240))
    _outlined_rect(c, 0.24, 0.76, 0.64, 0.9, (80, 80, 90), r=0.04)


def fork(c: Canvas) -> None:
    c.fill(c.line(0.5, 0.44, 0.5, 0.9, 0.08), INK)
    c.fill(c.rect(0.34, 0.66, 0.36, 0.46), INK)
    for x in (0.36, 0.5, 0.64):
        c.fill(c.line(x, 0.1, x, 0.44, 0.05), INK)


def spoon(c: Canvas) -> None:
    c.fill(c.line(0.5, 0.44, 0.5, 0.9, 0.08), INK)
    c.fill(c.ellipse(0.5, 0.28, 0.15, 0.19), INK)
    c.fill(c.ellipse(0.5, 0.28, 0.1, 0.14), P.METAL)


def knife(c: Canvas, length: float = 0.45) -> None:
    c.fill(c.rounded_rect(0.44, 0.56, 0.58, 0.92, 0.04), (70, 45, 30))
    blade = [(0.44, 0.58), (0.44, 0.58 - length), (0.6, 0.58 - length * 0.55), (0.6, 0.58)]
    _outlined_polygon(c, blade, P.METAL)


# ---- textiles ---------------------------------------------------------------------------------------
def shirt(c: Canvas, color: Color) -> None:
    pts = [
        (0.34, 0.14),
        (0.42, 0.2),
        (0.58, 0.2),
        (0.66, 0.14),
        (0.92, 0.32),
        (0.8, 0.48),
        (0.72, 0.42),
        (0.72, 0.88),
        (0.28, 0.88),
        (0.28, 0.42),
        (0.2, 0.48),
        (0.08, 0.32),
    ]
    _outlined_polygon(c, pts, color)
    c.fill(c.ellipse(0.5, 0.17, 0.09, 0.06), P.shade(color, 0.55))


def sock(c: Canvas) -> None:
    pts = [(0.32, 0.1), (0.6, 0.1), (0.6, 0.6), (0.8, 0.7), (0.78, 0.9), (0.42, 0.88), (0.32, 0.74)]
    _outlined_polygon(c, pts, (240, 240, 240))
    c.fill(c.rect(0.36, 0.56, 0.14, 0.24), (220, 60, 60))


def towel(c: Canvas) -> None:
    _outlined_rect(c, 0.16, 0.84, 0.16, 0.84, (90, 200, 200), r=0.04)
    c.fill(c.rect(0.21, 0.79, 0.26, 0.32) | c.rect(0.21, 0.79, 0.68, 0.74), P.WHITE)
    c.fill(c.rect(0.21, 0.79, 0.47, 0.53), P.WHITE, 0.5)  # the fold


def pillow(c: Canvas) -> None:
    _outlined_rect(c, 0.1, 0.9, 0.22, 0.78, (252, 238, 200), r=0.18)
    c.fill(
        c.rounded_rect(0.2, 0.8, 0.32, 0.68, 0.12) & ~c.rounded_rect(0.23, 0.77, 0.35, 0.65, 0.1), (210, 180, 120)
    )  # the seam


def blanket(c: Canvas) -> None:
    _outlined_rect(c, 0.12, 0.88, 0.18, 0.82, (120, 150, 220), r=0.04)
    c.fill(c.rect(0.17, 0.83, 0.23, 0.77) & ((np.floor(c.x * 6) + np.floor(c.y * 6)) % 2 == 0), (180, 200, 245))


def bow(c: Canvas) -> None:
    _outlined_polygon(c, [(0.1, 0.28), (0.5, 0.48), (0.1, 0.72)], (230, 70, 140))
    _outlined_polygon(c, [(0.9, 0.28), (0.5, 0.48), (0.9, 0.72)], (230, 70, 140))
    _outlined_circle(c, 0.5, 0.5, 0.1, (200, 40, 110))


# ---- cleaning ---------------------------------------------------------------------------------------
def broom(c: Canvas) -> None:
    c.fill(c.line(0.72, 0.1, 0.48, 0.58, 0.07), (150, 100, 50))
    _outlined_polygon(c, [(0.36, 0.52), (0.58, 0.62), (0.46, 0.92), (0.14, 0.78)], (230, 200, 90))


def dustpan(c: Canvas) -> None:
    _outlined_polygon(c, [(0.12, 0.4), (0.64, 0.4), (0.7, 0.84), (0.06, 0.84)], (80, 140, 220))
    c.fill(c.line(0.64, 0.5, 0.92, 0.3, 0.08), INK)


def rag(c: Canvas) -> None:
    _outlined_polygon(
        c,
        [(0.18, 0.22), (0.5, 0.3), (0.82, 0.18), (0.76, 0.56), (0.86, 0.82), (0.48, 0.72), (0.16, 0.84), (0.24, 0.52)],
        (245, 210, 80),
    )
    c.fill(c.line(0.32, 0.4, 0.6, 0.62, 0.04), (200, 160, 40))


def scrub_brush(c: Canvas) -> None:
    for x in np.linspace(0.24, 0.76, 6):
        c.fill(c.line(x, 0.56, x, 0.8, 0.04), (240, 200, 60))
    _outlined_rect(c, 0.16, 0.84, 0.28, 0.58, (160, 105, 55), r=0.1)


def soap(c: Canvas) -> None:
    _outlined_rect(c, 0.14, 0.86, 0.38, 0.8, (245, 160, 200), r=0.14)
    for x, y, r in ((0.3, 0.26, 0.08), (0.5, 0.18, 0.06), (0.66, 0.3, 0.07)):
        c.fill(c.ring(x, y, r, 0.03), (120, 180, 230))


def toothbrush(c: Canvas) -> None:
    c.fill(c.line(0.2, 0.86, 0.64, 0.32, 0.09), (80, 170, 230))
    c.fill(c.line(0.64, 0.32, 0.78, 0.14, 0.13), INK)
    c.fill(c.line(0.66, 0.3, 0.76, 0.16, 0.07), P.WHITE)


# ---- stationery -------------------------------------------------------------------------------------
def book(c: Canvas, color: Color, spiral: bool = False) -> None:
    _outlined_rect(c, 0.2, 0.8, 0.14, 0.86, color, r=0.03)
    if spiral:
        for y in np.linspace(0.24, 0.76, 5):
            c.fill(c.circle(0.25, y, 0.04), INK)
    else:
        c.fill(c.rect(0.25, 0.33, 0.19, 0.81), P.shade(color, 0.6))  # spine
    c.fill(c.rect(0.42, 0.72, 0.3, 0.38), P.WHITE, 0.8)  # title label


def folder(c: Canvas) -> None:
    c.fill(c.rounded_rect(0.12, 0.44, 0.16, 0.3, 0.04), INK)
    _outlined_rect(c, 0.12, 0.88, 0.24, 0.82, (240, 190, 70), r=0.04)


def document(c: Canvas) -> None:
    _outlined_polygon(c, [(0.22, 0.1), (0.62, 0.1), (0.78, 0.26), (0.78, 0.9), (0.22, 0.9)], P.WHITE)
    for y in (0.4, 0.52, 0.64, 0.76):
        c.fill(c.line(0.32, y, 0.68, y, 0.03), (150, 150, 160))


def pen(c: Canvas, color: Color, width: float = 0.1, tip: Color = INK) -> None:
    c.fill(c.line(0.24, 0.76, 0.78, 0.22, width + 0.06), INK)
    c.fill(c.line(0.3, 0.7, 0.78, 0.22, width), color)
    c.fill(c.triangle((0.18, 0.82), (0.34, 0.74), (0.26, 0.66)), tip)


def pencil(c: Canvas) -> None:
    pen(c, (250, 200, 40), 0.12, tip=(60, 50, 40))
    c.fill(c.line(0.74, 0.26, 0.8, 0.2, 0.12), (240, 140, 160))


def calculator(c: Canvas) -> None:
    _outlined_rect(c, 0.22, 0.78, 0.12, 0.88, (70, 72, 80), r=0.06)
    c.fill(c.rect(0.3, 0.7, 0.2, 0.36), (170, 210, 160))
    for x in (0.34, 0.5, 0.66):
        for y in (0.5, 0.64, 0.78):
            c.fill(c.circle(x, y, 0.045), (220, 220, 225))


def laptop(c: Canvas) -> None:
    _outlined_rect(c, 0.2, 0.8, 0.14, 0.56, (60, 64, 72), r=0.04)
    c.fill(c.rect(0.26, 0.74, 0.2, 0.5), (140, 190, 240))
    _outlined_polygon(c, [(0.2, 0.6), (0.8, 0.6), (0.92, 0.86), (0.08, 0.86)], (190, 192, 200))


def printer(c: Canvas) -> None:
    _outlined_rect(c, 0.3, 0.7, 0.12, 0.4, P.WHITE, r=0.01)
    _outlined_rect(c, 0.12, 0.88, 0.34, 0.78, (120, 124, 134), r=0.06)
    c.fill(c.rect(0.26, 0.74, 0.66, 0.72), INK)


# ---- tools ------------------------------------------------------------------------------------------
def hammer(c: Canvas) -> None:
    c.fill(c.line(0.5, 0.3, 0.5, 0.9, 0.1), (150, 100, 50))
    _outlined_rect(c, 0.2, 0.8, 0.12, 0.34, (110, 112, 120), r=0.03)


def saw(c: Canvas) -> None:
    teeth = [(0.2 + 0.1 * k, 0.72 if k % 2 else 0.64) for k in range(7)]
    _outlined_polygon(c, [(0.2, 0.36), (0.84, 0.46)] + teeth[::-1][:1] + teeth[::-1], P.METAL)
    _outlined_rect(c, 0.06, 0.3, 0.3, 0.62, (200, 70, 50), r=0.06)


def wrench(c: Canvas) -> None:
    bite = c.circle(0.8, 0.2, 0.11)
    c.fill((c.line(0.24, 0.76, 0.62, 0.38, 0.16) | c.circle(0.7, 0.3, 0.21)) & ~bite, INK)
    c.fill((c.line(0.24, 0.76, 0.62, 0.38, 0.08) | c.circle(0.7, 0.3, 0.16)) & ~c.circle(0.8, 0.2, 0.15), P.METAL)


def plywood(c: Canvas) -> None:
    _outlined_rect(c, 0.1, 0.9, 0.26, 0.74, (225, 185, 125), r=0.02)
    for y in (0.38, 0.5, 0.62):
        c.fill(c.line(0.16, y, 0.84, y + 0.03, 0.025), (180, 135, 80))


# ---- misc -------------------------------------------------------------------------------------------
def backpack(c: Canvas) -> None:
    c.fill(c.ring(0.5, 0.26, 0.14, 0.06) & (c.y < 0.28), INK)
    _outlined_rect(c, 0.2, 0.8, 0.24, 0.88, (60, 140, 90), r=0.14)
    _outlined_rect(c, 0.3, 0.7, 0.56, 0.8, (90, 170, 120), r=0.06)


def ball(c: Canvas) -> None:
    _outlined_circle(c, 0.5, 0.5, 0.34, (240, 110, 40))
    c.fill(c.ring(0.2, 0.5, 0.32, 0.05) & c.circle(0.5, 0.5, 0.3), INK)
    c.fill(c.ring(0.8, 0.5, 0.32, 0.05) & c.circle(0.5, 0.5, 0.3), INK)


def basket(c: Canvas) -> None:
    c.fill(c.ring(0.5, 0.5, 0.3, 0.06) & (c.y < 0.5), (150, 100, 50))
    _outlined_polygon(c, [(0.12, 0.46), (0.88, 0.46), (0.76, 0.86), (0.24, 0.86)], (210, 160, 90))
    for x in (0.36, 0.5, 0.64):
        c.fill(c.line(x, 0.5, x, 0.82, 0.03), (150, 100, 50))


def candle(c: Canvas) -> None:
    _outlined_rect(c, 0.36, 0.64, 0.4, 0.9, (245, 240, 220), r=0.03)
    c.fill(c.ellipse(0.5, 0.26, 0.09, 0.15), (250, 150, 30))
    c.fill(c.ellipse(0.5, 0.3, 0.045, 0.08), (255, 235, 120))


def shoe(c: Canvas, color: Color, sole: Color) -> None:
    pts = [(0.1, 0.38), (0.4, 0.38), (0.56, 0.56), (0.86, 0.6), (0.92, 0.74), (0.1, 0.74)]
    _outlined_polygon(c, pts, color)
    c.fill(c.rect(0.1, 0.92, 0.7, 0.8), sole)


def ring_gem(c: Canvas) -> None:
    c.fill(c.ring(0.5, 0.6, 0.26, 0.08), (235, 195, 60))
    _outlined_polygon(c, [(0.5, 0.14), (0.64, 0.28), (0.5, 0.42), (0.36, 0.28)], (120, 220, 240))


def necklace(c: Canvas) -> None:
    for k in range(9):
        a = np.pi * (0.05 + 0.9 * k / 8)
        x, y = 0.5 + 0.34 * np.cos(a), 0.26 + 0.34 * np.sin(a)
        _outlined_circle(c, x, y, 0.08, (240, 200, 70))
    _outlined_polygon(c, [(0.5, 0.6), (0.62, 0.75), (0.5, 0.9), (0.38, 0.75)], (220, 50, 90))


def package(c: Canvas) -> None:
    _outlined_rect(c, 0.14, 0.86, 0.2, 0.82, P.CARDBOARD, r=0.02)
    c.fill(c.rect(0.45, 0.55, 0.24, 0.78), (150, 110, 60))
    c.fill(c.rect(0.18, 0.82, 0.46, 0.56), (150, 110, 60))


def pot_plant(c: Canvas) -> None:
    for cx, cy, rx, ry in ((0.34, 0.34, 0.14, 0.2), (0.66, 0.34, 0.14, 0.2), (0.5, 0.24, 0.12, 0.22)):
        c.fill(c.ellipse(cx, cy, rx + 0.04, ry + 0.04), (30, 90, 40))
        c.fill(c.ellipse(cx, cy, rx, ry), (70, 170, 70))
    _outlined_polygon(c, [(0.24, 0.52), (0.76, 0.52), (0.68, 0.9), (0.32, 0.9)], (210, 110, 60))


def remote(c: Canvas) -> None:
    _outlined_rect(c, 0.34, 0.66, 0.08, 0.92, (50, 52, 60), r=0.1)
    c.fill(c.circle(0.5, 0.22, 0.06), (230, 50, 50))
    for y in (0.4, 0.52, 0.64, 0.76):
        c.fill(c.circle(0.44, y, 0.035) | c.circle(0.56, y, 0.035), (200, 200, 210))


GLYPHS: dict[str, Glyph] = {
    "apple": partial(fruit, color=(220, 40, 50)),
    "backpack": backpack,
    "ball": ball,
    "banana": banana,
    "basket": basket,
    "beef": steak,
    "blanket": blanket,
    "blender": blender,
    "book": partial(book, color=(60, 100, 190)),
    "bow": bow,
    "bread": bread,
    "broom": broom,
    "cake": cake,
    "calculator": calculator,
    "candle": candle,
    "candy": candy,
    "carton": partial(carton, color=(250, 250, 250), band=(70, 130, 230)),
    "carving_knife": partial(knife, length=0.55),
    "casserole": casserole,
    "chicken": drumstick,
    "chip": chip_bag,
    "clothes": partial(shirt, color=(60, 120, 230)),
    "cookie": cookie,
    "date": partial(small_fruits, color=(130, 70, 40)),
    "document": document,
    "dogfood": dogfood,
    "dustpan": dustpan,
    "egg": egg,
    "fish": fish,
    "folder": folder,
    "fork": fork,
    "gym_shoe": partial(shoe, color=(240, 240, 245), sole=(60, 120, 230)),
    "hamburger": hamburger,
    "hammer": hammer,
    "hardback": partial(book, color=(150, 40, 50)),
    "highlighter": partial(pen, color=(190, 250, 60), width=0.16),
    "jar": jar,
    "jewelry": ring_gem,
    "juice": partial(carton, color=(250, 160, 40), band=(80, 170, 60)),
    "kettle": kettle,
    "knife": knife,
    "laptop": laptop,
    "lemon": lemon,
    "lettuce": lettuce,
    "marker": partial(pen, color=(40, 40, 45), width=0.16),
    "mug": partial(mug, color=(240, 240, 240)),
    "necklace": necklace,
    "notebook": partial(book, color=(60, 170, 110), spiral=True),
    "oatmeal": partial(bowl, color=(225, 200, 150), dots=(180, 140, 90)),
    "olive": partial(small_fruits, color=(110, 140, 50)),
    "package": package,
    "pan": pan,
    "pen": partial(pen, color=(40, 80, 200)),
    "pencil": pencil,
    "pillow": pillow,
    "plate": plate,
    "plywood": plywood,
    "pop": partial(can, color=(220, 30, 40)),
    "pot_plant": pot_plant,
    "printer": printer,
    "radish": radish,
    "rag": rag,
    "remote": remote,
    "salad": partial(bowl, color=(110, 190, 70), dots=(220, 50, 50)),
    "sandwich": sandwich,
    "saw": saw,
    "scrub_brush": scrub_brush,
    "shoe": partial(shoe, color=(110, 65, 35), sole=(40, 30, 25)),
    "soap": soap,
    "sock": sock,
    "soup": partial(bowl, color=(225, 110, 50)),
    "spoon": spoon,
    "strawberry": strawberry,
    "sugar": sugar,
    "tea_bag": tea_bag,
    "teapot": partial(teapot, color=(90, 160, 200)),
    "tomato": tomato,
    "toothbrush": toothbrush,
    "towel": towel,
    "vegetable_oil": partial(bottle, color=(240, 205, 60), cap=(60, 140, 60)),
    "water": partial(bottle, color=(150, 200, 245), cap=(40, 90, 200)),
    "wrench": wrench,
}


def _fallback(c: Canvas) -> None:
    _outlined_circle(c, 0.5, 0.5, 0.3, (200, 200, 200))


def draw_glyph(c: Canvas, code: int, bits: int = 0) -> np.ndarray:
    """Draw object type ``code`` in state ``bits`` into ``c``'s unit square; returns the glyph's mask."""
    before = c.image.copy()
    GLYPHS.get(ASSETS.object_names[code], _fallback)(c)
    silhouette = np.any(c.image != before, axis=2)
    _mark_states(c, bits & int(ASSETS.obj_mask[code]), silhouette)
    return silhouette


def _mark_states(c: Canvas, bits: int, body: np.ndarray) -> None:
    if bits & BIT["cookable"]:
        c.fill(body, (140, 70, 20), alpha=0.35)
    if bits & BIT["freezable"]:
        c.fill(body, (200, 235, 255), alpha=0.5)
        for a in range(3):
            t = a * np.pi / 3
            c.fill(
                c.line(
                    0.82 - 0.1 * np.cos(t), 0.18 - 0.1 * np.sin(t), 0.82 + 0.1 * np.cos(t), 0.18 + 0.1 * np.sin(t), 0.04
                ),
                (60, 140, 230),
            )
    if bits & BIT["sliceable"]:
        c.fill(body & c.line(0.15, 0.85, 0.85, 0.15, 0.06), P.WHITE)
    if bits & BIT["dustyable"]:
        c.fill(body, P.DUST, alpha=0.5)
        for x, y in ((0.3, 0.35), (0.6, 0.3), (0.45, 0.6), (0.7, 0.65), (0.3, 0.72)):
            c.fill(body & c.circle(x, y, 0.045), (105, 100, 92))
    if bits & BIT["stainable"]:
        c.fill(body & (c.ellipse(0.4, 0.62, 0.16, 0.11) | c.circle(0.58, 0.7, 0.06)), P.STAIN, alpha=0.85)
    if bits & BIT["soakable"]:
        c.fill(c.circle(0.8, 0.3, 0.1) | c.triangle((0.71, 0.26), (0.89, 0.26), (0.8, 0.08)), (40, 120, 230))
    if bits & BIT["toggleable"]:
        c.fill(c.circle(0.16, 0.16, 0.1), P.LED_ON)
    if bits & BIT["openable"]:
        c.fill(c.polygon([(0.3, 0.2), (0.7, 0.2), (0.6, 0.4), (0.4, 0.4)]), P.INTERIOR)
