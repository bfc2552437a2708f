"""RGB frames of a house: the vision array drawn as a picture.

::

    frame = render_frame(world, tile_size=32)               # (H*32, W*32, 3) uint8
    frame = render_grid(trajectory.vision[t], house, 32,     # a recorded step
                        hands=[trajectory.carrying[t]])

Each cell's look is one integer key (see :mod:`marple_gym.rendering.layout`);
a frame packs the keys of all cells, fetches each distinct key's cached tile
(see :mod:`marple_gym.rendering.tiles`) and copies the tiles into place, so a
20 x 20 frame costs about a millisecond once its tiles have been seen.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
from PIL import Image

from marple_gym.evidence.egocentric import view_cells
from marple_gym.evidence.visibility import Visibility
from marple_gym.rendering.labels import MIN_TILE, add_room_labels
from marple_gym.rendering.layout import Layout
from marple_gym.rendering.tiles import agent_color_index, occluder_tile, tile_image
from marple_gym.world.house import House
from marple_gym.world.world import World


def render_grid(
    grid: np.ndarray,
    house: House,
    tile_size: int = 32,
    *,
    hands: Sequence[Sequence[int]] | None = None,
    agent_colors: Sequence[str] | None = None,
    labels: bool | None = None,
    visibility: Visibility | None = None,
) -> np.ndarray:
    """Draw a vision array of ``house`` as an (H * tile_size, W * tile_size, 3) uint8 image.

    ``hands[i]`` lists the object type codes agent ``i`` holds, oldest first (the
    vision array shows only the first); ``agent_colors[i]`` names its colour
    (default: the house's). ``labels`` writes room names on the walls (default:
    when tiles are at least 16 pixels). ``visibility`` cuts what it hides out of
    the picture: hidden cells are drawn as an occluder (a striped screen), hidden
    containers as empty.
    """
    if tile_size < 4:
        raise ValueError(f"tile_size must be at least 4 pixels, got {tile_size}")
    if visibility is not None:
        grid = visibility.vision(grid)
    colors = agent_colors if agent_colors is not None else house.agent_colors
    second = None if hands is None else [int(h[1]) if len(h) > 1 else 0 for h in hands]
    keys = Layout.of(house).keys(grid, [agent_color_index(c) for c in colors], second)
    frame = _assemble(keys, int(tile_size))
    if labels if labels is not None else tile_size >= MIN_TILE:
        add_room_labels(frame, house, int(tile_size))
    if visibility is not None and visibility.hidden.any():
        _cover(frame, visibility.hidden, int(tile_size))
    return frame


def spread_steps(first: int, last: int, count: int) -> list[int]:
    """``count`` steps spread evenly from ``first`` to ``last``, both included (fewer where the clip is shorter;
    one step is ``last``): which frames of a clip a reader is shown."""
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    if count == 1:
        return [last]
    return sorted(set(np.linspace(first, last, count).round().astype(int).tolist()))


def png_bytes(frame: np.ndarray) -> bytes:
    """An (H, W, 3) uint8 RGB frame as the bytes of a PNG file: lossless, what a dataset export stores and a
    vision-language model is sent."""
    array = np.asarray(frame)
    if array.dtype != np.uint8 or array.ndim != 3 or array.shape[2] != 3:
        raise ValueError(f"expected an (H, W, 3) uint8 RGB frame, got {array.dtype} of shape {array.shape}")
    out = io.BytesIO()
    Image.fromarray(array).save(out, format="PNG", optimize=True)
    return out.getvalue()


def render_frame(
    world: World,
    tile_size: int = 32,
    *,
    agent_colors: Sequence[str] | None = None,
    labels: bool | None = None,
    visibility: Visibility | None = None,
) -> np.ndarray:
    """The whole house as an (H * tile_size, W * tile_size, 3) uint8 RGB image (``visibility``: see
    :func:`render_grid`)."""
    obj_type = world.house.obj_type
    hands = [[int(obj_type[o]) if o >= 0 else 0 for o in held] for held in world.state.carrying.tolist()]
    return render_grid(
        world.state.grid,
        world.house,
        tile_size,
        hands=hands,
        agent_colors=agent_colors,
        labels=labels,
        visibility=visibility,
    )


def render_view(
    world: World,
    view_size: int,
    tile_size: int = 32,
    *,
    agent: int = 0,
    see_through_walls: bool = False,
    perceived: Visibility | None = None,
) -> np.ndarray:
    """What agent ``agent`` sees, drawn: a (view_size * tile_size)-pixel square, MiniGrid's ``agent_pov`` frame.

    The cells of its egocentric view (:mod:`marple_gym.evidence.egocentric`), each tile turned so that the
    agent, in the middle of the bottom row, faces up; cells it cannot see (hidden, outside the house, or not
    ``perceived``) are black, and containers whose contents it does not perceive are drawn empty.
    """
    t = int(tile_size)
    frame = render_frame(world, t, labels=False, visibility=perceived)  # room names would be cut into pieces
    tiles = frame.reshape(frame.shape[0] // t, t, frame.shape[1] // t, t, 3).transpose(0, 2, 1, 3, 4)
    xs, ys, seen = view_cells(world.state, agent, view_size, see_through_walls)
    if perceived is not None:
        height, width = perceived.seen.shape
        seen = seen & perceived.seen[ys.clip(0, height - 1), xs.clip(0, width - 1)]
    turns = (int(world.state.agent_dir[agent]) + 1) % 4  # east faces up after one quarter turn to the left
    view = np.zeros((view_size, view_size, t, t, 3), dtype=np.uint8)
    view[seen] = np.rot90(tiles[ys[seen], xs[seen]], k=turns, axes=(1, 2))
    return np.ascontiguousarray(view.transpose(0, 2, 1, 3, 4)).reshape(view_size * t, view_size * t, 3)


def lighten(frame: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """``frame`` (of the whole house) with ``cells`` (an (H, W) bool mask) lightened, as MiniGrid highlights the
    cells its agent sees."""
    t = frame.shape[0] // cells.shape[0]
    mask = np.repeat(np.repeat(cells, t, axis=0), t, axis=1)
    out = frame.copy()
    out[mask] = out[mask] + ((255 - out[mask].astype(np.int16)) * 0.3).astype(np.uint8)
    return out


def _assemble(keys: np.ndarray, tile_size: int) -> np.ndarray:
    """Copy each cell's cached tile into place."""
    h, w = keys.shape
    unique, inverse = np.unique(keys, return_inverse=True)
    atlas = np.stack([tile_image(int(k), tile_size) for k in unique.tolist()])
    tiles = atlas[inverse.reshape(h, w)]  # (H, W, t, t, 3)
    return np.ascontiguousarray(tiles.transpose(0, 2, 1, 3, 4)).reshape(h * tile_size, w * tile_size, 3)


def _cover(frame: np.ndarray, hidden: np.ndarray, tile_size: int) -> None:
    """Paint the occluder over the hidden cells of ``frame`` (in place)."""
    h, w = hidden.shape
    tiles = frame.reshape(h, tile_size, w, tile_size, 3).transpose(0, 2, 1, 3, 4)  # a view onto the frame
    tiles[hidden] = occluder_tile(tile_size)
