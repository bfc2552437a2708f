"""MARPLE-Gym: household gridworlds for long-horizon "whodunit" inference.

Importing the package registers the Gymnasium environments::

    import gymnasium as gym
    import marple_gym  # noqa: F401

    env = gym.make("Marple-DoLaundry-v0")

The package imports lazily: ``import marple_gym.world`` (the numpy-only world
core) loads neither Gymnasium nor the envs. The envs are registered as soon as
Gymnasium is imported, before or after this package; the public names below are
loaded on first use.
"""

from __future__ import annotations

import importlib
import importlib.abc
import sys
from typing import Any

from marple_gym.version import __version__ as __version__

_PUBLIC = {
    "ASSETS": "marple_gym.world",
    "Action": "marple_gym.world",
    "ConfigError": "marple_gym.generation",
    "DenseReward": "marple_gym.levels",
    "EgocentricView": "marple_gym.envs",
    "EpisodeState": "marple_gym.episode",
    "FlatObservation": "marple_gym.envs",
    "House": "marple_gym.world",
    "HouseConfig": "marple_gym.generation",
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


def _register() -> None:
    from marple_gym.envs.registration import register_envs
    from marple_gym.levels import register_levels

    register_envs()
    register_levels()


class _RegisteringLoader(importlib.abc.Loader):
    """Gymnasium's own loader, followed by the registration of our envs."""

    def __init__(self, inner: importlib.abc.Loader) -> None:
        self.inner = inner

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module) -> None:
        self.inner.exec_module(module)
        _register()

    def __getattr__(self, name: str) -> Any:  # resource readers and the like: Gymnasium's loader answers
        return getattr(self.inner, name)


class _OnGymnasiumImport(importlib.abc.MetaPathFinder):
    """Registers the envs right after Gymnasium is first imported, then leaves the import system alone."""

    def find_spec(self, name, path, target=None):
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisteringLoader(spec.loader)
        return spec


if "gymnasium" in sys.modules:
    _register()
elif not any(isinstance(finder, _OnGymnasiumImport) for finder in sys.meta_path):
    sys.meta_path.insert(0, _OnGymnasiumImport())
