"""Text on images (room names, panel titles, captions), with Pillow's bundled font."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from marple_gym.rendering.canvas import Color


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's default scalable font at ``size`` pixels (a bitmap font where FreeType is missing)."""
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow < 10.1 or no FreeType: a fixed bitmap font
        return ImageFont.load_default()


def text_width(text: str, size: int) -> int:
    left, _, right, _ = font(size).getbbox(text)
    return int(right - left)


def draw_text(
    image: np.ndarray, xy: tuple[int, int], text: str, size: int, color: Color, anchor: str = "la"
) -> np.ndarray:
    """``image`` (RGB uint8) with ``text`` drawn at ``xy``; ``anchor`` as in Pillow ("la" = left, ascender)."""
    picture = Image.fromarray(image)
    ImageDraw.Draw(picture).text(xy, text, fill=tuple(color), font=font(size), anchor=anchor)
    return np.array(picture)


def wrap(text: str, size: int, width: int) -> list[str]:
    """Break ``text`` into lines no wider than ``width`` pixels."""
    lines: list[str] = []
    for word in text.split():
        if lines and text_width(f"{lines[-1]} {word}", size) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines or [""]
