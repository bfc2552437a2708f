"""Bad configs fail with an error that names the field and the reason."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from paths import DATA

from marple_gym.generation import HouseConfig, HouseConfigError, generate_world

REFERENCE = DATA / "reference-configs" / "init_config_change_outfit_do_laundry.json"


def paper_config() -> dict:
    return json.loads(REFERENCE.read_text())


def build(config, missions=("do_laundry",)):
    return generate_world(config, np.random.default_rng(0), list(missions))


def test_malformed_json_names_line_and_column(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"Grid": {"width": 20,, }}')
    with pytest.raises(HouseConfigError, match=r"malformed JSON: .* line 1"):
        HouseConfig.load(path)


def test_missing_file_is_reported():
    with pytest.raises(HouseConfigError, match="no such file"):
        HouseConfig.load("/nonexistent/house.json")


@pytest.mark.parametrize(
    "edit, field, reason",
    [
        (
            lambda g: g["rooms"]["initial"][0].__setitem__("type", "Kichen"),
            "Grid.rooms.initial[0].type",
            "did you mean 'Kitchen'",
        ),
        (
            lambda g: g["rooms"]["initial"][1]["furnitures"]["initial"][0].__setitem__("type", "closset"),
            "Grid.rooms.initial[1].furnitures.initial[0].type",
            "unknown furniture 'closset'",
        ),
        (
            lambda g: g["rooms"]["initial"][1]["furnitures"]["initial"][0]["objs"]["initial"][0].__setitem__(
                "type", "clotehs"
            ),
            "Grid.rooms.initial[1].furnitures.initial[0].objs.initial[0].type",
            "did you mean 'clothes'",
        ),
        (
            lambda g: g["agents"]["initial"][0].__setitem__("mission_preference_initial", {"do_laundy": 1}),
            "Grid.agents.initial[0].mission_preferences.do_laundy",
            "unknown mission",
        ),
        (
            lambda g: g["rooms"]["initial"][1]["furnitures"]["initial"][0]["state"].__setitem__("toggleable", True),
            "Grid.rooms.initial[1].furnitures.initial[0].state.toggleable",
            "has no state 'toggleable'",
        ),
        (lambda g: g.__setitem__("width", "wide"), "Grid.width", "expected an integer"),
        (lambda g: g["agents"]["initial"][0].__setitem__("dir", 7), "Grid.agents.initial[0].dir", "direction must be"),
    ],
)
def test_unknown_names_and_bad_values_name_their_field(edit, field, reason):
    data = paper_config()
    edit(data["Grid"])
    with pytest.raises(HouseConfigError, match=reason) as info:
        build(data)
    assert info.value.field == field


def test_grid_too_small_for_the_rooms():
    with pytest.raises(HouseConfigError, match="cannot split a 12 x 12 grid into 4 rooms"):
        build(HouseConfig(width=12, height=12, num_rooms=4))


def test_grid_too_small_for_even_one_room():
    with pytest.raises(HouseConfigError, match="cannot hold a room"):
        build(HouseConfig(width=5, height=5, num_rooms=1), missions=())


def test_room_outside_the_grid():
    data = paper_config()
    data["Grid"]["rooms"]["initial"][1]["size"] = [30, 5]
    with pytest.raises(HouseConfigError, match="does not fit inside") as info:
        build(data)
    assert info.value.field == "Grid.rooms.initial[1]"


def test_overlapping_furniture_is_contradictory():
    data = paper_config()
    furs = data["Grid"]["rooms"]["initial"][1]["furnitures"]["initial"]
    furs[1]["pos"] = [13, 3]  # the bed onto the closet
    furs[1]["objs"]["initial"] = []
    with pytest.raises(HouseConfigError, match="overlaps the closet") as info:
        build(data, missions=())
    assert "furnitures.initial[1].pos" in info.value.field


def test_object_outside_its_furniture_is_contradictory():
    data = paper_config()
    data["Grid"]["rooms"]["initial"][1]["furnitures"]["initial"][1]["objs"]["initial"][0]["pos"] = [2, 2]
    with pytest.raises(HouseConfigError, match="is not a cell of the bed") as info:
        build(data)
    assert info.value.field.endswith("objs.initial[0].pos")


def test_agent_on_furniture_is_contradictory():
    data = paper_config()
    data["Grid"]["agents"]["initial"][0]["pos"] = [14, 3]  # on the closet
    with pytest.raises(HouseConfigError, match="cannot start at") as info:
        build(data)
    assert info.value.field == "Grid.agents.initial[0].pos"


def test_door_outside_a_wall_is_rejected():
    data = paper_config()
    data["Grid"]["doors"]["initial"][0]["pos"] = [3, 3]
    with pytest.raises(HouseConfigError, match="not in a wall between two rooms") as info:
        build(data)
    assert info.value.field == "Grid.doors.initial[0].pos"


def test_room_without_a_door_is_unreachable():
    data = paper_config()
    del data["Grid"]["doors"]["initial"][2]  # the only door to the kitchen
    with pytest.raises(HouseConfigError, match="Kitchen_3 cannot be reached"):
        build(data)


def test_mission_needing_a_missing_room_type_is_impossible():
    data = paper_config()
    with pytest.raises(HouseConfigError, match="need a room of type Kitchen|no space"):
        data2 = copy.deepcopy(data)
        data2["Grid"]["rooms"]["initial"][2]["type"] = "Study"  # no Kitchen left
        build(data2, missions=["get_snack"])


def test_furniture_that_cuts_the_house_in_two_is_impossible():
    config = {
        "width": 9,
        "height": 7,
        "rooms": [
            {
                "type": "Kitchen",
                "top": [1, 1],
                "size": [7, 5],
                "furniture": [
                    {"type": "bucket", "pos": [4, 1]},
                    {"type": "bucket", "pos": [4, 3]},
                    {"type": "light", "pos": [4, 5]},
                ],
            }
        ],
        "doors": [],
        "agents": [{"pos": [1, 1]}],
    }
    with pytest.raises(HouseConfigError, match="cuts the floor into parts"):
        build(config, missions=())


def test_unknown_plain_field_is_named():
    with pytest.raises(HouseConfigError, match="unknown key.*did you mean 'width'") as info:
        HouseConfig.from_dict({"widht": 20})
    assert info.value.field == "widht"
