"""The level ladder for RL (single skills to the ten missions) and its dense reward."""

from marple_gym.levels.ladder import LEVEL_ENVS, LEVELS, SKILLS, Level, LevelEnv, level_ids, register_levels
from marple_gym.levels.shaping import SUBGOAL_BONUS, DenseReward, facing_distance_map, steps_to_subgoal

__all__ = [
    "SUBGOAL_BONUS",
    "DenseReward",
    "LEVELS",
    "LEVEL_ENVS",
    "Level",
    "LevelEnv",
    "SKILLS",
    "facing_distance_map",
    "level_ids",
    "register_levels",
    "steps_to_subgoal",
]
