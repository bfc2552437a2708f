"""Rendering speed: frames per second of ``render_frame`` at several tile sizes, beside MiniGrid.

    python bench/bench_render.py [--frames 300] [--tiles 8 32]

Each size runs one planner episode of "do the laundry" (the agent walks, opens,
carries and toggles, so new tiles keep appearing) and times every frame:
"warm" is the steady rate once an episode's tiles are cached, "first frame" the
cost of drawing a house never seen before. MiniGrid-DoorKey-16x16-v0's
``render()`` (RGB frame, same tile size) is timed in the same run for scale.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import minigrid  # noqa: F401  (registers MiniGrid envs)
import numpy as np

from marple_gym.generation import generate_world
from marple_gym.planner import HierarchicalPlanner
from marple_gym.rendering import render_frame
from marple_gym.rendering.tiles import tile_image


def episode_worlds(seed: int, steps: int):
    """The world after each action of a planner episode (copies), repeating the episode if short."""
    worlds = []
    while len(worlds) < steps:
        rng = np.random.default_rng(seed + len(worlds))
        world = generate_world(None, rng, ["do_laundry"])
        planner = HierarchicalPlanner(world, mission="do_laundry", rng=rng)
        worlds.append(world.clone())
        while not planner.done and len(worlds) < steps:
            planner.step()
            worlds.append(world.clone())
    return worlds


def marple_fps(tile_size: int, frames: int) -> tuple[float, float]:
    """(warm frames per second, first-frame milliseconds) at ``tile_size``."""
    tile_image.cache_clear()
    worlds = episode_worlds(seed=tile_size, steps=frames)
    start = time.perf_counter()
    render_frame(worlds[0], tile_size)
    first = time.perf_counter() - start
    for world in worlds:  # a first pass caches the episode's tiles
        render_frame(world, tile_size)
    start = time.perf_counter()
    for world in worlds:
        render_frame(world, tile_size)
    return len(worlds) / (time.perf_counter() - start), first * 1000


def minigrid_fps(tile_size: int, frames: int) -> float:
    env = gym.make("MiniGrid-DoorKey-16x16-v0", render_mode="rgb_array", tile_size=tile_size)
    env.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 3, frames).tolist()
    for a in actions[:50]:  # warm MiniGrid's own tile cache
        env.step(a)
        env.render()
    start = time.perf_counter()
    for a in actions:
        env.step(a)
        env.render()
    return frames / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--tiles", type=int, nargs="+", default=[8, 32])
    args = parser.parse_args()
    print(f"{'tile':>4}  {'Marple 20x20 warm':>18}  {'first frame':>11}  {'MiniGrid DoorKey-16x16':>22}")
    for tile in args.tiles:
        warm, first = marple_fps(tile, args.frames)
        mini = minigrid_fps(tile, args.frames)
        print(f"{tile:>4}  {warm:>12,.0f} fps  {first:>8.0f} ms  {mini:>18,.0f} fps")


if __name__ == "__main__":
    main()
