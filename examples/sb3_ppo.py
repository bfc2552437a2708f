"""Train stable-baselines3 PPO on a MARPLE level, then on a mission, in a few lines.

    python examples/sb3_ppo.py --env Marple-GoTo-OneRoom-v0 --steps 200000

``make_ppo`` stacks the egocentric 7 x 7 view, the dense reward and
``NumericObservation`` (no text keys) and gives PPO the ``CodeArrayExtractor``.
The same by hand::

    env = NumericObservation(DenseReward(gym.make(env_id, view_size=7)))
    PPO("MultiInputPolicy", env, policy_kwargs={"features_extractor_class": CodeArrayExtractor})
"""

import argparse

from marple_agents.rl import make_ppo

parser = argparse.ArgumentParser()
parser.add_argument("--env", default="Marple-GoTo-OneRoom-v0", help="a ladder level or mission id")
parser.add_argument("--steps", type=int, default=20_000)
args = parser.parse_args()

model = make_ppo(args.env, seed=0, verbose=1)  # 16 envs, the settings of marple_agents.rl.PPO_SETTINGS
model.learn(total_timesteps=args.steps)
model.save("ppo_marple")
