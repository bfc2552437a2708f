"""An episode written as files (what ``marple replay`` does): an animation (GIF/MP4) and a soundtrack (WAV).

The episode is a whodunit test pair of a dataset (both agents side by side, or one of them) or a fresh planner
episode of one mission (:mod:`marple_gym.datasets.replay_sources`). The soundtrack holds one clip per step, lasting
one frame, so sound and picture line up; a pair is stereo, Agent A left::

    request = ReplayRequest(data="data/marple", episode="laundry/h00/003", out=("pair.gif",), audio="pair.wav")
    write_replay(request, written=print)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from marple.viewers.replays import trajectory_frames, whodunit_frames
from marple_gym.datasets.replay_sources import planner_trajectory, whodunit_pair
from marple_gym.rendering.animation import check_path, save_animation
from marple_gym.sound import SoundBank, SoundError, write_soundtrack

AGENTS = ("A", "B", "both")
"""Which agents of a pair to show: one (A is the culprit) or both side by side."""


@dataclass(frozen=True)
class ReplayRequest:
    """Which episode to replay and what to write of it.

    Without ``data``, a fresh planner episode of ``mission`` in a house drawn from ``seed``; with it, the test pair
    ``episode`` of that dataset, else pair ``index`` of ``scenario`` (default: the dataset's first), showing
    ``agent`` (``swap`` puts agent B on the left). ``out`` lists the animations to write (.gif or .mp4), ``audio``
    the soundtrack (.wav), at ``fps`` steps per second and ``tile_size`` pixels per cell; ``captions`` adds
    intents, sounds and titles under the houses.
    """

    data: str | Path | None = None
    episode: str | None = None
    scenario: str | None = None
    index: int = 0
    agent: str = "both"
    swap: bool = False
    mission: str | None = None
    seed: int = 0
    out: tuple[str | Path, ...] = ()
    audio: str | Path | None = None
    fps: float = 2.0
    tile_size: int = 24
    captions: bool = True

    def check(self) -> None:
        """Raise now on what could only fail after the work: nothing to write, a bad rate or size, no episode
        named, a file format that cannot be written."""
        if not self.out and not self.audio:
            raise ValueError("nothing to write: give --out PATH (.gif/.mp4) and/or --audio PATH (.wav)")
        if self.fps <= 0 or self.tile_size < 4:
            raise ValueError("--fps must be positive and --tile-size at least 4")
        if self.data is None and self.mission is None:
            raise ValueError("give --data (a dataset's test pairs) or --mission (a fresh planner episode)")
        if self.agent not in AGENTS:
            raise ValueError(f"agent must be one of {', '.join(AGENTS)}, got {self.agent!r}")
        for path in self.out:
            check_path(path)
        if self.audio and not str(self.audio).lower().endswith(".wav"):
            raise SoundError(f"{self.audio}: the soundtrack is written as WAV; name it *.wav")


@dataclass(frozen=True)
class Replay:
    """An episode ready to write: ``frames()`` yields the animation's frames afresh on each call; ``tracks`` holds
    the sound tokens per channel (one for a single agent, left and right for a pair), one per step."""

    frames: Callable[[], Iterator[np.ndarray]]
    tracks: list[list[int]]


def select_replay(request: ReplayRequest) -> Replay:
    """The episode ``request`` names, as frames and sound tracks."""
    if request.data is None:
        trajectory = planner_trajectory(request.mission, request.seed)
    else:
        episode = whodunit_pair(request.data, request.episode, request.scenario, request.index)
        if request.agent == "both":
            left, right = episode.trajectories[::-1] if request.swap else episode.trajectories
            steps = episode.horizon + 1
            frames = partial(whodunit_frames, episode, request.tile_size, request.swap, request.captions)
            return Replay(frames, [_padded(left.audio.tolist(), steps), _padded(right.audio.tolist(), steps)])
        trajectory = episode.trajectories[0 if request.agent == "A" else 1]
    frames = partial(trajectory_frames, trajectory, request.tile_size, request.captions)
    return Replay(frames, [trajectory.audio.tolist()])


def _quiet(line: str) -> None:
    """Tell no one (the default of :func:`write_replay`'s ``written``)."""


def write_replay(request: ReplayRequest, written: Callable[[str], None] = _quiet) -> list[Path]:
    """Write the animations and the soundtrack ``request`` asks for; returns their paths.

    Everything that can be checked before the work is (:meth:`ReplayRequest.check`). ``written`` is told one line
    per file as soon as it is on disk (``marple replay`` prints them), so a later failure leaves an honest account
    of what was written.
    """
    request.check()
    replay = select_replay(request)
    paths = []
    for path in request.out:
        paths.append(save_animation(replay.frames(), path, fps=request.fps))
        written(f"wrote {path}")
    if request.audio:
        seconds = 1.0 / request.fps
        paths.append(write_soundtrack(request.audio, replay.tracks, SoundBank(duration=seconds)))
        written(f"wrote {request.audio} ({len(replay.tracks[0])} steps of {seconds:g} s)")
    return paths


def _padded(tokens: list[int], steps: int) -> list[int]:
    """Cut or pad a token track to ``steps`` (silence after an agent has finished)."""
    return (tokens + [0] * steps)[:steps]
