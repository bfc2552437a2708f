"""Many agents in one house: a PettingZoo environment and the planner in a shared house.

* :func:`parallel_env` / :func:`env`: the PettingZoo Parallel and AEC environments
  (:class:`~marple_gym.multiagent.environment.MarpleParallelEnv`,
  :class:`~marple_gym.multiagent.environment.MarpleAECEnv`; need the ``multiagent`` extra).
* :func:`generate_shared_episode` / :func:`run_shared_episode`: N hierarchical planners
  acting together, every agent's actions and evidence recorded in one
  :class:`SharedEpisode` (numpy only, no PettingZoo needed; they live in
  :mod:`marple_gym.recording.shared_house` and are re-exported here).
"""

from __future__ import annotations

from typing import Any

from marple_gym.recording.shared_house import (
    SharedEpisode,
    generate_shared_episode,
    run_shared_episode,
    shared_house_config,
)

__all__ = [
    "MarpleAECEnv",
    "MarpleParallelEnv",
    "SharedEpisode",
    "env",
    "generate_shared_episode",
    "parallel_env",
    "run_shared_episode",
    "shared_house_config",
]

_ENV_NAMES = ("MarpleAECEnv", "MarpleParallelEnv", "env", "parallel_env")


def __getattr__(name: str) -> Any:
    # The environments import PettingZoo: load them on first use, so the planner side works without it.
    if name in _ENV_NAMES:
        try:
            from marple_gym.multiagent import environment
        except ModuleNotFoundError as error:
            if error.name != "pettingzoo":
                raise
            raise ModuleNotFoundError(
                f'marple_gym.multiagent.{name} needs PettingZoo: pip install "marple-gym[multiagent]"',
                name="pettingzoo",
            ) from error
        return getattr(environment, name)
    raise AttributeError(f"module 'marple_gym.multiagent' has no attribute {name!r}")
