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
  (Gymnasium's default ``copy=True``);
* ``XLand-MiniGrid``: its ``XLand-MiniGrid-R1-9x9`` env (one room, its default
  empty rules, the 5 x 5 egocentric view) with Gym-style autoreset, ``reset``
  and ``step`` vmapped over N and jit-compiled, timed after the compilation
  and a warm-up step, each step waited for with ``block_until_ready``, on one
  CPU thread as the vector env (``XLA_FLAGS``, unless set). It runs when
  ``xminigrid`` is importable (``pip install xminigrid``, which brings JAX:
  best in a virtual environment of its own).

Each row gives steps per wall-clock second and per CPU second of this process
(on a shared machine the first depends on the other load, the second much
less), and whether it meets the target of the redesign issue: at least
1,000,000 world steps per second at N >= 1024. The first line is the machine
and its reference rate (``bench/reference_rate.py``); the last lines are the
vector env's ratios to its peers, per CPU second (goal: at least 20x
XLand-MiniGrid at N = 4096 with the observations copied).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import gymnasium as gym
import minigrid  # noqa: F401  (registers MiniGrid envs)
import numpy as np
from reference_rate import machine_line

import marple_gym  # noqa: F401
from marple_gym.generation import generate_world
from marple_gym.world.batch import apply_actions
from marple_gym.world.batched_state import BatchedState

ENV_ID = "Marple-DoLaundry-v0"
XLAND_ID = "XLand-MiniGrid-R1-9x9"
TARGET = 1_000_000
XLAND_GOAL = 20.0
"""The vector env with copies, per CPU second, over XLand-MiniGrid at N = 4096."""

Rate = tuple[float, float]
"""Steps per wall-clock second and per CPU second."""


def timed(step: Callable[[np.ndarray], object], n: int, n_actions: int, seconds: float) -> Rate:
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


def batched_rules(n: int, seconds: float) -> Rate:
    world = generate_world(None, np.random.default_rng(0), ["do_laundry"])
    batch = BatchedState.repeat(world.state, n)
    return timed(lambda a: apply_actions(world.house, batch, 0, a), n, 10, seconds)


def vector_env(env_id: str, n: int, seconds: float, mode: str, **kwargs) -> Rate:
    env = gym.make_vec(env_id, num_envs=n, vectorization_mode=mode, **kwargs)
    env.reset(seed=0)
    n_actions = int(env.single_action_space.n)
    env.step(np.zeros(n, dtype=np.int64))  # warm up (first-use caches) outside the timing
    rate = timed(env.step, n, n_actions, seconds)
    env.close()
    return rate


def single_env(n: int, seconds: float) -> Rate:
    env = gym.make(ENV_ID)
    env.reset(seed=0)

    def loop(actions: np.ndarray) -> None:
        for a in actions.tolist():
            _, _, terminated, truncated, _ = env.step(a)
            if terminated or truncated:
                env.reset()

    return timed(loop, n, 10, seconds)


def xland(n: int, seconds: float) -> Rate | None:
    """XLand-MiniGrid's :data:`XLAND_ID` stepped N at a time by its jit-compiled, vmapped step (None without it)."""
    # One thread, as the vector env runs: per CPU second either way, but a thread pool waiting on a busy machine
    # counts as CPU time, and the peer's figure would swing with the load (set XLA_FLAGS yourself to measure others).
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    try:  # an optional peer with a heavy dependency (JAX): imported only here
        import jax
        import jax.numpy as jnp
        import xminigrid
        from xminigrid.wrappers import GymAutoResetWrapper
    except ImportError:
        return None
    env, params = xminigrid.make(XLAND_ID)
    env = GymAutoResetWrapper(env)
    reset = jax.jit(jax.vmap(env.reset, in_axes=(None, 0)))
    step = jax.jit(jax.vmap(env.step, in_axes=(None, 0, 0)))
    timesteps = [reset(params, jax.random.split(jax.random.key(0), n))]

    def advance(actions: np.ndarray) -> None:
        timesteps[0] = jax.block_until_ready(step(params, timesteps[0], jnp.asarray(actions, dtype=jnp.int32)))

    advance(np.zeros(n, dtype=np.int32))  # compile and warm up outside the timing
    return timed(advance, n, env.num_actions(params), seconds)


def measure(n: int, seconds: float) -> dict[str, Rate | None]:
    """Every row of the table for ``n`` episodes (XLand-MiniGrid's None without ``xminigrid``)."""
    return {
        "batched rules (world transition)": batched_rules(n, seconds),
        "vector env, copy=True (default)": vector_env(ENV_ID, n, seconds, "vector_entry_point"),
        "vector env, copy=False (image is a view)": vector_env(ENV_ID, n, seconds, "vector_entry_point", copy=False),
        f"single env loop, {ENV_ID}": single_env(n, seconds),
        "MiniGrid SyncVectorEnv, DoorKey-16x16": vector_env("MiniGrid-DoorKey-16x16-v0", n, seconds, "sync"),
        f"XLand-MiniGrid {XLAND_ID}, jit + vmap": xland(n, seconds),
    }


def verdict(n: int, rate: float, cpu_rate: float) -> str:
    if n < 1024:
        return "(N < 1024)"
    wall, cpu = rate >= TARGET, cpu_rate >= TARGET
    return "yes" if wall else ("per CPU s only" if cpu else "no")


def ratios(rows: dict[str, Rate | None]) -> list[str]:
    """The vector env's rates (with and without copies) over each peer's, per CPU second."""
    copied, view = rows["vector env, copy=True (default)"], rows["vector env, copy=False (image is a view)"]
    lines = []
    for name, peer in rows.items():
        if peer is None or name.startswith(("vector env", "batched rules")):
            continue
        lines.append(
            f"vector env / {name}: {copied[1] / peer[1]:,.1f}x with copies, {view[1] / peer[1]:,.1f}x with copy=False"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-envs", type=int, nargs="+", default=[1024, 4096], help="episodes stepped together (N)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent on each figure")
    args = parser.parse_args()
    if min(args.num_envs) < 1 or args.seconds <= 0:
        parser.error("--num-envs must be >= 1 and --seconds > 0")
    print(machine_line())
    print(f"uniformly random actions, {args.seconds:g} s per figure; target: {TARGET:,} world steps/s at N >= 1024")
    for n in args.num_envs:
        rows = measure(n, args.seconds)
        print(f"N = {n}")
        print(f"  {'':<44} {'steps/s':>12} {'per CPU s':>12}  meets target")
        for name, rate in rows.items():
            if rate is None:
                print(f"  {name:<44} {'not run: pip install xminigrid (brings JAX) to measure it':>12}")
            else:
                print(f"  {name:<44} {rate[0]:>12,.0f} {rate[1]:>12,.0f}  {verdict(n, *rate)}")
        for line in ratios(rows):
            print(f"  {line}")
    print(f"goal: vector env with copies >= {XLAND_GOAL:g}x XLand-MiniGrid per CPU second at N = 4096")
    print(machine_line())


if __name__ == "__main__":
    main()
