"""A hand-made two-room apartment for exact tests of searching agents and their questions.

::

    x: 0         8         16
       #########################     y 0
       # F F . . . C C # . . . . . L L #   F fridge (1,1) 2x3, C kitchen cabinet (6,1) 2x3
       # F F . . . C C # . . . . . L L #   L living-room cabinet (14,1) 2x3
       # F F . . . C C # . . . . . L L #
       # . . . . . . . D . . . . . . . #   D the door (8,4)
       # . . . . . . . # . . . . . . . #
       # . . T T T . . # . . S S S . . #   T table (3,6) 3x2, S sofa (11,6) 3x2
       # . . T T T . . # . . S S S . . #
       #################################     y 8

Objects go on the side of each piece that faces the room, where an agent can reach them.
"""

from __future__ import annotations

from marple_gym.generation.config import HouseConfig

PIECES = {
    "fridge": ("electric_refrigerator", (1, 1), (2, 2)),
    "kitchen cabinet": ("cabinet", (6, 1), (6, 2)),
    "table": ("table", (3, 6), (4, 6)),
    "living cabinet": ("cabinet", (14, 1), (14, 2)),
    "sofa": ("sofa", (11, 6), (12, 6)),
}
"""Name -> (furniture type, top-left cell, the cell an object goes on)."""
ORDER = tuple(PIECES)
"""The pieces in furniture-index order (the kitchen's, then the living room's)."""


def two_rooms(contents: dict[str, str], agent: tuple[int, int, int] = (12, 3, 2), agents: int = 1) -> HouseConfig:
    """The apartment with ``contents`` (piece name -> object type) and the agent at (x, y, direction)."""
    rooms = []
    for room, top, names in (("Kitchen", (1, 1), ORDER[:3]), ("LivingRoom", (9, 1), ORDER[3:])):
        furniture = []
        for name in names:
            ftype, pos, cell = PIECES[name]
            objects = [{"type": contents[name], "pos": list(cell)}] if name in contents else []
            furniture.append({"type": ftype, "pos": list(pos), "objects": objects, "num_objects": len(objects)})
        rooms.append(
            {"type": room, "top": list(top), "size": [7, 7], "furniture": furniture, "num_furniture": len(furniture)}
        )
    people = [{"name": "A", "pos": [agent[0], agent[1]], "dir": agent[2]}]
    if agents > 1:
        people.append({"name": "B", "pos": [10, 5], "dir": 0, "color": "blue"})
    return HouseConfig.from_dict(
        {"width": 17, "height": 9, "rooms": rooms, "doors": [{"pos": [8, 4], "open": True}], "agents": people}
    )


def piece(name: str) -> int:
    """The furniture index of a piece of the apartment."""
    return ORDER.index(name)
