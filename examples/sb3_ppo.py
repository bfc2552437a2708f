"""Train stable-baselines3 PPO on a MARPLE mission with the flat observation wrapper.

    python examples/sb3_ppo.py --steps 20000

Sparse household missions are hard for plain PPO; this shows the plumbing, not
a solution. Use ``subgoal_reward`` to shape the reward per achieved subgoal.
"""

import argparse

import gymnasium as gym
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env

import marple_gym

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20_000)
args = parser.parse_args()

env = make_vec_env(
    lambda: marple_gym.FlatObservation(gym.make("Marple-GetSnack-v0", subgoal_reward=0.2, max_steps=200)),
    n_envs=4,
    seed=0,
)
model = PPO("MlpPolicy", env, verbose=1, seed=0)
model.learn(total_timesteps=args.steps)
