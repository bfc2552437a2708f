"""Train stable-baselines3 PPO on a MARPLE level, or on a mission with the mission recipe, in a few lines.

    python examples/sb3_ppo.py --env Marple-GoTo-OneRoom-v0 --steps 200000
    python examples/sb3_ppo.py --env Marple-GetSnack-v0 --steps 1000000 --mission

``make_ppo`` stacks the egocentric 7 x 7 view, the dense reward and
``NumericObservation`` (no text keys) and gives PPO the ``CodeArrayExtractor``.
The same by hand::

    env = NumericObservation(DenseReward(gym.make(env_id, view_size=7)))
    PPO("MultiInputPolicy", env, policy_kwargs={"features_extractor_class": CodeArrayExtractor})

``--mission`` adds ``MISSION_RECIPE``: the whole house in view, half the envs on
the two-room skill levels, shorter training episodes and a larger subgoal bonus
(docs/rl.md, "PPO on the ladder").
"""

import argparse

from marple_agents.rl import MISSION_RECIPE, make_ppo

parser = argparse.ArgumentParser()
parser.add_argument("--env", default="Marple-GoTo-OneRoom-v0", help="a ladder level or mission id")
parser.add_argument("--steps", type=int, default=20_000, help="environment steps to train (default: 20000)")
parser.add_argument("--mission", action="store_true", help="train with MISSION_RECIPE (for the ten missions)")
args = parser.parse_args()

recipe = MISSION_RECIPE if args.mission else {}
model = make_ppo(args.env, seed=0, verbose=1, **recipe)  # 16 envs, the settings of marple_agents.rl.PPO_SETTINGS
model.learn(total_timesteps=args.steps)
model.save("ppo_marple")
