"""Every action's exact effect, including the failures that must change nothing."""

from __future__ import annotations

import pytest
from worlds import make_world

from marple_gym.world import Action
from marple_gym.world.assets import ASSETS
from marple_gym.world.rules import apply_action
from marple_gym.world.state import CH_AGENT, CH_AGENT_DIR, CH_FUR_STATE, CH_OBJ, CH_OBJ_ID

TABLE_AHEAD = {"type": "table", "pos": [3, 2], "state": {"dustyable": False, "stainable": False}}  # front cell (3, 3)


def closet_ahead(is_open: bool, objects=()) -> dict:
    return {"type": "closet", "pos": [3, 1], "state": {"openable": is_open}, "objects": list(objects)}


def fetch_from_behind(world):
    """Turn around, pick up what lies behind the agent, turn back."""
    apply_action(world.house, world.state, 0, int(Action.left))
    apply_action(world.house, world.state, 0, int(Action.left))
    assert apply_action(world.house, world.state, 0, int(Action.pickup)).success
    apply_action(world.house, world.state, 0, int(Action.left))
    apply_action(world.house, world.state, 0, int(Action.left))


def assert_failed_and_unchanged(world, action):
    before = world.get_state()
    outcome = apply_action(world.house, world.state, 0, int(action))
    assert not outcome.success
    assert world.state.same_as(before)


def test_turning_changes_direction_and_its_vision_channel():
    world = make_world(agent=(2, 3, 0))
    assert apply_action(world.house, world.state, 0, int(Action.left)).success
    assert world.state.agent_dir[0] == 3
    assert world.state.grid[3, 2, CH_AGENT_DIR] == 4
    apply_action(world.house, world.state, 0, int(Action.right))
    apply_action(world.house, world.state, 0, int(Action.right))
    assert world.state.agent_dir[0] == 1


def test_forward_moves_onto_free_floor():
    world = make_world(agent=(2, 3, 0))
    assert apply_action(world.house, world.state, 0, int(Action.forward)).success
    assert tuple(world.state.agent_pos[0]) == (3, 3)
    assert world.state.grid[3, 3, CH_AGENT] == 1 and world.state.grid[3, 2, CH_AGENT] == 0


@pytest.mark.parametrize(
    "contents",
    [
        {"agent": (1, 3, 2)},  # wall ahead
        {"furniture": [TABLE_AHEAD]},
        {"floor_objects": [{"type": "ball", "pos": [3, 3]}]},
        {"furniture": [closet_ahead(True)]},  # even an open closet cannot be walked into
    ],
)
def test_forward_into_an_obstacle_fails_and_changes_nothing(contents):
    world = make_world(**contents)
    assert_failed_and_unchanged(world, Action.forward)


def test_pickup_takes_the_object_in_front_into_a_hand():
    world = make_world(furniture=[{**TABLE_AHEAD, "objects": [{"type": "apple", "pos": [3, 3]}]}])
    outcome = apply_action(world.house, world.state, 0, int(Action.pickup))
    assert outcome.success and outcome.obj == 0 and outcome.fur == 0
    assert world.state.carrying[0].tolist() == [0, -1]
    assert tuple(world.state.obj_pos[0]) == (-1, -1)
    assert world.state.grid[3, 3, CH_OBJ] == 0
    # the held object shows on the agent's cell
    assert world.state.grid[3, 2, CH_OBJ] == ASSETS.object_code["apple"]
    assert world.state.grid[3, 2, CH_OBJ_ID] == 1


def test_pickup_with_nothing_in_front_fails():
    world = make_world(furniture=[TABLE_AHEAD])
    assert_failed_and_unchanged(world, Action.pickup)


def test_pickup_from_a_closed_container_fails_and_from_an_open_one_succeeds():
    clothes = [{"type": "clothes", "pos": [3, 3]}]
    assert_failed_and_unchanged(make_world(furniture=[closet_ahead(False, clothes)]), Action.pickup)
    world = make_world(furniture=[closet_ahead(True, clothes)])
    assert apply_action(world.house, world.state, 0, int(Action.pickup)).success


def test_pickup_with_full_hands_fails():
    objects = [{"type": "apple", "pos": [3, 3]}, {"type": "pen", "pos": [4, 3]}, {"type": "book", "pos": [5, 3]}]
    world = make_world(furniture=[{**TABLE_AHEAD, "objects": objects}], agent=(3, 4, 3))
    assert apply_action(world.house, world.state, 0, int(Action.pickup)).success
    apply_action(world.house, world.state, 0, int(Action.right))
    apply_action(world.house, world.state, 0, int(Action.forward))
    apply_action(world.house, world.state, 0, int(Action.left))
    assert apply_action(world.house, world.state, 0, int(Action.pickup)).success
    apply_action(world.house, world.state, 0, int(Action.right))
    apply_action(world.house, world.state, 0, int(Action.forward))
    apply_action(world.house, world.state, 0, int(Action.left))
    assert_failed_and_unchanged(world, Action.pickup)


def test_drop_puts_the_object_held_longest_first():
    objects = [{"type": "apple", "pos": [3, 3]}, {"type": "pen", "pos": [4, 3]}]
    world = make_world(furniture=[{**TABLE_AHEAD, "objects": objects}], agent=(3, 4, 3))
    apply_action(world.house, world.state, 0, int(Action.pickup))  # apple
    apply_action(world.house, world.state, 0, int(Action.right))
    apply_action(world.house, world.state, 0, int(Action.forward))
    apply_action(world.house, world.state, 0, int(Action.left))
    apply_action(world.house, world.state, 0, int(Action.pickup))  # pen
    outcome = apply_action(world.house, world.state, 0, int(Action.drop))
    assert outcome.success and outcome.obj == 0 and outcome.fur == 0
    assert tuple(world.state.obj_pos[0]) == (4, 3)
    assert world.state.carrying[0].tolist() == [1, -1]
    assert world.state.grid[4, 4, CH_OBJ] == ASSETS.object_code["pen"]  # now shown in hand


def test_drop_onto_free_floor_succeeds():
    world = make_world(floor_objects=[{"type": "ball", "pos": [3, 3]}])
    apply_action(world.house, world.state, 0, int(Action.pickup))
    assert apply_action(world.house, world.state, 0, int(Action.drop)).success
    assert tuple(world.state.obj_pos[0]) == (3, 3)


def test_drop_onto_an_occupied_cell_fails():
    objects = [{"type": "apple", "pos": [3, 3]}]
    world = make_world(furniture=[{**TABLE_AHEAD, "objects": objects}], floor_objects=[{"type": "ball", "pos": [1, 3]}])
    fetch_from_behind(world)  # the ball
    assert_failed_and_unchanged(world, Action.drop)  # onto the apple's cell


def test_drop_with_empty_hands_fails():
    assert_failed_and_unchanged(make_world(furniture=[TABLE_AHEAD]), Action.drop)


@pytest.mark.parametrize(
    "furniture",
    [
        [{"type": "chair", "pos": [3, 3]}],  # holds nothing
        [closet_ahead(False)],  # closed container
    ],
)
def test_drop_onto_furniture_that_cannot_take_it_fails(furniture):
    world = make_world(furniture=furniture, floor_objects=[{"type": "ball", "pos": [1, 3]}])
    fetch_from_behind(world)
    assert_failed_and_unchanged(world, Action.drop)


def test_drop_into_an_open_container_succeeds():
    world = make_world(furniture=[closet_ahead(True)], floor_objects=[{"type": "ball", "pos": [1, 3]}])
    fetch_from_behind(world)
    outcome = apply_action(world.house, world.state, 0, int(Action.drop))
    assert outcome.success and outcome.fur == 0


def test_toggle_switches_furniture_on_and_off():
    world = make_world(furniture=[{"type": "light", "pos": [3, 3], "state": {"toggleable": False}}])
    outcome = apply_action(world.house, world.state, 0, int(Action.toggle))
    assert outcome.success and outcome.value == 1
    assert world.state.grid[3, 3, CH_FUR_STATE] - 1 == 1
    assert apply_action(world.house, world.state, 0, int(Action.toggle)).value == 0


def test_toggle_something_not_toggleable_fails():
    assert_failed_and_unchanged(make_world(furniture=[TABLE_AHEAD]), Action.toggle)


def test_toggle_reaches_a_toggleable_object_on_furniture():
    laptop = {"type": "laptop", "pos": [3, 3], "state": {"toggleable": False, "dustyable": False}}
    world = make_world(furniture=[{**TABLE_AHEAD, "objects": [laptop]}])
    outcome = apply_action(world.house, world.state, 0, int(Action.toggle))
    assert outcome.success and outcome.obj == 0 and world.state.obj_state[0] & 1


def test_open_and_close_a_closet_paints_every_cell():
    world = make_world(furniture=[closet_ahead(False)])
    assert apply_action(world.house, world.state, 0, int(Action.open)).success
    ys, xs = world.house.fur_cells[0]
    assert ((world.state.grid[ys, xs, CH_FUR_STATE] - 1) & 16).all()
    assert_failed_and_unchanged(world, Action.open)  # already open
    assert apply_action(world.house, world.state, 0, int(Action.close)).success
    assert_failed_and_unchanged(world, Action.close)  # already closed


def test_open_a_non_openable_fails():
    assert_failed_and_unchanged(make_world(furniture=[TABLE_AHEAD]), Action.open)


def test_clean_needs_a_cleaning_tool_and_clears_dust():
    dusty = {"type": "table", "pos": [3, 2], "state": {"dustyable": True, "stainable": False}}
    towel = [{"type": "towel", "pos": [1, 3], "state": {"soakable": False, "stainable": False}}]
    world = make_world(furniture=[dusty], floor_objects=towel)
    assert_failed_and_unchanged(world, Action.clean)  # no tool
    fetch_from_behind(world)
    outcome = apply_action(world.house, world.state, 0, int(Action.clean))
    assert outcome.success and outcome.value == 0
    assert not world.state.fur_state[0] & (64 | 2)
    assert_failed_and_unchanged(world, Action.clean)  # already clean


def test_idle_succeeds_changes_nothing_and_names_the_furniture():
    world = make_world(furniture=[{"type": "television", "pos": [3, 3], "state": {"toggleable": True}}])
    before = world.get_state()
    outcome = apply_action(world.house, world.state, 0, int(Action.idle))
    assert outcome.success and outcome.fur == 0
    assert world.state.same_as(before)


def test_doors_open_close_and_block_when_closed():
    config = {
        "width": 13,
        "height": 7,
        "rooms": [
            {"type": "Kitchen", "top": [1, 1], "size": [5, 5], "num_furniture": 0},
            {"type": "Bedroom", "top": [7, 1], "size": [5, 5], "num_furniture": 0},
        ],
        "doors": [{"pos": [6, 3], "open": False}],
        "agents": [{"pos": [5, 3], "dir": 0}],
    }
    import numpy as np

    from marple_gym.generation import generate_world

    world = generate_world(config, np.random.default_rng(0))
    assert_failed_and_unchanged(world, Action.forward)
    assert apply_action(world.house, world.state, 0, int(Action.open)).success
    assert apply_action(world.house, world.state, 0, int(Action.forward)).success
    assert tuple(world.state.agent_pos[0]) == (6, 3)
    assert apply_action(world.house, world.state, 0, int(Action.forward)).success
    apply_action(world.house, world.state, 0, int(Action.left))
    apply_action(world.house, world.state, 0, int(Action.left))
    assert apply_action(world.house, world.state, 0, int(Action.close)).success


def test_unknown_action_raises():
    world = make_world()
    with pytest.raises(ValueError, match="unknown action"):
        apply_action(world.house, world.state, 0, 42)
