"""Pictures of the world: RGB frames."""

from marple_gym.rendering.frames import render_frame

__all__ = ["render_frame"]
