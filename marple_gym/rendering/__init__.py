"""Pictures of the world: pure drawing, below the envs.
 ``frames`` (a world or a recorded grid as RGB),
``tiles``, ``furniture``, ``glyphs``, ``labels``, ``legend``, ``layout``,
``palette``, ``canvas``, ``text``, ``compose`` (side-by-side panels),
``captions`` (an episode in words), ``animation`` (frames to GIF or MP4) and ``window``
(a pygame surface to show frames on). None of them knows an env or a dataset:
the application's viewers are built on them.
"""

from marple_gym.rendering.frames import render_frame, render_grid

__all__ = ["render_frame", "render_grid"]
