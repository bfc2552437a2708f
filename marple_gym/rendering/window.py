"""A pygame window: a frame with a caption strip under it.

``MarpleEnv(render_mode="human")`` shows its frames here, and ``marple play``
drives one. Headless runs (tests, servers) work with ``SDL_VIDEODRIVER=dummy``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from marple_gym.errors import MarpleError
from marple_gym.evidence.visibility import Visibility
from marple_gym.rendering.compose import BACKGROUND, INK, MUTED
from marple_gym.rendering.frames import render_frame

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

HEADLESS_DRIVERS = ("dummy", "offscreen")
"""SDL's video drivers that show nothing: what SDL falls back to where there is no display (no ``DISPLAY`` or
``WAYLAND_DISPLAY``), and what ``SDL_VIDEODRIVER=dummy`` asks for."""


class NoDisplayError(MarpleError):
    """A window a person must see and answer, on a machine with no display to show it on."""


def require_display(purpose: str, instead: str) -> None:
    """Refuse to open ``purpose``'s window where nobody would see it (SDL has no video device, or only one of
    :data:`HEADLESS_DRIVERS`), before anything opens: a window nobody sees would wait for keys for ever.
    ``instead`` says what to do without a display."""
    import pygame

    try:
        pygame.display.init()
    except pygame.error as exc:
        driver = f"SDL has no video device ({exc})"
    else:
        driver = pygame.display.get_driver()
        if driver not in HEADLESS_DRIVERS:
            return
        pygame.display.quit()
        driver = f"SDL's video driver is {driver!r}"
    raise NoDisplayError(
        f"{purpose} shows a window, and this machine has no display to show it on ({driver}: DISPLAY and "
        f"WAYLAND_DISPLAY are unset, or SDL_VIDEODRIVER asks for none). Run it on a desktop, or over ssh -X; "
        f"{instead}"
    )


MIN_WIDTH = 560
"""Narrow frames (small tiles) are centred in a window at least this wide, so captions fit."""


class Window:
    """A window that shows an RGB frame above a few lines of text."""

    def __init__(self, title: str = "MARPLE-Gym", font_size: int = 18) -> None:
        import pygame  # loaded when a window opens: rendering to arrays needs no pygame

        self._pg = pygame
        pygame.display.init()
        pygame.font.init()
        pygame.display.set_caption(title)
        self.font = pygame.font.Font(None, int(font_size * 1.25))
        self.line_height = int(font_size * 1.35)
        self.screen = None
        self.clock = pygame.time.Clock()

    @property
    def is_open(self) -> bool:
        return self.screen is not None

    def show(self, frame: np.ndarray, lines: Sequence[str] = (), muted: Sequence[str] = ()) -> None:
        """Show ``frame`` with ``lines`` (ink) and then ``muted`` lines (grey) underneath, wrapped to fit."""
        pg = self._pg
        h, w = frame.shape[:2]
        pad = self.line_height // 2
        width = max(w, MIN_WIDTH)
        rows = [(row, INK) for text in lines for row in wrap_lines(self.font, text, width - 2 * pad)]
        rows += [(row, MUTED) for text in muted for row in wrap_lines(self.font, text, width - 2 * pad)]
        size = (width, h + pad * 2 + self.line_height * len(rows))
        if self.screen is None or self.screen.get_size() != size:
            self.screen = pg.display.set_mode(size)
        self.screen.fill(BACKGROUND)
        self.screen.blit(
            pg.surfarray.make_surface(np.ascontiguousarray(frame.transpose(1, 0, 2))), ((width - w) // 2, 0)
        )
        for i, (text, color) in enumerate(rows):
            self.screen.blit(self.font.render(text, True, color), (pad, h + pad + i * self.line_height))
        pg.display.flip()

    def present(self, frame: np.ndarray, lines: Sequence[str], fps: float) -> None:
        """An env's ``human`` rendering: show the frame and lines, keep the window responsive, keep to ``fps``."""
        self.show(frame, lines)
        self.pump()  # without taking the caller's events
        self.tick(fps)

    def tick(self, fps: float) -> None:
        """Wait so that successive calls run at most ``fps`` times a second."""
        self.clock.tick(fps)

    def poll(self) -> list:
        """The pygame events since the last call."""
        return self._pg.event.get()

    def pump(self) -> None:
        """Let the window system process its queue (leaves the events for :meth:`poll`)."""
        self._pg.event.pump()

    def close(self) -> None:
        if self.screen is not None:
            self._pg.display.quit()
            self.screen = None


def wrap_lines(font, text: str, width: int) -> list[str]:
    """Break ``text`` into lines that a pygame ``font`` renders no wider than ``width`` pixels."""
    out: list[str] = []
    for word in text.split(" "):
        if out and font.size(f"{out[-1]} {word}")[0] <= width:
            out[-1] = f"{out[-1]} {word}"
        else:
            out.append(word)
    return out or [""]


def render_env(
    env: Any, title: str, lines: Callable[[], Sequence[str]], visibility: Visibility | None = None
) -> np.ndarray | None:
    """What an env's ``render()`` does: for ``rgb_array`` return the house's frame; for ``human`` show it with
    ``lines()`` under it in ``env.window`` (opened, titled ``title``, on first use). ``env`` has the
    ``render_mode``, ``world``, ``tile_size``, ``window`` and ``metadata`` of the MARPLE envs; ``visibility``
    screens off what the agent does not perceive (:func:`~marple_gym.rendering.frames.render_grid`)."""
    if env.render_mode is None or env.world is None:
        return None

    frame = render_frame(env.world, tile_size=env.tile_size, visibility=visibility)
    if env.render_mode == "rgb_array":
        return frame
    if env.window is None:
        env.window = Window(title)
    env.window.present(frame, lines(), env.metadata["render_fps"])
    return None
