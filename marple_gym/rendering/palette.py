"""The colours of the pictures: floors, walls, agents and the materials of things."""

from __future__ import annotations

from marple_gym.rendering.canvas import Color
from marple_gym.world.assets import ASSETS

WALL: Color = (58, 58, 66)
WALL_EDGE: Color = (84, 84, 94)
DOORWAY: Color = (214, 206, 190)
OUTLINE: Color = (40, 36, 40)
WHITE: Color = (250, 250, 250)
SHADOW: Color = (30, 26, 30)
OCCLUDER: Color = (96, 104, 128)
OCCLUDER_STRIPE: Color = (118, 128, 156)

# Named colours an agent may be given (config ``agents[].color``); red first, like MiniGrid's agent.
AGENT_COLORS: dict[str, Color] = {
    "red": (226, 52, 52),
    "blue": (40, 110, 235),
    "green": (40, 170, 70),
    "purple": (150, 70, 200),
    "yellow": (240, 200, 30),
    "orange": (245, 130, 30),
    "grey": (120, 120, 120),
    "cyan": (20, 190, 200),
}  # at most 8: a tile key holds the colour in 3 bits (rendering/layout.py)

# Materials shared by furniture and glyphs.
WOOD: Color = (160, 108, 62)
DARK_WOOD: Color = (105, 66, 38)
LIGHT_WOOD: Color = (205, 160, 105)
METAL: Color = (165, 172, 182)
DARK_METAL: Color = (80, 84, 92)
PORCELAIN: Color = (240, 242, 246)
GLASS: Color = (170, 215, 240)
WATER: Color = (60, 150, 235)
FABRIC_RED: Color = (190, 60, 70)
CARDBOARD: Color = (200, 160, 100)
SCREEN_OFF: Color = (44, 48, 56)
LIT: Color = (255, 226, 90)
LED_ON: Color = (60, 230, 90)
LED_OFF: Color = (70, 70, 70)
INTERIOR: Color = (38, 32, 30)
DUST: Color = (150, 146, 138)
STAIN: Color = (84, 52, 22)


def floor_color(room_code: int) -> Color:
    """A light tint of the room type's colour (0: the neutral doorway floor)."""
    if not room_code:
        return DOORWAY
    r, g, b = ASSETS.room_colors[ASSETS.room_types[room_code - 1]]
    return (int(r * 0.38 + 255 * 0.62), int(g * 0.38 + 255 * 0.62), int(b * 0.38 + 255 * 0.62))


def shade(color: Color, factor: float) -> Color:
    """Darker (factor < 1) or lighter (factor > 1, towards white) version of a colour."""
    if factor <= 1:
        return tuple(int(c * factor) for c in color)  # type: ignore[return-value]
    t = factor - 1
    return tuple(int(c + (255 - c) * t) for c in color)  # type: ignore[return-value]
