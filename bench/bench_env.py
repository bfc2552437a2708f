"""Environment speed: steps, resets and state clones per CPU second, against MiniGrid in the same run.

    python bench/bench_env.py [--steps 30000] [--resets 300]

MiniGrid's DoorKey envs are measured in the same process with the same random
actions and seeds, so the ratios hold on any machine. Rates are per CPU second
of this process (``time.process_time``), so that other jobs on a shared
machine slow them less than they slow wall time.

Rows: steps with the default observation and with the scene graph in
``info`` (kept up to date per house: the goal is at least 20 % of the plain
rate); resets of the default 20 x 20 house (goal: at most 0.5 ms) and of a
dense 128 x 128 house (four rooms, 5-10 pieces of furniture per room and 1-3
objects on each: about four times the default house's items; goal: within 5x
the default house's reset), beside DoorKey-8x8's and DoorKey-16x16's.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import minigrid  # noqa: F401  (registers MiniGrid envs)
import numpy as np
from minigrid.wrappers import FullyObsWrapper

import marple_gym  # noqa: F401

DENSE_128 = {"width": 128, "height": 128, "furniture_per_room": [5, 10], "objects_per_furniture": [1, 3]}
"""The dense large house of the reset rows."""


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


def clones_per_second(n: int) -> float:
    env = gym.make("Marple-DoLaundry-v0").unwrapped
    env.reset(seed=0)
    world = env.world
    start = time.process_time()
    for _ in range(n):
        snapshot = world.get_state()
        world.set_state(snapshot)
    return n / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=30_000)
    parser.add_argument("--resets", type=int, default=300)
    args = parser.parse_args()

    rows = []
    doorkey = steps_per_second(gym.make("MiniGrid-DoorKey-16x16-v0"), args.steps, 7)
    doorkey_full = steps_per_second(FullyObsWrapper(gym.make("MiniGrid-DoorKey-16x16-v0")), args.steps, 7)
    rows.append(("MiniGrid DoorKey-16x16 step (7x7 view)", doorkey, "steps/s"))
    rows.append(("MiniGrid DoorKey-16x16 step (full grid)", doorkey_full, "steps/s"))
    marple = steps_per_second(gym.make("Marple-DoLaundry-v0"), args.steps, 10)
    marple_graph = steps_per_second(gym.make("Marple-DoLaundry-v0", scene_graph=True), args.steps // 2, 10)
    rows.append(("Marple step, image+intent+audio (20x20)", marple, "steps/s"))
    rows.append(("Marple step, + scene graph in info", marple_graph, "steps/s"))
    doorkey_8 = resets_per_second(gym.make("MiniGrid-DoorKey-8x8-v0"), args.resets)
    doorkey_16 = resets_per_second(gym.make("MiniGrid-DoorKey-16x16-v0"), args.resets)
    marple_resets = resets_per_second(gym.make("Marple-DoLaundry-v0"), args.resets)
    dense = resets_per_second(gym.make("Marple-Household-v0", mission="do_laundry", config=DENSE_128), args.resets // 3)
    rows.append(("MiniGrid DoorKey-8x8 reset", doorkey_8, "resets/s"))
    rows.append(("MiniGrid DoorKey-16x16 reset", doorkey_16, "resets/s"))
    rows.append(("Marple reset (20x20, 4 rooms)", marple_resets, "resets/s"))
    rows.append(("Marple reset (dense 128x128, 4 rooms)", dense, "resets/s"))
    rows.append(("Marple world clone + restore", clones_per_second(100_000), "pairs/s"))

    width = max(len(r[0]) for r in rows)
    for name, value, unit in rows:
        print(f"{name:<{width}}  {value:>12,.0f} {unit}")
    print()
    print(f"step ratio vs DoorKey (7x7 view):     {marple / doorkey:5.2f}x   (target >= 2.5x)")
    print(f"step ratio vs DoorKey (full grid):    {marple / doorkey_full:5.2f}x")
    print(f"scene-graph step rate / plain rate:   {marple_graph / marple:5.1%}   (target >= 20%)")
    print(f"Marple reset time (20x20):            {1000 / marple_resets:5.2f} ms  (target <= 0.5 ms)")
    print(f"Marple reset time (dense 128x128):    {1000 / dense:5.2f} ms")
    print(f"dense 128x128 reset / 20x20 reset:    {marple_resets / dense:5.2f}x   (target <= 5x)")
    print(f"Marple reset / DoorKey-8x8 reset:     {doorkey_8 / marple_resets:5.2f}x")


if __name__ == "__main__":
    main()
