"""A supersampled drawing surface with vectorised shapes.

MiniGrid draws a tile by testing every pixel against a shape predicate in a
Python loop (``fill_coords``). We keep its idea (shapes are predicates over
coordinates, drawn at 3x and averaged down by :func:`minigrid.utils.rendering.downsample`
for smooth edges) but evaluate the predicates on whole coordinate arrays, so a
shape costs microseconds instead of milliseconds and a whole house can be drawn
the first time without a pause.

Coordinates are in *tile units*: on a canvas of ``w x h`` tiles, ``x`` runs from
0 to ``w`` and ``y`` from 0 to ``h`` (y down, like images). :meth:`Canvas.within`
gives a view whose unit square maps onto a smaller box, which is how a glyph
designed in a unit square is drawn small in an agent's hand.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from minigrid.utils.rendering import downsample

Color = tuple[int, int, int]
Mask = np.ndarray


class Canvas:
    """An RGB float image plus the tile-unit coordinates of its pixel centres."""

    def __init__(self, image: np.ndarray, x: np.ndarray, y: np.ndarray, scale: float = 1.0) -> None:
        self.image = image  # (H, W, 3) float32, shared between views
        self.x = x
        self.y = y
        self.scale = scale  # how many tile units one unit of this view spans

    @classmethod
    def blank(cls, width: float, height: float, tile_size: int, supersample: int, color: Color) -> Canvas:
        """A ``width x height`` tile canvas drawn at ``tile_size * supersample`` pixels per tile."""
        px = tile_size * supersample
        image = np.empty((round(height * px), round(width * px), 3), dtype=np.float32)
        image[:] = color
        return cls.over(image, px)

    @classmethod
    def over(cls, image: np.ndarray, pixels_per_tile: int) -> Canvas:
        """A canvas drawing onto ``image`` (float32, modified in place), ``pixels_per_tile`` per tile unit."""
        xs = (np.arange(image.shape[1], dtype=np.float32) + 0.5) / pixels_per_tile
        ys = (np.arange(image.shape[0], dtype=np.float32) + 0.5) / pixels_per_tile
        return cls(image, xs[None, :], ys[:, None])

    def within(self, x0: float, y0: float, size: float) -> Canvas:
        """A view whose unit square is the box at (x0, y0) with side ``size`` (in this view's units)."""
        return Canvas(self.image, (self.x - x0) / size, (self.y - y0) / size, self.scale * size)

    def transposed(self) -> Canvas:
        """The same image with x and y swapped: a shape drawn for one orientation, mirrored across the diagonal."""
        return Canvas(self.image, self.y, self.x, self.scale)

    def to_pixels(self, supersample: int) -> np.ndarray:
        """The image averaged down to its final resolution, as uint8."""
        return np.clip(downsample(self.image, supersample) + 0.5, 0, 255).astype(np.uint8)

    # ---- painting -----------------------------------------------------------------------------
    def fill(self, mask: Mask, color: Color, alpha: float = 1.0) -> None:
        """Paint ``color`` where ``mask`` holds (blended with ``alpha``)."""
        mask = np.broadcast_to(mask, self.image.shape[:2])
        if alpha >= 1.0:
            self.image[mask] = color
        else:
            region = self.image[mask]
            self.image[mask] = region + alpha * (np.asarray(color, dtype=np.float32) - region)

    # ---- shapes: each returns a boolean mask --------------------------------------------------
    def rect(self, x0: float, x1: float, y0: float, y1: float) -> Mask:
        x, y = self.x, self.y
        return (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)

    def rounded_rect(self, x0: float, x1: float, y0: float, y1: float, r: float) -> Mask:
        """A rectangle with corners rounded by radius ``r``."""
        cx = np.clip(self.x, x0 + r, x1 - r)
        cy = np.clip(self.y, y0 + r, y1 - r)
        return self.rect(x0, x1, y0, y1) & ((self.x - cx) ** 2 + (self.y - cy) ** 2 <= r * r)

    def circle(self, cx: float, cy: float, r: float) -> Mask:
        return (self.x - cx) ** 2 + (self.y - cy) ** 2 <= r * r

    def ellipse(self, cx: float, cy: float, rx: float, ry: float) -> Mask:
        return ((self.x - cx) / rx) ** 2 + ((self.y - cy) / ry) ** 2 <= 1.0

    def ring(self, cx: float, cy: float, r: float, width: float) -> Mask:
        d2 = (self.x - cx) ** 2 + (self.y - cy) ** 2
        return (d2 <= r * r) & (d2 >= (r - width) ** 2)

    def line(self, x0: float, y0: float, x1: float, y1: float, width: float) -> Mask:
        """A segment with round ends, ``width`` thick."""
        dx, dy = x1 - x0, y1 - y0
        length2 = dx * dx + dy * dy or 1e-9
        t = np.clip(((self.x - x0) * dx + (self.y - y0) * dy) / length2, 0.0, 1.0)
        return (self.x - x0 - t * dx) ** 2 + (self.y - y0 - t * dy) ** 2 <= (width / 2) ** 2

    def polyline(self, points: Sequence[tuple[float, float]], width: float) -> Mask:
        mask = np.zeros(self.image.shape[:2], dtype=bool)
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            mask |= self.line(x0, y0, x1, y1, width)
        return mask

    def polygon(self, points: Sequence[tuple[float, float]]) -> Mask:
        """Inside a simple polygon (even-odd rule), vertices in order."""
        x, y = np.broadcast_arrays(self.x, self.y)
        inside = np.zeros(x.shape, dtype=bool)
        for (x0, y0), (x1, y1) in zip(points, list(points[1:]) + [points[0]]):
            if y0 == y1:
                continue
            crosses = (y0 > y) != (y1 > y)
            at = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
            inside ^= crosses & (x < at)
        return inside

    def triangle(self, a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> Mask:
        return self.polygon([a, b, c])
