"""Environment speed: steps, resets and state clones per second, against MiniGrid in the same run.

    python bench/bench_env.py [--steps 30000]

MiniGrid-DoorKey-16x16-v0 is measured in the same process with the same random
actions, so the ratios hold on any machine.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import minigrid  # noqa: F401  (registers MiniGrid envs)
import numpy as np
from minigrid.wrappers import FullyObsWrapper

import marple_gym  # noqa: F401


def steps_per_second(env: gym.Env, n: int, n_actions: int, seed: int = 0) -> float:
    env.reset(seed=seed)
    actions = np.random.default_rng(seed).integers(0, n_actions, n).tolist()
    start = time.perf_counter()
    for a in actions:
        _, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            env.reset()
    return n / (time.perf_counter() - start)


def resets_per_second(env: gym.Env, n: int) -> float:
    start = time.perf_counter()
    for i in range(n):
        env.reset(seed=i)
    return n / (time.perf_counter() - start)


def clones_per_second(n: int) -> float:
    env = gym.make("Marple-DoLaundry-v0").unwrapped
    env.reset(seed=0)
    world = env.world
    start = time.perf_counter()
    for _ in range(n):
        snapshot = world.get_state()
        world.set_state(snapshot)
    return n / (time.perf_counter() - start)


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
    marple_graph = steps_per_second(gym.make("Marple-DoLaundry-v0", scene_graph=True), args.steps // 5, 10)
    rows.append(("Marple step, image+intent+audio (20x20)", marple, "steps/s"))
    rows.append(("Marple step, + scene graph in info", marple_graph, "steps/s"))
    doorkey_resets = resets_per_second(gym.make("MiniGrid-DoorKey-16x16-v0"), args.resets)
    marple_resets = resets_per_second(gym.make("Marple-DoLaundry-v0"), args.resets)
    rows.append(("MiniGrid DoorKey-16x16 reset", doorkey_resets, "resets/s"))
    rows.append(("Marple reset (20x20, 4 rooms)", marple_resets, "resets/s"))
    rows.append(("Marple world clone + restore", clones_per_second(100_000), "pairs/s"))

    width = max(len(r[0]) for r in rows)
    for name, value, unit in rows:
        print(f"{name:<{width}}  {value:>12,.0f} {unit}")
    print()
    print(f"step ratio vs DoorKey (7x7 view):   {marple / doorkey:5.2f}x   (target >= 2.5x)")
    print(f"step ratio vs DoorKey (full grid):  {marple / doorkey_full:5.2f}x")
    print(f"Marple reset time:                  {1000 / marple_resets:5.2f} ms  (target < 5 ms)")


if __name__ == "__main__":
    main()
