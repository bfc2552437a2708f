"""A picture legend: every furniture type in each of its states, every object, agents and doors.

``legend_image()`` is the sheet in ``docs/images/legend.png``; it is also the
quickest way to check how a change to a painter looks.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from marple_gym.evidence.language import word
from marple_gym.rendering.layout import TileKey
from marple_gym.rendering.palette import WHITE
from marple_gym.rendering.text import draw_text, wrap
from marple_gym.rendering.tiles import agent_color_index, tile_image
from marple_gym.world.assets import ASSETS, BIT, DOOR, DUSTY_BIT, OPEN_BIT, STAIN_BIT, TOGGLE_BIT

_STATE_WORDS = ((OPEN_BIT, "open"), (TOGGLE_BIT, "on"), (DUSTY_BIT, "dusty"), (STAIN_BIT, "stained"))
_INK = (40, 40, 48)


def _tiles(keys: list[list[TileKey]], tile_size: int) -> np.ndarray:
    rows = [np.concatenate([tile_image(k.pack(), tile_size) for k in row], axis=1) for row in keys]
    return np.concatenate(rows, axis=0)


def furniture_picture(code: int, bits: int, tile_size: int) -> np.ndarray:
    """One piece of furniture in state ``bits`` on the floor of a room it belongs in."""
    kind = ASSETS.furniture[code - 3]
    room = ASSETS.room_code[kind.rooms[0]]
    return _tiles(
        [
            [
                TileKey(room, code, bits + 1, dx=dx, dy=dy, width=kind.width, height=kind.height)
                for dx in range(kind.width)
            ]
            for dy in range(kind.height)
        ],
        tile_size,
    )


def object_picture(code: int, bits: int, tile_size: int, on_furniture: bool = False) -> np.ndarray:
    """One object on the floor (or on a table)."""
    key = TileKey(room=ASSETS.room_code["Study"], obj=code, obj_state=bits + 1)
    if on_furniture:
        key = replace(key, fur=ASSETS.furniture_code["table"], fur_state=1, dx=1, width=3, height=2)
    return tile_image(key.pack(), tile_size)


def _variants(code: int) -> list[tuple[int, str]]:
    mask = int(ASSETS.fur_mask[code])
    out = [(0, "")]
    for bit, name in _STATE_WORDS:
        if mask & bit:
            out.append((bit, name))
    if mask & OPEN_BIT and mask & TOGGLE_BIT:
        out.append((TOGGLE_BIT, "on"))
    return list(dict.fromkeys(out))


def _sheet(items: list[tuple[np.ndarray, str]], columns: int, cell: tuple[int, int], font: int) -> np.ndarray:
    """Pictures in a grid, each centred in its cell with a caption below."""
    cw, ch = cell
    rows = -(-len(items) // columns)
    sheet = np.full((rows * ch, columns * cw, 3), WHITE, dtype=np.uint8)
    for i, (picture, caption) in enumerate(items):
        x0, y0 = (i % columns) * cw, (i // columns) * ch
        ph, pw = picture.shape[:2]
        top = y0 + (ch - 3 * font - ph) // 2
        left = x0 + (cw - pw) // 2
        sheet[top : top + ph, left : left + pw] = picture
        for j, line in enumerate(wrap(caption, font, cw - 6)[:2]):
            sheet = draw_text(sheet, (x0 + cw // 2, y0 + ch - 2 * font - 4 + j * font), line, font, _INK, "ma")
    return sheet


def legend_image(tile_size: int = 40) -> np.ndarray:
    """The whole legend as one RGB image."""
    font = max(11, tile_size // 3)
    furniture = []
    for kind in ASSETS.furniture:
        for bits, state in _variants(kind.code):
            furniture.append((furniture_picture(kind.code, bits, tile_size), f"{word(kind.name)} {state}".strip()))
    objects = [(object_picture(o.code, 0, tile_size), word(o.name)) for o in ASSETS.objects]
    red, blue = agent_color_index("red"), agent_color_index("blue")
    clothes, towel = ASSETS.object_code["clothes"], ASSETS.object_code["towel"]
    others = [
        (tile_image(TileKey(room=1, agent_dir=d + 1, agent_color=red).pack(), tile_size), f"agent facing {name}")
        for d, name in enumerate(("east", "south", "west", "north"))
    ] + [
        (
            tile_image(TileKey(room=1, agent_dir=1, agent_color=blue, obj=clothes, obj_state=1).pack(), tile_size),
            "holding clothes",
        ),
        (
            tile_image(
                TileKey(room=1, agent_dir=2, agent_color=blue, obj=clothes, obj_state=1, hand2=towel).pack(), tile_size
            ),
            "holding two things",
        ),
        (tile_image(TileKey(fur=DOOR, fur_state=1, vertical_wall=1).pack(), tile_size), "door closed"),
        (tile_image(TileKey(fur=DOOR, fur_state=1 + OPEN_BIT, vertical_wall=1).pack(), tile_size), "door open"),
        (object_picture(ASSETS.object_code["apple"], BIT["dustyable"] | BIT["cookable"], tile_size), "apple cooked"),
        (
            object_picture(ASSETS.object_code["rag"], BIT["soakable"] | BIT["stainable"], tile_size),
            "rag soaked stained",
        ),
        (object_picture(ASSETS.object_code["laptop"], BIT["toggleable"], tile_size), "laptop on"),
        (object_picture(ASSETS.object_code["sandwich"], 0, tile_size, on_furniture=True), "on furniture"),
    ]
    width = 8 * 3 * tile_size + 8 * tile_size // 2
    parts = [
        _title("Furniture", width, font),
        _sheet(furniture, 8, (width // 8, 3 * tile_size + 3 * font), font),
        _title("Objects", width, font),
        _sheet(objects, 12, (width // 12, tile_size + 3 * font), font),
        _title("Agents, doors and object states", width, font),
        _sheet(others, 12, (width // 12, tile_size + 3 * font), font),
    ]
    return np.concatenate([_pad_to(p, width) for p in parts], axis=0)


def _pad_to(part: np.ndarray, width: int) -> np.ndarray:
    return np.pad(part, ((0, 0), (0, width - part.shape[1]), (0, 0)), constant_values=WHITE[0])


def _title(text: str, width: int, font: int) -> np.ndarray:
    strip = np.full((2 * font + 8, width, 3), WHITE, dtype=np.uint8)
    return draw_text(strip, (8, font // 2 + 4), text, int(font * 1.4), _INK)
