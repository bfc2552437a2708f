"""Display words for the names in the asset and mission tables, shared by every sentence the package writes."""

from __future__ import annotations

from marple_gym.world.assets import ASSETS

_ROOM_WORDS = {"LivingRoom": "Living Room"}


def word(name: str) -> str:
    """Display words for an asset or room type name (``electric_refrigerator`` -> ``electric refrigerator``)."""
    return _ROOM_WORDS.get(name, name.replace("_", " "))


def relation(fur: str) -> str:
    """ "in" for containers, "on" for everything else."""
    return "in" if ASSETS.furniture_type(fur).holds == "inside" else "on"
