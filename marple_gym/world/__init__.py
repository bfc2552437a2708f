"""The household world: assets, layout, state and the rules of actions.

This layer is pure numpy. It knows nothing of Gymnasium, rendering or torch.
Its two executors of the rules, :mod:`marple_gym.world.rules` (one episode) and
:mod:`marple_gym.world.batch` (many), are entered only through
:mod:`marple_gym.episode`.
"""

from marple_gym.world.actions import NUM_ACTIONS, Action, Outcome
from marple_gym.world.assets import ABILITIES, ASSETS, AssetLibrary
from marple_gym.world.house import DIR_VEC, House, Room
from marple_gym.world.state import CHANNEL_NAMES, HANDS, NUM_CHANNELS, WorldState
from marple_gym.world.world import World

__all__ = [
    "ABILITIES",
    "ASSETS",
    "Action",
    "AssetLibrary",
    "CHANNEL_NAMES",
    "DIR_VEC",
    "HANDS",
    "House",
    "NUM_ACTIONS",
    "NUM_CHANNELS",
    "Outcome",
    "Room",
    "World",
    "WorldState",
]
