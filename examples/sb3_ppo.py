"""Train stable-baselines3 PPO on a MARPLE level, or on a mission with the mission recipe, then evaluate and save it.

    python examples/sb3_ppo.py                      # GoTo-OneRoom, 60,000 steps, beside random actions
    python examples/sb3_ppo.py --env Marple-GoTo-OneRoom-v0 --steps 200000 --seed 0 --out runs/ppo-goto
    python examples/sb3_ppo.py --env Marple-GetSnack-v0 --steps 1000000 --mission --out runs/ppo-snack

``make_ppo`` stacks the egocentric 7 x 7 view, the dense reward and
``NumericObservation`` (no text keys) and gives PPO the ``CodeArrayExtractor``.
The same by hand::

    env = NumericObservation(DenseReward(gym.make(env_id, view_size=7)))
    PPO("MultiInputPolicy", env, policy_kwargs={"features_extractor_class": CodeArrayExtractor})

``--mission`` adds ``MISSION_RECIPE``: the whole house in view, half the envs on
the two-room skill levels, shorter training episodes and a larger subgoal bonus
(docs/rl.md, "PPO on the ladder").

At the end the policy plays ``--episodes`` episodes on fresh seeds (reset seeds
from 1,000,000 on, which training never uses), sampling its actions and acting
greedily, and uniformly random actions play the same episodes; each success is
printed with its 95% Wilson interval. The defaults (GoTo-OneRoom, 60,000 steps,
about a CPU minute of training) beat random actions with the intervals apart
(docs/rl.md says what they measured). ``OUT`` receives ``model.zip`` and
``policy.json`` (the env id and the wrapper stack, with the seed, the steps and
the evaluation). To play it again::

    from marple_agents.rl import load_ppo
    model, env = load_ppo("runs/ppo-goto")
    obs, _ = env.reset(seed=1_000_000)
    action, _ = model.predict(obs, deterministic=False)
"""

import argparse
import json

from stable_baselines3.common.utils import set_random_seed

from marple.options import env_id, positive_int, seed
from marple_agents.rl import (
    MISSION_RECIPE,
    EnvStack,
    episode_outcomes,
    greedy_actions,
    make_ppo,
    random_actions,
    save_ppo,
    wilson_interval,
)

FRESH_SEEDS = 1_000_000
"""Evaluation resets with seeds FRESH_SEEDS, FRESH_SEEDS + 1, ...: houses training did not see."""


def evaluate(model, stack: EnvStack, episodes: int, seed: int) -> dict:
    """Success (task done before the step limit, with its 95% Wilson interval) and subgoals per episode on the
    same fresh episodes: the policy sampling its actions, acting greedily, and uniformly random actions."""
    results = {}
    for mode in ("sampling", "greedy", "random"):
        env = stack.make()
        set_random_seed(seed)  # the sampled actions are a function of the seed
        act = random_actions(env, seed) if mode == "random" else greedy_actions(model, mode == "greedy")
        outcomes = episode_outcomes(env, act, episodes, FRESH_SEEDS)
        wins = sum(done for done, _ in outcomes)
        results[mode] = {
            "success": wins / episodes,
            "interval": wilson_interval(wins, episodes),
            "subgoals_per_episode": sum(n for _, n in outcomes) / episodes,
        }
    return {"episodes": episodes, "first_seed": FRESH_SEEDS, **results}


def report(env_id: str, evaluation: dict) -> str:
    """The evaluation as lines to read: each player's success with its interval."""
    lines = [f"{env_id}, success on {evaluation['episodes']} fresh episodes (95% Wilson intervals):"]
    for mode, who in (("sampling", "PPO, sampling"), ("greedy", "PPO, greedy"), ("random", "random actions")):
        result = evaluation[mode]
        low, high = result["interval"]
        lines.append(f"  {who:15} {result['success']:.2f} [{low:.2f}, {high:.2f}]")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--env", type=env_id, default="Marple-GoTo-OneRoom-v0", help="a ladder level or mission id (marple envs --all)"
    )
    parser.add_argument(
        "--steps", type=positive_int, default=60_000, help="environment steps to train (default: 60000)"
    )
    parser.add_argument("--mission", action="store_true", help="train with MISSION_RECIPE (for the ten missions)")
    parser.add_argument("--seed", type=seed, default=0, help="seed of the envs and the network (default: 0)")
    parser.add_argument(
        "--out", default="ppo_marple", help="folder for model.zip and policy.json (default: ppo_marple)"
    )
    parser.add_argument(
        "--episodes", type=positive_int, default=100, help="evaluation episodes on fresh seeds (default: 100)"
    )
    args = parser.parse_args()

    recipe = MISSION_RECIPE if args.mission else {}
    model = make_ppo(args.env, seed=args.seed, verbose=1, **recipe)  # 16 envs, marple_agents.rl.PPO_SETTINGS
    model.learn(total_timesteps=args.steps)
    stack = EnvStack.of(args.env, **recipe)  # what the policy sees: evaluation episodes keep the env's own limit
    evaluation = evaluate(model, stack, args.episodes, args.seed)
    meta = {"seed": args.seed, "steps": int(model.num_timesteps), "mission_recipe": args.mission}
    save_ppo(model, args.out, stack, {**meta, "evaluation": evaluation})
    print(report(args.env, evaluation))
    print(json.dumps({"out": args.out, **meta, "evaluation": evaluation}, indent=1))


if __name__ == "__main__":
    main()
