"""Environment speed: steps, resets, whole episodes and state clones per CPU second, against MiniGrid in the same run.

    python bench/bench_env.py [--steps 30000] [--resets 300] [--episode-steps 40000] [--repeat 3]

MiniGrid's DoorKey envs are measured in the same process with the same random
actions and seeds, so the ratios hold on any machine. Rates are per CPU second
of this process (``time.process_time``), so that other jobs on a shared
machine slow them less than they slow wall time.

Rows: steps with the default observation and with the scene graph in
``info`` (kept up to date per house: the goal is at least 20 % of the plain
rate); resets of the default 20 x 20 house (goal: at most 0.5 ms) and of a
dense 128 x 128 house (four rooms, 5-10 pieces of furniture per room and 1-3
objects on each: about four times the default house's items; goal: within 5x
the default house's reset), beside DoorKey-8x8's and DoorKey-16x16's; whole
episodes (``reset``, then random actions until the episode terminates or is
truncated, the resets' time included) of ``Marple-DoLaundry-v0`` (500 steps)
beside DoorKey-16x16's (2,560 steps), as steps per CPU second (goal: at least
15x DoorKey's); and ``Marple-Search-v0``'s steps beside
``Marple-DoLaundry-v0``'s (goal: at least half its rate).

The first and last lines give the machine and its reference rate
(``bench/reference_rate.py``). With ``--repeat R`` every figure is measured R
times, interleaved, and the ratios are given as median and minimum.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator

import gymnasium as gym
import minigrid  # noqa: F401  (registers MiniGrid envs)
import numpy as np
from minigrid.wrappers import FullyObsWrapper
from reference_rate import machine_line

import marple_gym  # noqa: F401

DENSE_128 = {"width": 128, "height": 128, "furniture_per_room": [5, 10], "objects_per_furniture": [1, 3]}
"""The dense large house of the reset rows."""
DOORKEY = "MiniGrid-DoorKey-16x16-v0"
MARPLE, SEARCH, HOUSEHOLD = "Marple-DoLaundry-v0", "Marple-Search-v0", "Marple-Household-v0"


def steps_per_second(env: gym.Env, n: int, n_actions: int, seed: int = 0) -> float:
    env.reset(seed=seed)
    actions = np.random.default_rng(seed).integers(0, n_actions, n).tolist()
    start = time.process_time()
    for a in actions:
        _, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            env.reset()
    return n / (time.process_time() - start)


def resets_per_second(env: gym.Env, n: int) -> float:
    env.reset(seed=n)  # warm up (first-use caches) outside the timing
    start = time.process_time()
    for i in range(n):
        env.reset(seed=i)
    return n / (time.process_time() - start)


def episode_steps_per_second(env: gym.Env, n: int, n_actions: int, seed: int = 0) -> float:
    """Steps per CPU second over whole episodes (``reset(seed=seed + k)``, then uniformly random actions until the
    episode ends), the resets' time included, until at least ``n`` steps are done."""
    env.reset(seed=seed)  # warm up (first-use caches) outside the timing
    actions = _random_actions(np.random.default_rng(seed), n_actions)
    steps, episode = 0, 0
    start = time.process_time()
    while steps < n:
        env.reset(seed=seed + episode)
        episode += 1
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(next(actions))
            done = terminated or truncated
            steps += 1
    return steps / (time.process_time() - start)


def _random_actions(rng: np.random.Generator, n_actions: int) -> Iterator[int]:
    """Uniformly random actions, drawn 4,096 at a time (a draw per step would cost more than a Marple step)."""
    while True:
        yield from rng.integers(0, n_actions, 4096).tolist()


def clones_per_second(n: int) -> float:
    env = gym.make(MARPLE).unwrapped
    env.reset(seed=0)
    world = env.world
    start = time.process_time()
    for _ in range(n):
        snapshot = world.get_state()
        world.set_state(snapshot)
    return n / (time.process_time() - start)


DOORKEY_STEP, DOORKEY_FULL_STEP = "DoorKey-16x16 step (7x7 view)", "DoorKey-16x16 step (full grid)"
MARPLE_STEP, GRAPH_STEP, SEARCH_STEP = "Marple step (20x20, every key)", "Marple step + scene graph", "Search step"
DOORKEY_EPISODES, MARPLE_EPISODES = "DoorKey-16x16 whole episodes", "Marple whole episodes (DoLaundry)"
DOORKEY_RESET, MARPLE_RESET, DENSE_RESET = "DoorKey-16x16 reset", "Marple reset (20x20)", "Marple reset (dense 128x128)"

RATIOS: tuple[tuple[str, str, str, str], ...] = (
    # (what, numerator row, denominator row, goal)
    ("step, Marple / DoorKey (7x7 view)", MARPLE_STEP, DOORKEY_STEP, "goal >= 20x"),
    ("step, Marple / DoorKey (full grid)", MARPLE_STEP, DOORKEY_FULL_STEP, ""),
    ("whole episodes, Marple / DoorKey", MARPLE_EPISODES, DOORKEY_EPISODES, "goal >= 15x"),
    ("step, Search / DoLaundry", SEARCH_STEP, MARPLE_STEP, "goal >= 0.5"),
    ("step, scene graph / plain", GRAPH_STEP, MARPLE_STEP, "goal >= 0.2"),
    ("reset rate, Marple 20x20 / DoorKey-16x16", MARPLE_RESET, DOORKEY_RESET, ""),
    ("reset, Marple 20x20 / dense 128x128", MARPLE_RESET, DENSE_RESET, "goal <= 5x"),
)


def measure(args: argparse.Namespace) -> dict[str, tuple[float, str]]:
    """Every row once: name -> (rate, unit)."""
    dense = {"mission": "do_laundry", "config": DENSE_128}
    rows: dict[str, tuple[Callable[[], float], str]] = {
        DOORKEY_STEP: (lambda: steps_per_second(gym.make(DOORKEY), args.steps, 7), "steps/s"),
        DOORKEY_FULL_STEP: (lambda: steps_per_second(FullyObsWrapper(gym.make(DOORKEY)), args.steps, 7), "steps/s"),
        MARPLE_STEP: (lambda: steps_per_second(gym.make(MARPLE), args.steps, 10), "steps/s"),
        GRAPH_STEP: (lambda: steps_per_second(gym.make(MARPLE, scene_graph=True), args.steps // 2, 10), "steps/s"),
        SEARCH_STEP: (lambda: steps_per_second(gym.make(SEARCH), args.steps // 2, 10), "steps/s"),
        DOORKEY_EPISODES: (lambda: episode_steps_per_second(gym.make(DOORKEY), args.episode_steps, 7), "steps/s"),
        MARPLE_EPISODES: (lambda: episode_steps_per_second(gym.make(MARPLE), args.episode_steps, 10), "steps/s"),
        "DoorKey-8x8 reset": (lambda: resets_per_second(gym.make("MiniGrid-DoorKey-8x8-v0"), args.resets), "resets/s"),
        DOORKEY_RESET: (lambda: resets_per_second(gym.make(DOORKEY), args.resets), "resets/s"),
        MARPLE_RESET: (lambda: resets_per_second(gym.make(MARPLE), args.resets), "resets/s"),
        DENSE_RESET: (lambda: resets_per_second(gym.make(HOUSEHOLD, **dense), max(1, args.resets // 3)), "resets/s"),
        "Marple world clone + restore": (lambda: clones_per_second(100_000), "pairs/s"),
    }
    return {name: (rate(), unit) for name, (rate, unit) in rows.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=30_000)
    parser.add_argument("--resets", type=int, default=300)
    parser.add_argument("--episode-steps", type=int, default=40_000, help="at least this many steps of whole episodes")
    parser.add_argument("--repeat", type=int, default=1, help="measure every figure this many times")
    args = parser.parse_args()
    if min(args.steps, args.resets, args.episode_steps, args.repeat) < 1:
        parser.error("--steps, --resets, --episode-steps and --repeat must be >= 1")

    print(machine_line())
    runs = [measure(args) for _ in range(args.repeat)]
    width = max(len(name) for name in runs[0])
    print(f"{'per CPU second':<{width}}  {'median':>10}  {'min':>10}  {'max':>10}")
    for name, (_, unit) in runs[0].items():
        values = [run[name][0] for run in runs]
        print(
            f"{name:<{width}}  {statistics.median(values):>10,.0f}  {min(values):>10,.0f}  {max(values):>10,.0f}  {unit}"
        )
    for name in (MARPLE_RESET, DOORKEY_RESET):
        times = [1000 / run[name][0] for run in runs]
        print(
            f"{name + ' time':<{width}}  {statistics.median(times):>10.2f}  {min(times):>10.2f}  {max(times):>10.2f}  ms"
        )
    print()
    print(f"{'ratio':<38} {'median':>7} {'min':>7}")
    for what, top, bottom, goal in RATIOS:
        values = [run[top][0] / run[bottom][0] for run in runs]
        print(f"{what:<38} {statistics.median(values):>7.2f} {min(values):>7.2f}  {goal}")
    print(machine_line())


if __name__ == "__main__":
    main()
