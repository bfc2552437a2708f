"""MARPLE-Gym: household gridworlds for inferring other minds, and every family's data made in them: whodunit
datasets (:mod:`marple_gym.datasets`: which agent caused the query state), belief and goal questions about
agents who search by what they believe (:mod:`marple_gym.beliefs`, :mod:`marple_gym.beliefs.questions`), and
expectation trials (:mod:`marple_gym.expectations`), all written by one shard writer
(:mod:`marple_gym.datasets.sharded`).

Importing the package registers the Gymnasium environments::

    import gymnasium as gym
    import marple_gym  # noqa: F401

    env = gym.make("Marple-DoLaundry-v0")

or, without the import, ``gym.make("marple_gym:Marple-DoLaundry-v0")`` (Gymnasium
imports the package named before the colon). The other public names below load
on first use. The world core (``marple_gym.world``) imports only numpy; loading it
still runs this file, and so Gymnasium's registry and the env modules.
"""

from __future__ import annotations

import importlib
from typing import Any

from marple_gym.version import __version__ as __version__

_PUBLIC = {
    "ASSETS": "marple_gym.world",
    "Action": "marple_gym.world",
    "DenseReward": "marple_gym.levels",
    "EgocentricView": "marple_gym.envs",
    "EpisodeState": "marple_gym.episode",
    "FlatObservation": "marple_gym.envs",
    "House": "marple_gym.world",
    "HouseConfig": "marple_gym.generation",
    "HouseConfigError": "marple_gym.generation",
    "ImageObservation": "marple_gym.envs",
    "MISSIONS": "marple_gym.missions",
    "MarpleEnv": "marple_gym.envs",
    "Mission": "marple_gym.missions",
    "MissionProgress": "marple_gym.missions",
    "NumericObservation": "marple_gym.envs",
    "RGBImageObservation": "marple_gym.envs",
    "Outcome": "marple_gym.world",
    "Subgoal": "marple_gym.missions",
    "World": "marple_gym.world",
    "WorldState": "marple_gym.world",
    "env_ids": "marple_gym.envs",
    "generate_world": "marple_gym.generation",
    "get_mission": "marple_gym.missions",
    "level_ids": "marple_gym.levels",
    "register_envs": "marple_gym.envs",
    "register_levels": "marple_gym.levels",
}

__all__ = sorted([*_PUBLIC, "__version__"])


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'marple_gym' has no attribute {name!r}")
    value = getattr(importlib.import_module(_PUBLIC[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))


# Registration on import, as MiniGrid and ale-py do: Gymnasium 1.0 dropped its plugin entry points, and its
# ``gym.make("marple_gym:Marple-DoLaundry-v0")`` form imports this package for the same effect. Registering is
# idempotent, so an explicit ``register_envs()`` afterwards changes nothing.
from marple_gym.envs.registration import register_envs  # noqa: E402
from marple_gym.levels.ladder import register_levels  # noqa: E402

register_envs()
register_levels()
