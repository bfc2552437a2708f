"""Multi-agent speed: joint steps and agent-steps per second for N agents in one house, beside the single-agent env.

    python bench/bench_multiagent.py                       # N = 1, 2, 4, 8; about 30 s in all
    python bench/bench_multiagent.py --agents 1 2 --seconds 3 --batch 512

Every figure is measured in this process with uniformly random actions (rates per
CPU second of this process, which a shared machine disturbs less than wall-clock;
the best of a few interleaved rounds):

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

import bench_vector
import numpy as np
from bench_vector import timed

import marple_gym  # noqa: F401
from marple_gym.generation import generate_world
from marple_gym.multiagent import parallel_env, shared_house_config
from marple_gym.world.batch import apply_joint_actions
from marple_gym.world.batched_state import BatchedState

MISSIONS = ("do_laundry", "change_outfit", "get_snack", "feed_dog")


def single_env(seconds: float) -> float:
    """Agent-steps (= steps) per CPU second of the single-agent env."""
    return bench_vector.single_env(256, seconds)[1]


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
    parser.add_argument("--seconds", type=float, default=1.0, help="time spent on each figure in each round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over every figure; the best of each is kept")
    args = parser.parse_args()
    if min(args.agents) < 1 or max(args.agents) > 8 or args.batch < 1 or args.seconds <= 0 or args.rounds < 1:
        parser.error("--agents must be 1..8, --batch and --rounds >= 1 and --seconds > 0")
    s = args.seconds
    figures = {("single", 1): lambda: single_env(s)}
    figures.update({("one env", n): lambda n=n: one_env(n, s) for n in args.agents})
    figures.update({("batched", n): lambda n=n: batched(n, args.batch, s) for n in sorted({1, *args.agents})})
    # Rounds interleave the figures, so that a change of load on a shared machine touches all of them alike.
    best = dict.fromkeys(figures, 0.0)
    for _ in range(args.rounds):
        for key, measure in figures.items():
            best[key] = max(best[key], measure())
    print(
        f"uniformly random actions; best of {args.rounds} rounds of {s:g} s per figure; "
        f"batched rows step {args.batch} episodes together"
    )
    print(f"  {'':<32} {'joint steps/s':>14} {'agent-steps/s':>14} {'cost per agent':>15}")
    for (kind, n), rate in best.items():
        lone = best[("single", 1)] if kind != "batched" else best[("batched", 1)]
        name = "single env (1 agent)" if kind == "single" else f"{kind}, {n} agent" + "s" * (n > 1)
        print(f"  {name:<32} {rate:>14,.0f} {rate * n:>14,.0f} {lone / (rate * n):>14.2f}x")


if __name__ == "__main__":
    main()
