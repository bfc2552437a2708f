"""A random agent in a MARPLE household: what each observation holds.

python examples/gym_basics.py
"""

import gymnasium as gym

import marple_gym  # noqa: F401  (registers the environments)
from marple_gym.evidence import AUDIO

env = gym.make("Marple-GetSnack-v0", scene_graph=True)
obs, info = env.reset(seed=0)
print("mission:", obs["mission"])
print("vision array:", obs["image"].shape, obs["image"].dtype)
print("scene graph:", info["scene_graph"])
for step in range(15):
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    print(f"{step:2d} heard {AUDIO.tokens[obs['audio']]:<28} intent: {obs['intent']}")
