"""Frames: sizes, what each state looks like, agents and hands, caching speed, the human window."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from worlds import make_world

import marple_gym  # noqa: F401
from marple_gym.datasets.replay_sources import planner_trajectory
from marple_gym.rendering import render_frame, render_grid
from marple_gym.rendering.layout import Layout, TileKey
from marple_gym.rendering.legend import furniture_picture, legend_image, object_picture
from marple_gym.rendering.palette import AGENT_COLORS
from marple_gym.rendering.tiles import agent_color_index, tile_image
from marple_gym.world import Action
from marple_gym.world.assets import ASSETS
from marple_gym.world.rules import apply_action

T = 16  # tile size for pixel tests


def region(frame: np.ndarray, x: int, y: int, w: int, h: int, t: int = T) -> np.ndarray:
    return frame[y * t : (y + h) * t, x * t : (x + w) * t].astype(int)


def changed(a: np.ndarray, b: np.ndarray) -> float:
    """Fraction of pixels that differ noticeably."""
    return float((np.abs(a - b).max(axis=-1) > 24).mean())


def test_a_frame_has_one_tile_per_cell_and_is_deterministic():
    world = make_world(furniture=[{"type": "bed", "pos": [4, 2]}])
    frame = render_frame(world, tile_size=12)
    assert frame.shape == (7 * 12, 9 * 12, 3) and frame.dtype == np.uint8
    assert np.array_equal(frame, render_frame(world, tile_size=12))
    with pytest.raises(ValueError, match="tile_size"):
        render_frame(world, tile_size=2)


@pytest.mark.parametrize(
    ("piece", "action"),
    [
        ({"type": "closet", "pos": [3, 1], "state": {"openable": False}}, Action.open),
        ({"type": "electric_refrigerator", "pos": [3, 1], "state": {"openable": False}}, Action.open),
        ({"type": "laundry", "pos": [3, 2], "state": {"openable": False, "toggleable": False}}, Action.toggle),
        ({"type": "laundry", "pos": [3, 2], "state": {"openable": False, "toggleable": False}}, Action.open),
        ({"type": "television", "pos": [3, 2], "state": {"toggleable": False}}, Action.toggle),
        ({"type": "light", "pos": [3, 3], "state": {"toggleable": False}}, Action.toggle),
        ({"type": "stove", "pos": [3, 2], "state": {"toggleable": False, "openable": False}}, Action.toggle),
        ({"type": "shower", "pos": [3, 2], "state": {"toggleable": False}}, Action.toggle),
    ],
)
def test_opened_or_toggled_furniture_looks_different_and_nothing_else_does(piece, action):
    world = make_world(furniture=[piece], agent=(2, 3, 0))
    before = render_frame(world, T)
    assert apply_action(world.house, world.state, 0, int(action)).success
    after = render_frame(world, T)
    kind = ASSETS.furniture_type(piece["type"])
    x, y = piece["pos"]
    assert changed(region(before, x, y, kind.width, kind.height), region(after, x, y, kind.width, kind.height)) > 0.08
    outside = np.ones(before.shape[:2], dtype=bool)
    outside[y * T : (y + kind.height) * T, x * T : (x + kind.width) * T] = False
    assert np.array_equal(before[outside], after[outside])


def test_cleaning_dust_off_a_table_shows():
    table = {"type": "table", "pos": [3, 2], "state": {"dustyable": True, "stainable": False}}
    world = make_world(furniture=[table], agent=(2, 3, 0), floor_objects=[{"type": "rag", "pos": [1, 3]}])
    (
        apply_action(world.house, world.state, 0, int(Action.left)),
        apply_action(world.house, world.state, 0, int(Action.left)),
    )
    assert apply_action(world.house, world.state, 0, int(Action.pickup)).success
    (
        apply_action(world.house, world.state, 0, int(Action.left)),
        apply_action(world.house, world.state, 0, int(Action.left)),
    )
    dusty = render_frame(world, T)
    assert apply_action(world.house, world.state, 0, int(Action.clean)).success
    assert changed(region(dusty, 3, 2, 3, 2), region(render_frame(world, T), 3, 2, 3, 2)) > 0.2


def agent_mask(tile: np.ndarray, color: str = "red") -> np.ndarray:
    return np.abs(tile.astype(int) - AGENT_COLORS[color]).sum(axis=-1) < 60


def test_the_agent_triangle_turns_with_its_direction_and_points_where_it_faces():
    tiles = [tile_image(TileKey(agent_dir=d + 1, agent_color=agent_color_index("red")).pack(), 32) for d in range(4)]
    masks = [agent_mask(t) for t in tiles]
    for d in range(3):  # each direction is the previous one turned a quarter clockwise
        a, b = np.rot90(masks[d], k=-1), masks[d + 1]
        assert (a & b).sum() / (a | b).sum() > 0.9
    east = masks[0]
    columns = np.flatnonzero(east.any(axis=0))
    assert east[:, columns[-1]].sum() < east[:, columns[0]].sum() / 3  # narrow tip on the east side


def test_what_an_agent_carries_is_drawn_and_two_hands_differ_from_one():
    clothes, towel = ASSETS.object_code["clothes"], ASSETS.object_code["towel"]
    base = TileKey(room=1, agent_dir=1)
    empty, one, two = (
        tile_image(k.pack(), 32)
        for k in (
            base,
            TileKey(room=1, agent_dir=1, obj=clothes, obj_state=1),
            TileKey(room=1, agent_dir=1, obj=clothes, obj_state=1, hand2=towel),
        )
    )
    assert changed(empty.astype(int), one.astype(int)) > 0.05
    assert changed(one.astype(int), two.astype(int)) > 0.05


def test_pickup_shows_the_object_in_hand_and_frames_of_a_record_match_the_live_world():
    trajectory = planner_trajectory("watch_movie_cozily", seed=2)
    house = trajectory.initial_world().house
    carrying = [t for t in range(trajectory.length + 1) if trajectory.carrying[t].any()]
    assert carrying, "the mission carries a pillow"
    for t in (0, carrying[0], carrying[-1], trajectory.length):
        world = trajectory.world_at(t)
        recorded = render_grid(trajectory.vision[t], house, T, hands=[trajectory.carrying[t]])
        assert np.array_equal(recorded, render_frame(world, T)), t


def test_every_object_type_has_its_own_glyph():
    pictures = np.stack([object_picture(o.code, 0, 24) for o in ASSETS.objects]).astype(int)
    flat = pictures.reshape(len(pictures), -1)
    for i in range(len(flat)):
        diff = np.abs(flat - flat[i]).mean(axis=1)
        diff[i] = np.inf
        assert diff.min() > 2.0, (ASSETS.objects[i].name, ASSETS.objects[int(diff.argmin())].name)


def test_furniture_types_of_one_size_look_different_and_states_show():
    by_size: dict[tuple[int, int], list[tuple[str, np.ndarray]]] = {}
    for kind in ASSETS.furniture:
        by_size.setdefault((kind.width, kind.height), []).append((kind.name, furniture_picture(kind.code, 0, 16)))
    for group in by_size.values():
        for i, (name_a, a) in enumerate(group):
            for name_b, b in group[i + 1 :]:
                assert changed(a.astype(int), b.astype(int)) > 0.1, (name_a, name_b)
    for kind in ASSETS.furniture:
        clean = furniture_picture(kind.code, 0, 16).astype(int)
        for ability in ("dustyable", "stainable", "openable", "toggleable"):
            if ability in kind.abilities:
                bit = {"dustyable": 64, "stainable": 2, "openable": 16, "toggleable": 1}[ability]
                assert changed(clean, furniture_picture(kind.code, bit, 16).astype(int)) > 0.02, (kind.name, ability)


def test_room_names_are_written_on_the_walls_only():
    world = make_world(width=12, room="Bathroom")
    plain = render_frame(world, 24, labels=False)
    labelled = render_frame(world, 24, labels=True)
    diff = np.abs(plain.astype(int) - labelled.astype(int)).max(axis=-1) > 0
    assert diff.any()
    wall = np.repeat(np.repeat(world.house.wall, 24, axis=0), 24, axis=1)
    assert not (diff & ~wall).any()
    assert np.array_equal(render_frame(world, 8), render_frame(world, 8, labels=False))  # too small for text


def test_layout_is_computed_once_per_house_and_warm_frames_repeat_exactly():
    # Speed is measured by bench/bench_render.py, not here: a unit test must pass on a busy machine.
    env = gym.make("Marple-DoLaundry-v0", render_mode="rgb_array", tile_size=32)
    env.reset(seed=5)
    house = env.unwrapped.world.house
    assert Layout.of(house) is Layout.of(house)
    for action in np.random.default_rng(0).integers(0, 3, 40).tolist():
        env.step(action)
        cold = env.render()  # the first pass fills the tile cache
        assert np.array_equal(env.render(), cold)
        assert Layout.of(house) is Layout.of(env.unwrapped.world.house)
    assert cold.shape == (640, 640, 3)


def test_human_render_mode_opens_a_window_with_a_caption_strip():
    env = gym.make("Marple-DoLaundry-v0", render_mode="human", tile_size=8)
    env.reset(seed=0)
    env.step(2)
    window = env.unwrapped.window
    assert window is not None and window.is_open
    width, height = window.screen.get_size()
    assert width >= 160 and height > 160 + 3 * window.line_height  # the frame plus three caption lines
    assert env.render() is None
    env.close()
    assert env.unwrapped.window is None


def test_the_legend_sheet_draws_everything():
    sheet = legend_image(tile_size=12)
    assert sheet.ndim == 3 and sheet.shape[1] > 12 * 20 and sheet.shape[0] > sheet.shape[1]
