"""MARPLE-Gym: household gridworlds for long-horizon "whodunit" inference.

Importing the package registers the Gymnasium environments::

    import gymnasium as gym
    import marple_gym  # noqa: F401

    env = gym.make("Marple-DoLaundry-v0")
"""

from marple_gym.envs import (
    EgocentricView,
    FlatObservation,
    ImageObservation,
    MarpleEnv,
    NumericObservation,
    RGBImageObservation,
    env_ids,
    register_envs,
)
from marple_gym.generation import ConfigError, HouseConfig, generate_world
from marple_gym.levels import DenseReward, level_ids, register_levels
from marple_gym.missions import MISSIONS, Mission, MissionProgress, Subgoal, get_mission
from marple_gym.world import ASSETS, Action, House, Outcome, World, WorldState

__version__ = "0.1.0"

register_envs()
register_levels()

__all__ = [
    "ASSETS",
    "Action",
    "ConfigError",
    "DenseReward",
    "EgocentricView",
    "FlatObservation",
    "House",
    "HouseConfig",
    "ImageObservation",
    "MISSIONS",
    "MarpleEnv",
    "Mission",
    "MissionProgress",
    "NumericObservation",
    "Outcome",
    "RGBImageObservation",
    "Subgoal",
    "World",
    "WorldState",
    "__version__",
    "env_ids",
    "generate_world",
    "get_mission",
    "level_ids",
    "register_envs",
]
