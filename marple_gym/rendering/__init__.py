"""Pictures of the world: pure drawing, below the envs.
 ``frames`` (a world or a recorded grid as RGB),
``tiles``, ``furniture``, ``glyphs``, ``labels``, ``legend``, ``layout``,
``palette``, ``canvas``, ``text``, ``compose`` (side-by-side panels),
``captions`` (an episode in words), ``export`` (frames to files) and ``window``
(a pygame surface to show frames on). None of them knows an env or a dataset:
the viewers built on them are in :mod:`marple_gym.viewers`.
"""

from marple_gym.rendering.frames import render_frame, render_grid

__all__ = ["render_frame", "render_grid"]
