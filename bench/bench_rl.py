"""PPO on the MARPLE level ladder beside MiniGrid-DoorKey-5x5 and BabyAI-GoToObj, success against steps.

    python bench/bench_rl.py                                   # the one-room skills and both references, 200k steps each
    python bench/bench_rl.py --envs Marple-GoTo-OneRoom-v0 MiniGrid-DoorKey-5x5-v0 --steps 100000
    python bench/bench_rl.py --envs ladder --steps 1000000     # every rung, the ten missions included (long)

Every env trains with stable-baselines3 PPO, 8 envs in one process, the settings
of ``marple_agents.rl.PPO_SETTINGS`` (1,024 steps per update, 4 epochs of 4
minibatches of 256, lr 2.5e-4, entropy 0.01) and one CPU thread, so it fits 2
cores. MARPLE levels see the egocentric 7 x 7 code view, the numeric subgoal,
direction, carrying and audio, through ``CodeArrayExtractor``, with the dense
reward (``DenseReward``: subgoal bonus 0.1, potential-based distance shaping);
``--sparse`` turns the shaping off. MiniGrid and BabyAI use MiniGrid's
``FlatObsWrapper`` (7 x 7 view and mission) with SB3's ``MlpPolicy``.

Success is the share of finished training episodes that terminated (the task
done) rather than hitting the step limit, recorded every ``--every`` steps; the
random agent's success comes from ``--random-episodes`` episodes of uniform
actions. Results go to ``OUT/results.json`` (rewritten after each env, so an
interrupted run keeps what it finished) and ``OUT/success.png``.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

import gymnasium as gym
import minigrid  # noqa: F401  (registers MiniGrid and BabyAI ids)
import torch
from minigrid.wrappers import FlatObsWrapper
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env

import marple_gym
from marple_agents.rl import PPO_SETTINGS, SuccessTracker, make_ppo, random_success
from marple_gym.levels import SKILLS, level_ids

REFERENCES = ["MiniGrid-DoorKey-5x5-v0", "BabyAI-GoToObj-v0"]
DEFAULT_ENVS = [f"Marple-{skill}-OneRoom-v0" for skill in SKILLS] + REFERENCES

log = logging.getLogger("bench_rl")


def _is_marple(env_id: str) -> bool:
    return env_id.startswith("Marple-")


def _model(env_id: str, seed: int, dense: bool) -> PPO:
    if _is_marple(env_id):
        return make_ppo(env_id, n_envs=8, seed=seed, dense=dense)
    envs = make_vec_env(env_id, n_envs=8, seed=seed, wrapper_class=FlatObsWrapper)
    return PPO("MlpPolicy", envs, seed=seed, device="cpu", **PPO_SETTINGS)


def _random_env(env_id: str) -> gym.Env:
    return gym.make(env_id) if _is_marple(env_id) else FlatObsWrapper(gym.make(env_id))


def run_one(env_id: str, steps: int, seed: int, every: int, dense: bool, random_episodes: int) -> dict:
    """Train PPO on one env and return its success curve and the random agent's success."""
    baseline = random_success(_random_env(env_id), random_episodes, seed)
    model = _model(env_id, seed, dense)
    tracker = SuccessTracker(every)
    start = time.perf_counter()
    model.learn(total_timesteps=steps, callback=tracker)
    seconds = time.perf_counter() - start
    return {
        "env": env_id,
        "steps": steps,
        "seed": seed,
        "dense": dense and _is_marple(env_id),
        "random_success": baseline,
        "curve": [{"steps": s, "success": rate, "episodes": n} for s, rate, n in tracker.history],
        "final_success": tracker.history[-1][1] if tracker.history else None,
        "seconds": round(seconds, 1),
    }


def plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for r in results:
        xs = [p["steps"] for p in r["curve"]]
        ys = [p["success"] for p in r["curve"]]
        style = "--" if not _is_marple(r["env"]) else "-"
        ax.plot(xs, ys, style, label=f"{r['env']} (random {r['random_success']:.2f})")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("success rate of training episodes")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title("PPO (stable-baselines3) on the MARPLE ladder and MiniGrid references")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", nargs="+", default=DEFAULT_ENVS, help="env ids, or 'ladder' for every rung")
    parser.add_argument("--steps", type=int, default=200_000, help="environment steps per env")
    parser.add_argument("--every", type=int, default=8192, help="steps between success records")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sparse", action="store_true", help="no dense reward on MARPLE levels")
    parser.add_argument("--random-episodes", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path("runs/bench_rl"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    torch.set_num_threads(1)
    envs = level_ids() + REFERENCES if args.envs == ["ladder"] else args.envs
    unknown = [e for e in envs if e not in gym.registry]
    if unknown:
        parser.error(f"unknown env ids {unknown}; MARPLE ids: {', '.join(marple_gym.env_ids() + level_ids(False))}")
    args.out.mkdir(parents=True, exist_ok=True)
    results: list[dict] = []
    for env_id in envs:
        log.info("training %s for %d steps", env_id, args.steps)
        results.append(run_one(env_id, args.steps, args.seed, args.every, not args.sparse, args.random_episodes))
        r = results[-1]
        log.info(
            "%s: success %.3f (random %.3f) in %.0f s", env_id, r["final_success"], r["random_success"], r["seconds"]
        )
        (args.out / "results.json").write_text(json.dumps(results, indent=1))
        plot(results, args.out / "success.png")
    print("| env | steps | random success | final success | minutes |")
    print("|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['env']} | {r['steps']} | {r['random_success']:.2f} | {r['final_success']:.2f} | {r['seconds'] / 60:.1f} |"
        )


if __name__ == "__main__":
    main()
