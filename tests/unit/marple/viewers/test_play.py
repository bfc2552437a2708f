"""`marple play` driven headless by scripted key events."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pygame
import pytest
from PIL import Image

import marple_gym  # noqa: F401
from marple.cli import play
from marple.cli.main import build_parser, main
from marple.viewers.play import KEYS, ManualControl
from marple_gym.rendering.window import Window
from marple_gym.world import Action


def key(k: int) -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=k, mod=0)


SCRIPT = [
    [key(pygame.K_UP)],
    [],
    [key(pygame.K_LEFT), key(pygame.K_UP)],
    [key(pygame.K_p)],
    [key(pygame.K_SPACE)],
    [key(pygame.K_o)],
    [key(pygame.K_c)],
    [key(pygame.K_x)],
    [key(pygame.K_i)],
    [key(pygame.K_d)],
    [key(pygame.K_RIGHT)],
    [key(pygame.K_a)],
]  # "a" is not a key of the game: ignored
EXPECTED = [
    Action.forward,
    Action.left,
    Action.forward,
    Action.pickup,
    Action.toggle,
    Action.open,
    Action.close,
    Action.clean,
    Action.idle,
    Action.drop,
    Action.right,
]


def test_keys_drive_the_env_exactly_like_the_same_actions():
    env = gym.make("Marple-DoLaundry-v0", render_mode="rgb_array", tile_size=8)
    window = Window()
    try:
        control = ManualControl(env, window, seed=4)
        result = control.run(SCRIPT)
    finally:
        window.close()
    assert result.actions == [int(a) for a in EXPECTED] and result.steps == len(EXPECTED)
    reference = gym.make("Marple-DoLaundry-v0")
    obs, _ = reference.reset(seed=4)
    for action in EXPECTED:
        obs, *_ = reference.step(int(action))
    assert np.array_equal(env.unwrapped.world.state.grid, obs["image"])


def test_backspace_starts_a_new_house_and_escape_quits():
    env = gym.make("Marple-DoLaundry-v0", render_mode="rgb_array", tile_size=8)
    window = Window()
    try:
        control = ManualControl(env, window, seed=1)
        result = control.run(
            [[key(pygame.K_UP)], [key(pygame.K_BACKSPACE)], [key(pygame.K_ESCAPE)], [key(pygame.K_UP)]]
        )
    finally:
        window.close()
    assert result.episodes == 2 and result.steps == 1  # the key after Esc was never read
    assert env.unwrapped.step_count == 0


def test_the_window_shows_the_frame_captions_and_the_keys():
    env = gym.make("Marple-DoLaundry-v0", render_mode="rgb_array", tile_size=16)
    window = Window()
    try:
        ManualControl(env, window, seed=0).run([[key(pygame.K_UP)]])
        width, height = window.screen.get_size()
        frame = env.render()
        shown = pygame.surfarray.array3d(window.screen).transpose(1, 0, 2)
    finally:
        window.close()
    x0 = (width - frame.shape[1]) // 2
    assert np.array_equal(shown[: frame.shape[0], x0 : x0 + frame.shape[1]], frame)
    assert height >= frame.shape[0] + 5 * window.line_height  # mission, intent, step/sound, two help lines


def test_events_posted_to_the_pygame_queue_are_played():
    env = gym.make("Marple-DoLaundry-v0", render_mode="rgb_array", tile_size=8)
    window = Window()
    try:
        control = ManualControl(env, window, seed=0)
        control.reset(0)
        for k in (pygame.K_LEFT, pygame.K_LEFT, pygame.K_q):
            pygame.event.post(key(k))
        result = control.run(max_frames=5)
    finally:
        window.close()
    assert result.actions == [int(Action.left)] * 2 and not control.running


def test_marple_play_cli_records_a_gif_and_lists_its_keys(tmp_path, capsys):
    gif = tmp_path / "play.gif"
    args = build_parser().parse_args(
        ["play", "Marple-GetSnack-v0", "--seed", "2", "--tile-size", "8", "--record", str(gif)]
    )
    assert play.run(args, events=SCRIPT[:3]) == 0
    assert "3 steps" in capsys.readouterr().out
    with Image.open(gif) as image:
        # the start and three steps; Pillow merges identical frames (a blocked move), adding up their durations
        durations = []
        for index in range(image.n_frames):
            image.seek(index)
            durations.append(image.info["duration"])
        assert round(sum(durations) / (1000 / 8)) == 4  # marple play records at 8 frames per second
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    text = capsys.readouterr().out
    for names, action, _ in KEYS:
        assert names[0] in text and action.name in text
    with pytest.raises(SystemExit) as refused:  # by the parser: nothing opens
        main(["play", "Marple-DoLaundy-v0"])
    err = capsys.readouterr().err
    assert refused.value.code == 2 and "argument env_id: unknown environment 'Marple-DoLaundy-v0'" in err
    assert "did you mean Marple-DoLaundry-v0" in err


def test_gymnasiums_play_drives_an_env_with_its_keymap():
    from gymnasium.utils.play import play

    env = gym.make("Marple-GetSnack-v0", render_mode="rgb_array", tile_size=8)
    release_up = pygame.event.Event(pygame.KEYUP, key=pygame.K_UP, mod=0)
    # What the player presses after each step: up (forward), then p (pick up), then escape (play ends).
    script = [[key(pygame.K_UP)], [release_up, key(pygame.K_p)], [key(pygame.K_ESCAPE)]]
    steps = []

    def callback(obs, next_obs, action, reward, terminated, truncated, info):
        steps.append(action)
        for event in script[len(steps) - 1]:
            pygame.event.post(event)

    play(env, fps=1000, noop=int(Action.idle), callback=callback, seed=0)
    assert steps == [Action.idle, Action.forward, Action.pickup]
    keymap = env.unwrapped.get_keys_to_action()
    assert {keymap[(pygame.K_LEFT,)], keymap[(pygame.K_i,)], keymap[(pygame.K_PAGEUP,)]} == {0, 9, 3}
    assert sorted(set(keymap.values())) == list(range(10))
