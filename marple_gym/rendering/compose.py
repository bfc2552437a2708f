"""Frames side by side, with titles above and caption lines below each, and a header.

Used for whodunit pairs (Agent A | Agent B with the question on top) in exports
and README pictures; the study app draws the same layout live with pygame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from marple_gym.rendering.canvas import Color
from marple_gym.rendering.palette import AGENT_COLORS
from marple_gym.rendering.text import draw_text, wrap

BACKGROUND: Color = (246, 245, 241)
INK: Color = (36, 36, 44)
MUTED: Color = (105, 105, 115)


@dataclass
class Panel:
    """One picture with a title above it and caption lines below it."""

    frame: np.ndarray
    title: str = ""
    title_color: Color = INK
    caption: Sequence[str] = field(default_factory=tuple)


def compose(
    panels: Sequence[Panel],
    header: Sequence[str] = (),
    font_size: int | None = None,
    caption_lines: int | None = None,
) -> np.ndarray:
    """The panels in a row on a light background, ``header`` lines centred above them.

    Captions wrap to the panel width. ``caption_lines`` fixes how many caption
    lines there is room for (extra lines are cut), so every frame of an
    animation has the same size.
    """
    width = panels[0].frame.shape[1]
    size = font_size or max(12, width // 28)
    pad, gap = size, size
    # The first caption (e.g. the intent) in ink, the others (e.g. the sound) muted.
    captions = [
        [(line, INK if i == 0 else MUTED) for i, text in enumerate(p.caption) for line in wrap(text, size, width)]
        for p in panels
    ]
    if caption_lines is not None:
        captions = [c[:caption_lines] for c in captions]
    n_lines = caption_lines if caption_lines is not None else max((len(c) for c in captions), default=0)
    caption_h = n_lines * int(size * 1.35)
    header_h = len(header) * int(size * 1.5) + (pad if header else 0)
    title_h = int(size * 1.8) if any(p.title for p in panels) else 0
    frame_h = max(p.frame.shape[0] for p in panels)
    total_w = pad * 2 + sum(p.frame.shape[1] for p in panels) + gap * (len(panels) - 1)
    total_h = pad + header_h + title_h + frame_h + (size // 2 + caption_h if caption_h else 0) + pad
    image = np.full((total_h, total_w, 3), BACKGROUND, dtype=np.uint8)
    for i, line in enumerate(header):
        image = draw_text(image, (total_w // 2, pad + i * int(size * 1.5)), line, int(size * 1.15), INK, "ma")
    x = pad
    for panel, lines in zip(panels, captions):
        h, w = panel.frame.shape[:2]
        top = pad + header_h
        if panel.title:
            image = draw_text(image, (x + w // 2, top), panel.title, int(size * 1.25), panel.title_color, "ma")
        image[top + title_h : top + title_h + h, x : x + w] = panel.frame
        y = top + title_h + frame_h + size // 2
        for j, (line, color) in enumerate(lines):
            image = draw_text(image, (x, y + j * int(size * 1.35)), line, size, color)
        x += w + gap
    return image


def agent_title_color(name: str) -> Color:
    """A panel title in the agent's colour, darkened for legibility on the light background."""
    r, g, b = AGENT_COLORS.get(name, INK)
    return (int(r * 0.8), int(g * 0.8), int(b * 0.8))
