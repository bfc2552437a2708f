"""The original benchmark's houses: the house configs it published, one per paper scenario (package data).

Each is one fully furnished house in the paper's config format; only the
agents' start cells are left to draw. ``marple generate --houses original``
builds the five scenarios' test and train-in houses from them (train-ood
houses stay random: they must be new houses). A config is found by the
scenario's two missions, in either order, so ``shower@0.8`` and
``feed_dog-vs-take_shower`` find the shower scenario's house too.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources
from importlib.resources.abc import Traversable

from marple_gym.errors import MarpleError
from marple_gym.generation.config import HouseConfig

HOUSE_SOURCES = ("random", "original")
"""Where a scenario's test and train-in houses come from: new random houses, or the original benchmark's."""
_DIRECTORY = "data/original"


def _files() -> dict[str, Traversable]:
    folder = resources.files("marple_gym.generation").joinpath(_DIRECTORY)
    return {f.name: f for f in folder.iterdir() if f.name.endswith(".json")}


def original_config_file(missions: Iterable[str]) -> Traversable:
    """The original house config for a scenario of these two missions (``init_config_<one>_<other>.json``)."""
    pair = list(missions)
    files = _files()
    if len(pair) == 2:
        for first, second in (pair, pair[::-1]):
            name = f"init_config_{first}_{second}.json"
            if name in files:
                return files[name]
    known = ", ".join(sorted(name.removeprefix("init_config_").removesuffix(".json") for name in files))
    raise MarpleError(
        f"no original house config for the missions {' and '.join(pair)}: the original benchmark published "
        f"one per paper scenario ({known}); use --houses random"
    )


def original_house(missions: Iterable[str]) -> HouseConfig:
    """The original house of the scenario of these two missions, as a checked :class:`HouseConfig`."""
    source = original_config_file(missions)
    with resources.as_file(source) as path:
        return HouseConfig.load(str(path))
