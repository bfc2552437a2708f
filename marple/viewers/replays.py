"""Recorded episodes as pictures: one trajectory step by step, or a whodunit pair side by side.

::

    view = TrajectoryView(trajectory, tile_size=24)
    view.frame(10), view.intent(10), view.sound(10)
    for image in whodunit_frames(episode, language=True):
        ...

A trajectory shorter than the step asked for shows its last step (the agent
has finished and stands still), so two agents can be shown in lockstep up to
the culprit's horizon.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from marple_gym.recording.records import Trajectory, WhodunitEpisode
from marple_gym.rendering.captions import describe_sound
from marple_gym.rendering.compose import Panel, agent_title_color, compose
from marple_gym.rendering.frames import render_grid

PANEL_COLORS = ("red", "blue")
"""Agent colours by panel position (left, right): the colour follows the label, never the culprit."""


class TrajectoryView:
    """One recorded trajectory, drawn step by step in its house."""

    def __init__(self, trajectory: Trajectory, tile_size: int = 32, color: str = "red") -> None:
        self.trajectory = trajectory
        self.house = trajectory.initial_world().house  # furniture geometry for the tiles
        self.tile_size = int(tile_size)
        self.color = color

    @property
    def length(self) -> int:
        """T: the number of actions (steps run from 0 to T)."""
        return self.trajectory.length

    def _clamp(self, t: int) -> int:
        return max(0, min(int(t), self.trajectory.length))

    def frame(self, t: int) -> np.ndarray:
        t = self._clamp(t)
        tr = self.trajectory
        return render_grid(tr.vision[t], self.house, self.tile_size, hands=[tr.carrying[t]], agent_colors=[self.color])

    def intent(self, t: int) -> str:
        return self.trajectory.intent(self._clamp(t))

    def sound(self, t: int) -> int:
        """The audio token heard at step ``t`` (the sound of the action that led to it; none after the end)."""
        t = int(t)
        return int(self.trajectory.audio[t]) if 0 < t <= self.trajectory.length else 0


def trajectory_frames(trajectory: Trajectory, tile_size: int = 32, captions: bool = True) -> Iterator[np.ndarray]:
    """Every step of one trajectory, with its intent and sound underneath when ``captions``."""
    view = TrajectoryView(trajectory, tile_size)
    for t in range(view.length + 1):
        if not captions:
            yield view.frame(t)
            continue
        panel = Panel(
            view.frame(t),
            f"Agent {trajectory.agent}",
            agent_title_color(view.color),
            [f'"{view.intent(t)}"', f"sound: {describe_sound(view.sound(t))}"],
        )
        yield compose([panel], [f"step {t} / {view.length}"], caption_lines=3)


def whodunit_frames(
    episode: WhodunitEpisode,
    tile_size: int = 24,
    swap: bool = False,
    language: bool = True,
) -> Iterator[np.ndarray]:
    """Both agents side by side, "Agent A" left and "Agent B" right, from step 0 to the horizon T.

    ``swap`` shows trajectory 1 on the left. With ``language`` each panel shows the
    agent's intent and the sound it made.
    """
    left, right = episode.trajectories[::-1] if swap else episode.trajectories
    views = [TrajectoryView(tr, tile_size, color) for tr, color in zip((left, right), PANEL_COLORS)]
    for t in range(episode.horizon + 1):
        yield pair_frame(views, t, episode.horizon, episode.question, language)


def pair_frame(views: list[TrajectoryView], t: int, horizon: int, question: str, language: bool) -> np.ndarray:
    """One step of a whodunit pair as a composed image."""
    panels = []
    for view, name in zip(views, ("Agent A", "Agent B")):
        caption = [f'"{view.intent(t)}"', f"sound: {describe_sound(view.sound(t))}"] if language else []
        panels.append(Panel(view.frame(t), name, agent_title_color(view.color), caption))
    return compose(panels, [question, f"step {t} of {horizon}"], caption_lines=3 if language else 0)
