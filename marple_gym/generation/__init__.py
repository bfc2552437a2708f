"""Procedural generation of houses from (partial) configurations."""

from marple_gym.generation.config import (
    AgentSpec,
    DoorSpec,
    FurnitureSpec,
    HouseConfig,
    HouseConfigError,
    ObjectSpec,
    RoomSpec,
)
from marple_gym.generation.generator import generate_world

__all__ = [
    "AgentSpec",
    "HouseConfigError",
    "DoorSpec",
    "FurnitureSpec",
    "HouseConfig",
    "ObjectSpec",
    "RoomSpec",
    "generate_world",
]
