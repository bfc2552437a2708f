"""Pictures of the world, in two layers.

Pure drawing, below the envs: ``frames`` (a world or a recorded grid as RGB),
``tiles``, ``furniture``, ``glyphs``, ``labels``, ``legend``, ``layout``,
``palette``, ``canvas``, ``text``, ``compose`` (side-by-side panels),
``captions`` (an episode in words), ``export`` (frames to files) and ``window``
(a pygame surface to show frames on). None of them knows an env or a dataset.

Viewers, built on the drawing and on the layers above it: ``play`` (steer an
env by keyboard) and ``replays`` (recorded trajectories and whodunit episodes).
``tests/test_layers.py`` holds each module to its layer.
"""

from marple_gym.rendering.frames import render_frame, render_grid

__all__ = ["render_frame", "render_grid"]
