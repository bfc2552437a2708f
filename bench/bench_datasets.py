"""Trajectory generation speed, per mission and for paper-size datasets.

    python bench/bench_datasets.py                 # per-mission rates + one full paper-size scenario
    python bench/bench_datasets.py --all           # + the full dataset of all five scenarios (105,000 trajectories)
    python bench/bench_datasets.py --quick         # per-mission rates only

The original research generator needed 2-5 s per trajectory on this kind of
machine without writing files and about 17 s with its per-step files (figures
from the issue tracker); the ratio below uses 2 s, its best case.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

import numpy as np

from marple_gym.datasets import PAPER_SIZES, DatasetSpec, Unit, generate_dataset, record_trajectory
from marple_gym.generation import generate_world
from marple_gym.missions import MISSIONS
from marple_gym.missions.scenarios import SCENARIOS
from marple_gym.planner import HierarchicalPlanner

ORIGINAL_SECONDS_PER_TRAJECTORY = 2.0


def per_mission_rate(mission: str, episodes: int) -> tuple[float, float, float]:
    """(trajectories/s in fresh houses, trajectories/s in one house, mean steps), one process."""
    rng = np.random.default_rng(0)
    steps = 0
    start = time.perf_counter()
    for _ in range(episodes):
        world = generate_world(None, rng, [mission])
        tr = record_trajectory(
            world,
            HierarchicalPlanner(world, mission=mission, rng=rng),
            house=world.house.source["config"],
            house_id="h",
            seed=0,
        )
        steps += tr.length
    fresh = episodes / (time.perf_counter() - start)
    world = generate_world(None, rng, [mission])
    initial = world.get_state()
    start = time.perf_counter()
    for _ in range(episodes):
        world.set_state(initial)
        record_trajectory(
            world,
            HierarchicalPlanner(world, mission=mission, rng=rng),
            house=world.house.source["config"],
            house_id="h",
            seed=0,
        )
    same = episodes / (time.perf_counter() - start)
    return fresh, same, steps / episodes


def timed_generation(units: list[Unit], workers: int) -> tuple[float, int]:
    root = tempfile.mkdtemp(prefix="marple-bench-")
    try:
        start = time.perf_counter()
        report = generate_dataset(DatasetSpec(units, PAPER_SIZES), root, workers=workers, progress=True)
        seconds = time.perf_counter() - start
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
        print(f"  on disk: {size / 1e6:.1f} MB, {report.steps:,} steps")
        return seconds, report.episodes
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=100, help="episodes per mission for the rates")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--quick", action="store_true", help="per-mission rates only")
    parser.add_argument("--all", action="store_true", help="also generate the full dataset of all five scenarios")
    args = parser.parse_args()

    print(f"{'mission':<26} {'traj/s (new house)':>19} {'traj/s (same house)':>20} {'mean steps':>11}")
    rates = []
    for name in MISSIONS:
        fresh, same, steps = per_mission_rate(name, args.episodes)
        rates.append(fresh)
        print(f"{name:<26} {fresh:>19.0f} {same:>20.0f} {steps:>11.1f}")
    mean_rate = float(np.mean(rates))
    print(
        f"\none process, new houses: {1000 / mean_rate:.1f} ms per trajectory on average, "
        f"{ORIGINAL_SECONDS_PER_TRAJECTORY * mean_rate:,.0f}x faster than the original generator's best case"
    )
    if args.quick:
        return
    print(f"\nfull paper-size scenario 'laundry' (2 x (500 + 5000 + 5000) trajectories), {args.workers} workers:")
    seconds, n = timed_generation([Unit.scenario("laundry")], args.workers)
    print(f"  {n:,} trajectories in {seconds:.1f} s ({n / seconds:.0f} trajectories/s)")
    if args.all:
        print(f"\nfull paper-size dataset, all five scenarios (105,000 trajectories), {args.workers} workers:")
        seconds, n = timed_generation([Unit.scenario(s) for s in SCENARIOS], args.workers)
        print(f"  {n:,} trajectories in {seconds / 60:.1f} min (target: under 10 min)")


if __name__ == "__main__":
    main()
