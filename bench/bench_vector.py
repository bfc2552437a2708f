"""Batched world speed: world steps per second of N episodes stepped together, beside MiniGrid in the same run.

    python bench/bench_vector.py                              # N = 1024 and 4096, about 3 s per figure
    python bench/bench_vector.py --num-envs 1024 --seconds 5

Every figure is measured in this process with uniformly random actions:

* ``batched rules``: :func:`marple_gym.world.batch.apply_actions` on N episodes
  of one house (the world transition alone);
* ``vector env``: ``gymnasium.make_vec("Marple-DoLaundry-v0", num_envs=N)``, the
  native ``VectorEnv`` (rules, mission progress, sounds, every observation key,
  autoreset), with ``copy=True`` (Gymnasium's default: the image is the caller's
  own copy) and ``copy=False`` (the image is a view of the batch's grid);
* ``single env loop``: one ``Marple-DoLaundry-v0`` stepped N times per round;
* ``MiniGrid SyncVectorEnv``: ``MiniGrid-DoorKey-16x16-v0`` with the same N
  (Gymnasium's default ``copy=True``).

Each row gives steps per wall-clock second and per CPU second of this process
(on a shared machine the first depends on the other load, the second much
less), and whether it meets the target of the redesign issue: at least
1,000,000 world steps per second at N >= 1024.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import gymnasium as gym
import minigrid  # noqa: F401  (registers MiniGrid envs)
import numpy as np

import marple_gym  # noqa: F401
from marple_gym.generation import generate_world
from marple_gym.world.batch import apply_actions
from marple_gym.world.batched_state import BatchedState

ENV_ID = "Marple-DoLaundry-v0"
TARGET = 1_000_000


def timed(step: Callable[[np.ndarray], object], n: int, n_actions: int, seconds: float) -> tuple[float, float]:
    """Steps per wall-clock second and per CPU second of ``step`` (one call = ``n`` steps), run for about ``seconds``.

    On a shared machine the wall-clock rate depends on the other load; the rate per CPU second
    of this process much less.
    """
    rng = np.random.default_rng(0)
    rounds, spent, cpu = 0, 0.0, 0.0
    while spent < seconds:
        actions = rng.integers(0, n_actions, size=n)
        start, start_cpu = time.perf_counter(), time.process_time()
        step(actions)
        spent += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
        rounds += 1
    return rounds * n / spent, rounds * n / max(cpu, 1e-9)


def batched_rules(n: int, seconds: float) -> tuple[float, float]:
    world = generate_world(None, np.random.default_rng(0), ["do_laundry"])
    batch = BatchedState.repeat(world.state, n)
    return timed(lambda a: apply_actions(world.house, batch, 0, a), n, 10, seconds)


def vector_env(env_id: str, n: int, seconds: float, mode: str, **kwargs) -> tuple[float, float]:
    env = gym.make_vec(env_id, num_envs=n, vectorization_mode=mode, **kwargs)
    env.reset(seed=0)
    n_actions = int(env.single_action_space.n)
    rate = timed(env.step, n, n_actions, seconds)
    env.close()
    return rate


def single_env(n: int, seconds: float) -> tuple[float, float]:
    env = gym.make(ENV_ID)
    env.reset(seed=0)

    def loop(actions: np.ndarray) -> None:
        for a in actions.tolist():
            _, _, terminated, truncated, _ = env.step(a)
            if terminated or truncated:
                env.reset()

    return timed(loop, n, 10, seconds)


def measure(n: int, seconds: float) -> list[tuple[str, tuple[float, float]]]:
    """Every row of the table for ``n`` episodes."""
    return [
        ("batched rules (world transition)", batched_rules(n, seconds)),
        ("vector env, copy=True (default)", vector_env(ENV_ID, n, seconds, "vector_entry_point")),
        ("vector env, copy=False (image is a view)", vector_env(ENV_ID, n, seconds, "vector_entry_point", copy=False)),
        (f"single env loop, {ENV_ID}", single_env(n, seconds)),
        ("MiniGrid SyncVectorEnv, DoorKey-16x16", vector_env("MiniGrid-DoorKey-16x16-v0", n, seconds, "sync")),
    ]


def verdict(n: int, rate: float, cpu_rate: float) -> str:
    if n < 1024:
        return "(N < 1024)"
    wall, cpu = rate >= TARGET, cpu_rate >= TARGET
    return "yes" if wall else ("per CPU s only" if cpu else "no")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-envs", type=int, nargs="+", default=[1024, 4096], help="episodes stepped together (N)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent on each figure")
    args = parser.parse_args()
    if min(args.num_envs) < 1 or args.seconds <= 0:
        parser.error("--num-envs must be >= 1 and --seconds > 0")
    print(f"uniformly random actions, {args.seconds:g} s per figure; target: {TARGET:,} world steps/s at N >= 1024")
    for n in args.num_envs:
        rows = measure(n, args.seconds)
        print(f"N = {n}")
        print(f"  {'':<44} {'steps/s':>12} {'per CPU s':>12}  meets target")
        for name, (rate, cpu_rate) in rows:
            print(f"  {name:<44} {rate:>12,.0f} {cpu_rate:>12,.0f}  {verdict(n, rate, cpu_rate)}")
        vector, single, minigrid_rate = rows[2][1], rows[3][1], rows[-1][1]
        for name, other in (("MiniGrid SyncVectorEnv", minigrid_rate), ("single env loop", single)):
            ratios = f"{vector[0] / other[0]:,.1f}x per wall-clock second, {vector[1] / other[1]:,.1f}x per CPU second"
            print(f"  vector env (copy=False) / {name}: {ratios}")


if __name__ == "__main__":
    main()
