"""Pictures of the world: RGB frames, side-by-side panels, windows and animations."""

from marple_gym.rendering.frames import render_frame, render_grid

__all__ = ["render_frame", "render_grid"]
