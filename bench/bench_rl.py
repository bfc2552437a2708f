"""PPO on the MARPLE level ladder beside MiniGrid-DoorKey-5x5 and BabyAI-GoToObj, success against steps.

    python bench/bench_rl.py                                   # the one-room skills and both references, 200k steps each
    python bench/bench_rl.py --envs Marple-GoTo-OneRoom-v0 MiniGrid-DoorKey-5x5-v0 --steps 100000
    python bench/bench_rl.py --envs ladder --steps 1000000     # every rung, the ten missions included (long)
    python bench/bench_rl.py --envs Marple-WatchNewsOnTV-v0 --steps 1000000 --view 39 --see-through

Every env trains with stable-baselines3 PPO, 16 envs in one process
(``marple_agents.rl.N_ENVS``), the settings of ``marple_agents.rl.PPO_SETTINGS``
(64 steps per env and update, 1,024 in all, 4 epochs of 4 minibatches of 256,
lr 1e-3, entropy 0.01; ``--ppo KEY=VALUE`` overrides them) and one CPU thread, so it fits 2 cores. MARPLE levels see the egocentric 7 x 7 code view (``--view 39 --see-through``: the whole
house in the agent's frame, through the extractor's two streams), the numeric subgoal,
direction, carrying and audio, through ``CodeArrayExtractor``, with the dense
reward (``DenseReward``: subgoal bonus 0.1, potential-based shaping by the
moves and turns to face the target); ``--sparse`` turns the shaping off. MiniGrid and BabyAI use MiniGrid's
``FlatObsWrapper`` (7 x 7 view and mission) with SB3's ``MlpPolicy``.

Success is measured two ways. The curve: the share of finished training
episodes (stochastic policy) that terminated (the task done) rather than
hitting the step limit, recorded every ``--every`` steps. The final figure: the
trained policy acting greedily (deterministic) on ``--eval-episodes`` fresh
episodes (reset seeds from 1,000,000 on, never used in training), with a 95%
Wilson interval, beside uniformly random actions on the same episodes.
``--stop-at 0.95`` ends an env's training once a record of training success
reaches 0.95, to save the budget for the envs that need it. Results go to
``OUT/results.json`` (rewritten after each env, so an
interrupted run keeps what it finished) and ``OUT/success.png``.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import minigrid  # noqa: F401  (registers MiniGrid and BabyAI ids)
import numpy as np
import torch
from minigrid.wrappers import FlatObsWrapper
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env

import marple_gym
from marple.options import float_in, positive_int, seed
from marple_agents import rl
from marple_gym.files import write_json_atomic
from marple_gym.levels import SKILLS, SUBGOAL_BONUS, level_ids
from marple_gym.validation import read_json_file

REFERENCES = ["MiniGrid-DoorKey-5x5-v0", "BabyAI-GoToObj-v0"]
EVAL_SEED = 1_000_000
"""Evaluation episodes reset with seeds from here on: far from the few seeds training draws."""
DEFAULT_ENVS = [f"Marple-{skill}-OneRoom-v0" for skill in SKILLS] + REFERENCES

log = logging.getLogger("bench_rl")


def _is_marple(env_id: str) -> bool:
    return env_id.startswith("Marple-")


def _model(env_id: str, seed: int, dense: bool, view: dict, settings: dict, mixture: dict) -> PPO:
    if _is_marple(env_id):
        return rl.make_ppo(env_id, seed=seed, dense=dense, **view, **mixture, **settings)
    envs = make_vec_env(env_id, n_envs=rl.N_ENVS, seed=seed, wrapper_class=FlatObsWrapper)
    return PPO("MlpPolicy", envs, seed=seed, device="cpu", **settings)


def _eval_env(env_id: str, view: dict) -> gym.Env:
    """The trained policy's observation stack, without shaping (success does not depend on it)."""
    if _is_marple(env_id):
        return rl.marple_env(env_id, dense=False, **view)
    return FlatObsWrapper(gym.make(env_id))


def _random_env(env_id: str) -> gym.Env:
    return gym.make(env_id) if _is_marple(env_id) else FlatObsWrapper(gym.make(env_id))


def _summary(outcomes: list[tuple[bool, int]]) -> dict:
    """Success rate with its 95% Wilson interval, and the mean number of subgoals achieved."""
    wins, episodes = sum(done for done, _ in outcomes), len(outcomes)
    low, high = rl.wilson_interval(wins, episodes)
    subgoals = float(np.mean([n for _, n in outcomes]))
    return {"success": wins / episodes, "low": low, "high": high, "episodes": episodes, "subgoals": subgoals}


def run_one(
    env_id: str,
    steps: int,
    seed: int,
    every: int,
    dense: bool,
    episodes: int,
    stop_at: float | None = None,
    on_record: Callable[[dict], None] | None = None,
    view_size: int | None = 7,
    overrides: dict | None = None,
    see_through_walls: bool = False,
    mixture: dict | None = None,
) -> dict:
    """Train PPO on one env; its success curve, and greedy, stochastic and random success with intervals.

    ``on_record`` receives the entry so far (``"partial": True``) after each
    success record, so a run stopped mid-env keeps its curve. ``mixture`` holds
    ``make_ppo``'s ``companions``, ``max_episode_steps`` and ``subgoal_bonus``
    for MARPLE envs (the curve then counts the env's own copies only).
    """
    mixture = (mixture or {}) if _is_marple(env_id) else {}
    random_env = _random_env(env_id)
    entry: dict = {
        "env": env_id,
        "steps": steps,
        "seed": seed,
        "dense": dense and _is_marple(env_id),
        "stop_at": stop_at,
    }
    if _is_marple(env_id):
        entry["view"] = "full" if view_size is None else view_size
        entry["see_through_walls"] = see_through_walls
        entry["companions"] = list(mixture.get("companions", ()))
        entry["train_max_steps"] = mixture.get("max_episode_steps")
        entry["subgoal_bonus"] = mixture.get("subgoal_bonus", SUBGOAL_BONUS)
    view = {"view_size": view_size, "see_through_walls": see_through_walls}
    entry["random"] = _summary(
        rl.episode_outcomes(random_env, rl.random_actions(random_env, seed), episodes, EVAL_SEED)
    )
    entry["random_success"] = entry["random"]["success"]
    entry["ppo"] = {**rl.PPO_SETTINGS, **(overrides or {})}
    model = _model(env_id, seed, dense, view, entry["ppo"], mixture)

    def record(history: list[tuple[int, float, int]]) -> None:
        entry["curve"] = [{"steps": s, "success": rate, "episodes": n} for s, rate, n in history]
        entry["final_success"] = history[-1][1]
        if on_record is not None:
            on_record({**entry, "partial": True})

    own = rl.target_envs(env_id, model.n_envs, mixture.get("companions", ()))
    tracker = rl.SuccessTracker(every, stop_at, on_record=record, envs=own)
    start, cpu = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=steps, callback=tracker)
    entry["seconds"] = round(time.perf_counter() - start, 1)
    entry["cpu_seconds"] = round(time.process_time() - cpu, 1)
    entry["trained_steps"] = int(model.num_timesteps)
    entry.setdefault("curve", [])
    entry.setdefault("final_success", None)
    eval_env = _eval_env(env_id, view)
    for name, deterministic in (("greedy", True), ("stochastic", False)):
        act = rl.greedy_actions(model, deterministic)
        entry[name] = _summary(rl.episode_outcomes(eval_env, act, episodes, EVAL_SEED))
    return entry


def plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for r in results:
        xs = [p["steps"] for p in r["curve"]]
        ys = [p["success"] for p in r["curve"]]
        style = "--" if not _is_marple(r["env"]) else "-"
        (line,) = ax.plot(xs, ys, style, label=f"{r['env']} (random {r['random_success']:.2f})")
        if "greedy" in r:  # the greedy policy's success at the end, with its 95% interval
            g = r["greedy"]
            err = [[max(0.0, g["success"] - g["low"])], [max(0.0, g["high"] - g["success"])]]
            ax.errorbar(
                [r.get("trained_steps", r["steps"])],
                [g["success"]],
                yerr=err,
                fmt="o",
                color=line.get_color(),
                capsize=3,
            )
    ax.set_xlabel("environment steps")
    ax.set_ylabel("success rate (lines: training episodes; dots: greedy policy, 95% CI)")
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
    parser.add_argument("--steps", type=positive_int, default=200_000, help="environment steps per env")
    parser.add_argument("--every", type=positive_int, default=8192, help="steps between success records")
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument("--sparse", action="store_true", help="no dense reward on MARPLE levels")
    parser.add_argument(
        "--view", type=_view, default=7, help="MARPLE levels' view: an odd egocentric size (default 7) or 'full'"
    )
    parser.add_argument(
        "--see-through",
        action="store_true",
        help="walls do not hide what is behind them (with --view 39, a 20 x 20 house is seen whole from anywhere)",
    )
    parser.add_argument(
        "--with-skills",
        action="store_true",
        help="train each MARPLE env on half the envs, the two-room Open, PickUp, Put and ToggleOn levels on the rest",
    )
    parser.add_argument(
        "--train-max-steps",
        type=positive_int,
        default=None,
        help="cut MARPLE training episodes after this many steps (evaluation keeps the level's own limit)",
    )
    parser.add_argument(
        "--subgoal-bonus",
        type=float_in(0.0),
        default=SUBGOAL_BONUS,
        help="the dense reward's reward per achieved subgoal (default %(default)s)",
    )
    parser.add_argument(
        "--stop-at",
        type=float_in(0.0, 1.0),
        default=None,
        help="stop an env's training once its training success reaches this",
    )
    parser.add_argument(
        "--ppo",
        nargs="+",
        type=_setting,
        default=[],
        metavar="KEY=VALUE",
        help="override PPO_SETTINGS for every env, e.g. --ppo learning_rate=1e-3 n_epochs=8 (recorded per env)",
    )
    parser.add_argument(
        "--eval-episodes", type=positive_int, default=100, help="fresh episodes for greedy and random success"
    )
    parser.add_argument("--out", type=Path, default=Path("runs/bench_rl"))
    parser.add_argument("--resume", action="store_true", help="keep the envs OUT/results.json already finished")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    torch.set_num_threads(1)
    envs = level_ids() + REFERENCES if args.envs == ["ladder"] else args.envs
    unknown = [e for e in envs if e not in gym.registry]
    if unknown:
        parser.error(f"unknown env ids {unknown}; MARPLE ids: {', '.join(marple_gym.env_ids() + level_ids(False))}")
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        results = _finished(args.out / "results.json", envs) if args.resume else []
    except ValueError as exc:
        parser.error(f"--resume: {exc}")

    def save(entries: list[dict]) -> None:
        write_json_atomic(args.out / "results.json", entries)
        plot(entries, args.out / "success.png")

    for env_id in envs:
        if any(r["env"] == env_id for r in results):
            log.info("%s: done in an earlier run, kept", env_id)
            continue
        log.info("training %s for %d steps", env_id, args.steps)
        r = run_one(
            env_id,
            args.steps,
            args.seed,
            args.every,
            not args.sparse,
            args.eval_episodes,
            args.stop_at,
            on_record=lambda partial: save(results + [partial]),
            view_size=args.view,
            overrides=dict(args.ppo),
            see_through_walls=args.see_through,
            mixture={
                "companions": rl.SKILL_COMPANIONS if args.with_skills else (),
                "max_episode_steps": args.train_max_steps,
                "subgoal_bonus": args.subgoal_bonus,
            },
        )
        results.append(r)
        log.info(
            "%s: training success %.3f, greedy %.3f, stochastic %.3f, random %.3f in %.0f s (%.0f s CPU)",
            env_id,
            r["final_success"],
            r["greedy"]["success"],
            r["stochastic"]["success"],
            r["random"]["success"],
            r["seconds"],
            r["cpu_seconds"],
        )
        save(results)
    print(table(results))


def _setting(text: str) -> tuple[str, float | int]:
    """``--ppo KEY=VALUE``: one of PPO_SETTINGS with a number."""
    key, _, value = text.partition("=")
    if key not in rl.PPO_SETTINGS:
        raise argparse.ArgumentTypeError(f"unknown PPO setting {key!r}; known: {', '.join(rl.PPO_SETTINGS)}")
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{key} needs a number, got {value!r}") from None
    return key, int(number) if isinstance(rl.PPO_SETTINGS[key], int) else number


def _view(text: str) -> int | None:
    """``--view``: 'full' (the whole house) or an odd egocentric view size."""
    if text == "full":
        return None
    try:
        size = int(text)
    except ValueError:
        size = 0
    if size < 3 or size % 2 == 0:
        raise argparse.ArgumentTypeError(f"expected 'full' or an odd size >= 3, got {text!r}")
    return size


def _finished(path: Path, envs: list[str]) -> list[dict]:
    """The finished entries of an earlier run's results for ``envs`` (none if there is no file).

    A file that is not such a list raises ValueError naming it (and is left as it is).
    """
    if not path.exists():
        return []
    entries = read_json_file(path, lambda file, _, reason: ValueError(f"{file}: {reason}"), "results file", True)
    if not isinstance(entries, list) or not all(isinstance(r, dict) and "env" in r for r in entries):
        raise ValueError(f"{path}: not a bench_rl results file (a list of entries with an 'env' each)")
    return [r for r in entries if not r.get("partial") and r["env"] in envs]


def table(results: list[dict]) -> str:
    """The finished results as a Markdown table (success with 95% Wilson intervals)."""

    def rate(r: dict | None) -> str:
        return "-" if r is None else f"{r['success']:.2f} [{r['low']:.2f}, {r['high']:.2f}]"

    rows = [
        "| env | steps | random agent | PPO training episodes (last record) | PPO greedy | PPO stochastic "
        "| subgoals per episode (random, greedy) | CPU min | wall min |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        if r.get("partial"):
            continue
        rows.append(
            f"| {r['env']} | {r['trained_steps']:,} | {rate(r['random'])} | {r['final_success']:.2f} "
            f"| {rate(r['greedy'])} | {rate(r.get('stochastic'))} "
            f"| {r['random']['subgoals']:.2f}, {r['greedy']['subgoals']:.2f} "
            f"| {r['cpu_seconds'] / 60:.1f} | {r['seconds'] / 60:.1f} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    main()
