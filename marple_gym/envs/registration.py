"""Environment ids, registered by looping over the mission table."""

from __future__ import annotations

import gymnasium as gym

from marple_gym.errors import MarpleError
from marple_gym.missions.mission import MISSIONS

HOUSEHOLD_ID = "Marple-Household-v0"
FAMILY_IDS: dict[str, tuple[str, str, int, str]] = {
    "Marple-Search-v0": (
        "marple_gym.envs.search:SearchEnv",
        "marple_gym.envs.search:SearchVectorEnv",
        200,
        "search a house for an object it may not see",
    ),
}
"""The other families' envs: id -> (entry point, vector entry point, step limit, what it is)."""
MAX_EPISODE_STEPS = 500
"""``spec.max_episode_steps`` of every id: the env's own ``max_steps`` default, so the
``TimeLimit`` wrapper and the env truncate on the same step. For longer episodes pass
both, e.g. ``gym.make(id, max_steps=1000, max_episode_steps=1000)``."""


class RegistrationError(MarpleError):
    """An id is already registered with Gymnasium for a different environment."""


def mission_env_id(mission_name: str) -> str:
    """The Gymnasium id of a mission's env, e.g. ``Marple-DoLaundry-v0``."""
    return f"Marple-{MISSIONS[mission_name].env_name}-v0"


def env_ids() -> list[str]:
    """The ids of the ten missions' envs and of the household (the ladder's are ``marple_gym.level_ids()``, the
    other families' :data:`FAMILY_IDS`; every id of ours is in Gymnasium's registry)."""
    return [mission_env_id(name) for name in MISSIONS] + [HOUSEHOLD_ID]


def _entry_points() -> dict[str, tuple[str, str]]:
    """(entry point, vector entry point) of every id."""
    out = {
        mission_env_id(name): (
            f"marple_gym.envs.missions:{mission.env_name}Env",
            f"marple_gym.envs.vector:{mission.env_name}VectorEnv",
        )
        for name, mission in MISSIONS.items()
    }
    out[HOUSEHOLD_ID] = ("marple_gym.envs.household:MarpleEnv", "marple_gym.envs.vector:MarpleVectorEnv")
    return out


def register(
    env_id: str, entry_point: str, vector_entry_point: str | None, max_episode_steps: int = MAX_EPISODE_STEPS
) -> None:
    """Register one id; registering it again with the same entry points does nothing.

    Raises :class:`RegistrationError` if ``env_id`` is taken by another environment.
    """
    spec = gym.registry.get(env_id)
    if spec is None:
        gym.register(
            env_id,
            entry_point=entry_point,
            vector_entry_point=vector_entry_point,
            max_episode_steps=max_episode_steps,
        )
    elif (spec.entry_point, spec.vector_entry_point) != (entry_point, vector_entry_point):
        raise RegistrationError(
            f"{env_id} is already registered with entry point {spec.entry_point!r}, not {entry_point!r}: "
            "another package uses this id"
        )


def register_envs() -> None:
    """Register all MARPLE envs with Gymnasium (safe to call twice)."""
    for env_id, (entry_point, vector_entry_point) in _entry_points().items():
        register(env_id, entry_point, vector_entry_point)
    for env_id, (entry_point, vector_entry_point, steps, _) in FAMILY_IDS.items():
        register(env_id, entry_point, vector_entry_point, steps)
