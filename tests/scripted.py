"""A tiny hand-made house in which a short action script completes get_snack."""

from __future__ import annotations

from marple_gym.world import Action

SNACK_HOUSE = {
    "width": 13,
    "height": 7,
    "rooms": [
        {
            "type": "Kitchen",
            "top": [1, 1],
            "size": [5, 5],
            "num_furniture": 1,
            "furniture": [
                {
                    "type": "electric_refrigerator",
                    "pos": [1, 1],
                    "state": {"openable": False, "dustyable": False, "stainable": False},
                    "num_objects": 1,
                    "objects": [{"type": "sandwich", "pos": [2, 3], "state": {"cookable": False, "freezable": False}}],
                }
            ],
        },
        {
            "type": "Bedroom",
            "top": [7, 1],
            "size": [5, 5],
            "num_furniture": 1,
            "furniture": [
                {"type": "table", "pos": [9, 2], "state": {"dustyable": False, "stainable": False}, "num_objects": 0}
            ],
        },
    ],
    "doors": [{"pos": [6, 3], "open": True}],
    "agents": [{"name": "A", "pos": [3, 3], "dir": 2}],
}

SNACK_SCRIPT = (
    [Action.open, Action.pickup, Action.close, Action.right, Action.right] + [Action.forward] * 5 + [Action.drop]
)
"""Open the fridge, take the sandwich, close the fridge, walk east, drop it on the Bedroom table."""
