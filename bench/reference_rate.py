"""This machine's reference rate: MiniGrid DoorKey-16x16 steps per CPU second, with the CPU, cores and load.

    python bench/reference_rate.py [--steps 20000]

A speed figure means little without the speed of the machine it was measured
on. Every bench script that measures the world prints this line beside its own
figures (``from reference_rate import machine_line``), so that a reader on
another machine can scale a figure by the ratio of the two reference rates.

The reference is MiniGrid's ``MiniGrid-DoorKey-16x16-v0`` (its default 7 x 7
view, through ``gymnasium.make``'s wrappers) stepped with uniformly random
actions from a fixed seed, reset when an episode ends, timed by this process's
CPU time (``time.process_time``), which other jobs on a shared machine slow
less than wall time. The load average is read before and after the timing.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from dataclasses import dataclass

import gymnasium as gym
import minigrid  # noqa: F401  (registers MiniGrid envs)
import numpy as np

REFERENCE_ENV = "MiniGrid-DoorKey-16x16-v0"
REFERENCE_SEED = 0
REFERENCE_STEPS = 20_000
"""About 3-7 CPU seconds on the machines the docs' figures come from."""


@dataclass(frozen=True)
class Machine:
    """What a figure needs beside it to be scaled on another machine."""

    cpu: str
    cores: int
    load: tuple[float, float]  # 1-minute load average before and after the reference timing
    reference_rate: float  # REFERENCE_ENV steps per CPU second

    def line(self) -> str:
        """One line for a bench script's output."""
        before, after = self.load
        return (
            f"machine: {self.cpu}, {self.cores} cores, load {before:.1f}-{after:.1f}; "
            f"reference rate {self.reference_rate:,.0f} {REFERENCE_ENV} steps per CPU s"
        )


def cpu_model() -> str:
    """The CPU's model name (Linux's /proc/cpuinfo; elsewhere what :mod:`platform` says)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for row in f:
                if row.startswith("model name"):
                    return row.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def load_average() -> float:
    """The 1-minute load average (0 where the OS has none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def reference_rate(steps: int = REFERENCE_STEPS, seed: int = REFERENCE_SEED) -> float:
    """:data:`REFERENCE_ENV` steps per CPU second over ``steps`` uniformly random actions from ``seed``."""
    env = gym.make(REFERENCE_ENV)
    env.reset(seed=seed)
    actions = np.random.default_rng(seed).integers(0, int(env.action_space.n), steps).tolist()
    start = time.process_time()
    for a in actions:
        _, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            env.reset()
    spent = time.process_time() - start
    env.close()
    return steps / spent


def measure_machine(steps: int = REFERENCE_STEPS) -> Machine:
    """The CPU, cores, load and reference rate of this machine, now."""
    before = load_average()
    rate = reference_rate(steps)
    return Machine(cpu_model(), os.cpu_count() or 1, (before, load_average()), rate)


def machine_line(steps: int = REFERENCE_STEPS) -> str:
    """:meth:`Machine.line` of :func:`measure_machine`: what a bench script prints beside its figures."""
    return measure_machine(steps).line()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=REFERENCE_STEPS, help="DoorKey steps to time")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error("--steps must be >= 1")
    print(machine_line(args.steps))


if __name__ == "__main__":
    main()
