"""What a tile's picture depends on, packed into one integer key per cell.

A tile looks the same wherever the same key occurs, so a frame is: pack the keys
of all cells (a few numpy operations), look up each distinct key's cached
picture, and copy the pictures into place.

Most of a key comes from the cell's vision channels (room, furniture and its
state, object and its state, agent direction); the rest is static and comes from
the house (which cell of which piece of furniture this is, which way a door's
wall runs) or from the caller (agent colour, what the agent holds in its second
hand, which the vision array does not show).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from marple_gym.world.assets import ASSETS, DOOR
from marple_gym.world.house import House
from marple_gym.world.state import CH_AGENT, CH_AGENT_DIR, CH_FUR, CH_FUR_STATE, CH_OBJ, CH_OBJ_STATE, CH_ROOM

# (field, first bit, width in bits) of a tile key.
FIELDS: tuple[tuple[str, int, int], ...] = (
    ("room", 0, 3),
    ("fur", 3, 5),
    ("fur_state", 8, 8),
    ("obj", 16, 7),
    ("obj_state", 23, 8),
    ("agent_dir", 31, 3),  # direction + 1, 0 = no agent
    ("agent_color", 34, 3),
    ("hand2", 37, 7),  # object type in the agent's other hand
    ("dx", 44, 3),  # this cell's column within its piece of furniture
    ("dy", 47, 3),
    ("width", 50, 3),  # the piece's size
    ("height", 53, 3),
    ("vertical_wall", 56, 1),  # a door whose wall runs north-south
)
_SHIFT = {name: shift for name, shift, _ in FIELDS}
_WIDTH = {name: width for name, _, width in FIELDS}
# The asset library must fit the key's fields (grow the fields if it outgrows them).
assert len(ASSETS.furniture_names) <= 1 << _WIDTH["fur"] and len(ASSETS.object_names) <= 1 << _WIDTH["obj"]


@dataclass(frozen=True)
class TileKey:
    """A tile key unpacked into its fields."""

    room: int = 0
    fur: int = 0
    fur_state: int = 0
    obj: int = 0
    obj_state: int = 0
    agent_dir: int = 0
    agent_color: int = 0
    hand2: int = 0
    dx: int = 0
    dy: int = 0
    width: int = 0
    height: int = 0
    vertical_wall: int = 0

    @classmethod
    def unpack(cls, key: int) -> TileKey:
        return cls(*((key >> shift) & ((1 << width) - 1) for _, shift, width in FIELDS))

    def pack(self) -> int:
        return sum(getattr(self, name) << shift for name, shift, _ in FIELDS)


@dataclass(frozen=True, eq=False)
class Layout:
    """The static part of every cell's key for one house: furniture geometry and door orientation."""

    static: np.ndarray  # (H, W) int64

    @classmethod
    def of(cls, house: House) -> Layout:
        """The layout of ``house`` (computed once per house and kept while the house lives)."""
        layout = _LAYOUTS.get(house)
        if layout is None:
            layout = _LAYOUTS[house] = cls(_static_key(house))
        return layout

    def keys(
        self,
        grid: np.ndarray,
        agent_colors: np.ndarray | None = None,
        second_hands: np.ndarray | None = None,
    ) -> np.ndarray:
        """(H, W) int64 tile keys of a vision array.

        ``agent_colors[i]`` is the colour index of agent ``i`` (agent id ``i + 1``),
        ``second_hands[i]`` the object type in its second hand (0 = none).
        """
        g = grid.astype(np.int64)
        agent = g[..., CH_AGENT]
        keys = (
            self.static
            | g[..., CH_ROOM] << _SHIFT["room"]
            | g[..., CH_FUR] << _SHIFT["fur"]
            | g[..., CH_FUR_STATE] << _SHIFT["fur_state"]
            | g[..., CH_OBJ] << _SHIFT["obj"]
            | g[..., CH_OBJ_STATE] << _SHIFT["obj_state"]
            | g[..., CH_AGENT_DIR] << _SHIFT["agent_dir"]
        )
        if agent.any():
            index = np.maximum(agent - 1, 0)
            if agent_colors is not None and len(agent_colors):
                colors = np.asarray(agent_colors, dtype=np.int64)[np.minimum(index, len(agent_colors) - 1)]
                keys |= np.where(agent > 0, colors, 0) << _SHIFT["agent_color"]
            if second_hands is not None and len(second_hands):
                hands = np.asarray(second_hands, dtype=np.int64)[np.minimum(index, len(second_hands) - 1)]
                keys |= np.where(agent > 0, hands, 0) << _SHIFT["hand2"]
        return keys


_LAYOUTS: weakref.WeakKeyDictionary[House, Layout] = weakref.WeakKeyDictionary()


def _static_key(house: House) -> np.ndarray:
    h, w = house.height, house.width
    out = np.zeros((h, w), dtype=np.int64)
    for (x, y), (pw, ph), code in zip(house.fur_pos.tolist(), house.fur_size.tolist(), house.fur_type.tolist()):
        if code == DOOR or max(pw, ph) >= 1 << _WIDTH["width"]:
            continue
        dx, dy = np.meshgrid(np.arange(pw), np.arange(ph))
        out[y : y + ph, x : x + pw] = (
            dx << _SHIFT["dx"] | dy << _SHIFT["dy"] | pw << _SHIFT["width"] | ph << _SHIFT["height"]
        )
    for i in house.doors.tolist():
        x, y = house.fur_pos[i].tolist()
        vertical = (y > 0 and bool(house.wall[y - 1, x])) or (y + 1 < h and bool(house.wall[y + 1, x]))
        out[y, x] |= int(vertical) << _SHIFT["vertical_wall"]
    return out
