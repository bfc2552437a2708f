"""Gymnasium environments and wrappers."""

from marple_gym.envs.household import OBSERVATION_KEYS, MarpleEnv
from marple_gym.envs.minigrid_api import NoMiniGridEquivalent
from marple_gym.envs.registration import HOUSEHOLD_ID, env_ids, mission_env_id, register_envs
from marple_gym.envs.rl_wrappers import EgocentricView, NumericObservation, RGBImageObservation
from marple_gym.envs.text_space import TextSpace
from marple_gym.envs.wrappers import FlatObservation, ImageObservation

__all__ = [
    "EgocentricView",
    "NumericObservation",
    "RGBImageObservation",
    "TextSpace",
    "FlatObservation",
    "HOUSEHOLD_ID",
    "ImageObservation",
    "MarpleEnv",
    "NoMiniGridEquivalent",
    "OBSERVATION_KEYS",
    "env_ids",
    "mission_env_id",
    "register_envs",
]
