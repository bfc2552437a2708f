"""The level ladder for RL (single skills to the ten missions) and its dense reward."""

from marple_gym.levels.ladder import (
    LEVEL_ENVS,
    LEVEL_VECTOR_ENVS,
    LEVELS,
    SKILLS,
    Level,
    LevelEnv,
    LevelVectorEnv,
    level_ids,
    mission_words,
    register_levels,
)
from marple_gym.levels.shaping import SUBGOAL_BONUS, DenseReward, facing_distance_map, steps_to_subgoal

__all__ = [
    "SUBGOAL_BONUS",
    "DenseReward",
    "LEVELS",
    "LEVEL_ENVS",
    "LEVEL_VECTOR_ENVS",
    "Level",
    "LevelEnv",
    "LevelVectorEnv",
    "SKILLS",
    "facing_distance_map",
    "level_ids",
    "mission_words",
    "register_levels",
    "steps_to_subgoal",
]
