"""Multi-agent speed: joint steps and agent-steps per second for N agents in one house, beside the single-agent env.

    python bench/bench_multiagent.py                       # N = 1, 2, 4, 8; about 2 s per figure
    python bench/bench_multiagent.py --agents 1 2 --seconds 5 --batch 512

Every figure is measured in this process with uniformly random actions (rates per
CPU second of this process, which a shared machine disturbs less than wall-clock):

* ``single env``: ``Marple-DoLaundry-v0`` (one agent), the baseline of the one-env rows;
* ``one env, N agents``: :func:`marple_gym.multiagent.parallel_env` with N agents
  (every agent's observation, reward and termination each step; a reset when all
  agents are done or out of time);
* ``batched, N agents``: :func:`marple_gym.world.batch.apply_joint_actions` on
  ``--batch`` episodes of one N-agent house (the world transition alone), beside the
  same with one agent.

A joint step is one action of every agent; an agent-step one agent's action. The
cost per agent is ``1 / (agent-steps per second)``; the ratio printed is that cost
over the single-agent cost of the same kind (1.0: an agent costs what a lone agent
costs; above 1: more).
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np
from bench_vector import timed

import marple_gym  # noqa: F401
from marple_gym.generation import generate_world
from marple_gym.multiagent import parallel_env, shared_house_config
from marple_gym.world.batch import BatchedState, apply_joint_actions

MISSIONS = ("do_laundry", "change_outfit", "get_snack", "feed_dog")


def single_env(seconds: float) -> float:
    """Agent-steps (= steps) per CPU second of the single-agent env."""
    env = gym.make("Marple-DoLaundry-v0")
    env.reset(seed=0)

    def loop(actions: np.ndarray) -> None:
        for a in actions.tolist():
            _, _, terminated, truncated, _ = env.step(a)
            if terminated or truncated:
                env.reset()

    return timed(loop, 256, 10, seconds)[1]


def one_env(agents: int, seconds: float) -> float:
    """Joint steps per CPU second of the PettingZoo env with ``agents`` agents."""
    env = parallel_env(missions=[MISSIONS[i % len(MISSIONS)] for i in range(agents)], max_steps=500)
    env.reset(seed=0)
    rounds = 64

    def loop(actions: np.ndarray) -> None:
        for joint in actions.reshape(rounds, agents).tolist():
            if not env.agents:
                env.reset()
            env.step({a: joint[env.possible_agents.index(a)] for a in env.agents})

    return timed(loop, rounds * agents, 10, seconds)[1] / agents


def batched(agents: int, batch: int, seconds: float) -> float:
    """Joint steps per CPU second of ``batch`` episodes of one ``agents``-agent house stepped together."""
    world = generate_world(shared_house_config(None, agents), np.random.default_rng(0), list(MISSIONS))
    state = BatchedState.repeat(world.state, batch)
    step = lambda a: apply_joint_actions(world.house, state, a.reshape(batch, agents))  # noqa: E731
    return timed(step, batch * agents, 10, seconds)[1] / agents


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", type=int, nargs="+", default=[1, 2, 4, 8], help="agents per house (N)")
    parser.add_argument("--batch", type=int, default=256, help="episodes stepped together in the batched rows")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU time spent on each figure")
    args = parser.parse_args()
    if min(args.agents) < 1 or max(args.agents) > 8 or args.batch < 1 or args.seconds <= 0:
        parser.error("--agents must be 1..8, --batch >= 1 and --seconds > 0")
    s = args.seconds
    lone = single_env(s)
    lone_batched = batched(1, args.batch, s)
    print(f"uniformly random actions, {s:g} CPU s per figure; batched rows step {args.batch} episodes together")
    print(f"  {'':<32} {'joint steps/s':>14} {'agent-steps/s':>14} {'cost per agent':>15}")
    print(f"  {'single env (1 agent)':<32} {lone:>14,.0f} {lone:>14,.0f} {'1.00x':>15}")
    for n in args.agents:
        rate = one_env(n, s)
        print(
            f"  {f'one env, {n} agent' + 's' * (n > 1):<32} {rate:>14,.0f} {rate * n:>14,.0f} {lone / (rate * n):>14.2f}x"
        )
    print(f"  {'batched, 1 agent':<32} {lone_batched:>14,.0f} {lone_batched:>14,.0f} {'1.00x':>15}")
    for n in [n for n in args.agents if n > 1]:
        rate = batched(n, args.batch, s)
        print(f"  {f'batched, {n} agents':<32} {rate:>14,.0f} {rate * n:>14,.0f} {lone_batched / (rate * n):>14.2f}x")


if __name__ == "__main__":
    main()
