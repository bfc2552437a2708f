"""bench/reference_rate.py and bench/bench_env.py's whole episodes: the machine line names what a reader on
another machine needs to scale a figure, and a whole-episode rate counts only complete episodes, each from a
reset (the speeds themselves are the scripts' to print, never a test's to assert)."""

from __future__ import annotations

import gymnasium as gym
from bench_scripts import load_bench
from gymnasium import spaces


def test_the_machine_line_names_the_cpu_the_cores_the_load_and_the_reference_rate():
    reference = load_bench("reference_rate")
    machine = reference.measure_machine(steps=300)
    assert machine.reference_rate > 0 and machine.cores >= 1 and machine.cpu
    line = machine.line()
    assert machine.cpu in line and f"{machine.cores} cores" in line and "load" in line
    assert "reference rate" in line and reference.REFERENCE_ENV in line


class FourStepEpisodes(gym.Env):
    """Every episode ends after four steps; counts resets and steps."""

    observation_space = spaces.Discrete(1)
    action_space = spaces.Discrete(3)

    def __init__(self) -> None:
        self.resets = self.steps = self.since_reset = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.resets, self.since_reset = self.resets + 1, 0
        return 0, {}

    def step(self, action):
        self.steps, self.since_reset = self.steps + 1, self.since_reset + 1
        return 0, 0.0, self.since_reset == 4, False, {}


def test_whole_episodes_run_to_their_end_from_a_reset_until_enough_steps():
    env = FourStepEpisodes()
    rate = load_bench("bench_env").episode_steps_per_second(env, 10, 3)
    assert rate > 0
    assert env.steps == 12 and env.resets == 1 + 3  # a warm-up reset, then three whole episodes
