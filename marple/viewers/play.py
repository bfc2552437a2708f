"""Driving an agent with the keyboard (``marple play``), in the spirit of MiniGrid's manual control.

The loop reads events from an *event source*, a callable returning the events
of one frame (by default the window's queue). Tests pass a scripted source and
the loop ends when the script does, so no test waits on a person. :func:`play`
(what ``marple play`` calls) opens a registered env in a window and plays it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import gymnasium as gym
import numpy as np

from marple_gym.envs.registration import env_ids
from marple_gym.rendering.animation import save_animation
from marple_gym.rendering.captions import episode_caption
from marple_gym.rendering.keys import KEY_TO_ACTION, KEYS, QUIT_KEYS, RESET_KEYS
from marple_gym.rendering.window import Window
from marple_gym.world.actions import Action

log = logging.getLogger(__name__)

HELP = [
    "  ".join(text for *_, text in KEYS[:5]),
    "  ".join(text for *_, text in KEYS[5:]) + "  backspace: new house  esc: quit",
]

EventSource = Callable[[], Sequence]


@dataclass
class PlayResult:
    """What happened in a play session."""

    steps: int = 0
    episodes: int = 1
    total_reward: float = 0.0
    completed: int = 0
    actions: list[int] = field(default_factory=list)


class ManualControl:
    """A person (or a script) plays a :class:`~marple_gym.envs.household.MarpleEnv` with the keyboard.

    ``env`` must render ``rgb_array`` frames; the window is ours, so the help
    line and end-of-episode messages can sit under the frame.
    """

    def __init__(self, env, window: Window, seed: int | None = None, record: str | Path | None = None) -> None:
        self.env = env
        self.window = window
        self.seed = seed
        self.record = Path(record) if record else None
        self.frames: list[np.ndarray] = []
        self.result = PlayResult()
        self.message = ""
        self.done = False
        self.running = True

    def run(self, events: Iterable[Sequence] | None = None, max_frames: int | None = None) -> PlayResult:
        """Play until the window closes, Esc, the scripted ``events`` (one list per frame) end, or ``max_frames``."""
        source: EventSource = self.window.poll if events is None else _scripted(events)
        self.reset(self.seed)
        frames = 0
        while self.running and (max_frames is None or frames < max_frames):
            batch = source()
            if batch is None:  # the script has ended
                break
            for event in batch:
                self.handle(event)
            if events is None:
                self.window.tick(30)  # a person is playing: do not spin the CPU
            frames += 1
        self._save_recording()
        return self.result

    def handle(self, event) -> None:
        """React to one pygame event."""
        import pygame  # a window: loaded when one opens

        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.KEYDOWN:
            self.key(pygame.key.name(event.key))

    def key(self, name: str) -> None:
        """React to a key, by its pygame name ("up", "space", "p", ...)."""
        if name in QUIT_KEYS:
            self.running = False
        elif name in RESET_KEYS:
            self.result.episodes += 1
            self.reset()
        elif name in KEY_TO_ACTION and not self.done:
            self.step(KEY_TO_ACTION[name])

    def reset(self, seed: int | None = None) -> None:
        self.env.reset(seed=seed)
        self.done = False
        self.message = ""
        self.draw()

    def step(self, action: Action) -> None:
        _, reward, terminated, truncated, info = self.env.step(int(action))
        self.result.steps += 1
        self.result.total_reward += float(reward)
        self.result.actions.append(int(action))
        if terminated:
            self.result.completed += 1
            self.message = "Mission complete! Backspace: a new house, Esc: quit."
        elif truncated:
            self.message = "Out of steps. Backspace: a new house, Esc: quit."
        elif not info.get("action_success", True):
            self.message = f"({action.name} did nothing here)"
        else:
            self.message = ""
        self.done = terminated or truncated
        self.draw()

    def draw(self) -> None:
        frame = self.env.render()
        if self.record is not None:
            self.frames.append(frame)
        lines = episode_caption(self.env.unwrapped.world.house, self.env.unwrapped.episode) + (
            [self.message] if self.message else []
        )
        self.window.show(frame, lines, HELP)

    def _save_recording(self) -> None:
        if self.record is not None and self.frames:
            save_animation(self.frames, self.record, fps=self.env.metadata.get("render_fps", 8))
            log.info("recorded %d frames to %s", len(self.frames), self.record)


def _scripted(events: Iterable[Sequence]) -> EventSource:
    batches = iter(events)
    return lambda: next(batches, None)


def play(
    env_id: str,
    mission: str | None = None,
    seed: int | None = None,
    tile_size: int = 32,
    record: str | Path | None = None,
    events: Iterable[Sequence] | None = None,
    max_frames: int | None = None,
) -> PlayResult:
    """Play the registered env ``env_id`` (``mission`` for the household env) in a window, from a first house
    drawn from ``seed``, recording the session to ``record`` (.gif or .mp4) if given. ``events`` (scripted pygame
    events, one list per frame) and ``max_frames`` are for tests."""
    env = make_env(env_id, mission, tile_size)
    window = Window(f"MARPLE-Gym: {env_id}")
    try:
        return ManualControl(env, window, seed=seed, record=record).run(events, max_frames)
    finally:
        window.close()
        env.close()


def make_env(env_id: str, mission: str | None = None, tile_size: int = 32) -> gym.Env:
    """The env ``env_id`` rendering ``rgb_array`` frames of ``tile_size`` pixels per cell, for :class:`ManualControl`."""
    if env_id not in gym.registry:
        raise ValueError(f"unknown environment {env_id!r}; choose from {', '.join(env_ids())}")
    if tile_size < 4:
        raise ValueError(f"--tile-size must be at least 4, got {tile_size}")
    kwargs = {"mission": mission} if mission else {}
    return gym.make(env_id, render_mode="rgb_array", tile_size=tile_size, **kwargs)
