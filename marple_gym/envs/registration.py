"""Environment ids, registered by looping over the mission table."""

from __future__ import annotations

import gymnasium as gym

from marple_gym.missions.mission import MISSIONS

HOUSEHOLD_ID = "Marple-Household-v0"
MAX_EPISODE_STEPS = 500
"""``spec.max_episode_steps`` of every id: the env's own ``max_steps`` default, so the
``TimeLimit`` wrapper and the env truncate on the same step. For longer episodes pass
both, e.g. ``gym.make(id, max_steps=1000, max_episode_steps=1000)``."""


def mission_env_id(mission_name: str) -> str:
    """The Gymnasium id of a mission's env, e.g. ``Marple-DoLaundry-v0``."""
    return f"Marple-{MISSIONS[mission_name].env_name}-v0"


def env_ids() -> list[str]:
    """Every id this package registers."""
    return [mission_env_id(name) for name in MISSIONS] + [HOUSEHOLD_ID]


def register_envs() -> None:
    """Register all MARPLE envs with Gymnasium (safe to call twice)."""
    for name, mission in MISSIONS.items():
        env_id = mission_env_id(name)
        if env_id not in gym.registry:
            gym.register(
                env_id,
                entry_point=f"marple_gym.envs.missions:{mission.env_name}Env",
                max_episode_steps=MAX_EPISODE_STEPS,
            )
    if HOUSEHOLD_ID not in gym.registry:
        gym.register(
            HOUSEHOLD_ID, entry_point="marple_gym.envs.household:MarpleEnv", max_episode_steps=MAX_EPISODE_STEPS
        )
