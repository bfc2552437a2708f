"""Missions as data, the subgoal tracker, and requirements derived from subgoals."""

from __future__ import annotations

import numpy as np
import pytest
from scripted import SNACK_HOUSE, SNACK_SCRIPT

from marple_gym.generation import generate_world
from marple_gym.missions import MISSIONS, Mission, MissionProgress, Subgoal, UnknownMissionError, get_mission
from marple_gym.missions.requirements import mission_requirements
from marple_gym.world import Action
from marple_gym.world.rules import apply_action

# SPEC section 4, abbreviated: (action, object or furniture, room, skippable)
SPEC_TABLE = {
    "get_night_snack": [
        "toggle light K",
        "open electric_refrigerator K",
        "pickup sandwich K",
        "close electric_refrigerator K *",
        "toggle light K *",
        "drop sandwich B",
    ],
    "get_snack": [
        "open electric_refrigerator K",
        "pickup sandwich K",
        "close electric_refrigerator K *",
        "drop sandwich B",
    ],
    "feed_dog": [
        "pickup dogfood K",
        "drop dogfood B",
        "pickup dogfood B *",
        "open closet K",
        "drop dogfood K",
        "close closet K *",
    ],
    "watch_news_on_tv": [
        "pickup remote L",
        "toggle television L",
        "idle television L",
        "drop remote L *",
        "toggle television L *",
    ],
    "move_plant_at_night": ["toggle light K", "pickup pot_plant L", "drop pot_plant K", "toggle light K *"],
    "take_shower": [
        "toggle shower T",
        "idle shower T",
        "toggle shower T *",
        "open closet B",
        "pickup clothes B",
        "close closet B *",
    ],
    "do_laundry": [
        "pickup clothes B",
        "open laundry T",
        "drop clothes T",
        "close laundry T",
        "toggle laundry T",
        "idle laundry T",
        "toggle laundry T *",
        "open laundry T",
        "pickup clothes T",
        "close laundry T *",
        "open closet B",
        "drop clothes B",
        "close closet B *",
    ],
    "watch_movie_cozily": [
        "pickup pillow B",
        "pickup remote L",
        "toggle television L",
        "drop pillow L",
        "idle television L",
        "toggle television L *",
        "drop remote L *",
    ],
    "change_outfit": [
        "open closet B",
        "pickup clothes B",
        "close closet B *",
        "open laundry T",
        "drop clothes T",
        "close laundry T *",
    ],
    "clean_living_room_table": [
        "open closet K",
        "pickup towel K",
        "close closet K",
        "clean table L",
        "open closet K",
        "drop towel K *",
        "close closet K *",
    ],
}
ROOM = {"K": "Kitchen", "B": "Bedroom", "T": "Bathroom", "L": "LivingRoom"}
QUERIES = {
    "watch_movie_cozily": "pickup-pillow-bed-Bedroom",
    "take_shower": "toggle-on-shower-Bathroom",
    "get_snack": "pickup-sandwich-electric_refrigerator-Kitchen",
    "move_plant_at_night": "pickup-pot_plant-table-LivingRoom",
    "do_laundry": "toggle-on-laundry-Bathroom",
    "get_night_snack": "toggle-on-light-Kitchen",
    "feed_dog": "drop-dogfood-closet-Kitchen",
    "watch_news_on_tv": "idle-television-LivingRoom",
    "change_outfit": "pickup-clothes-closet-Bedroom",
    "clean_living_room_table": "clean-table-LivingRoom",
}


def _abbrev(sg: Subgoal) -> str:
    thing = sg.obj or sg.fur
    room = {v: k for k, v in ROOM.items()}[sg.room]
    return f"{sg.action.name} {thing} {room}" + (" *" if sg.skippable else "")


@pytest.mark.parametrize("name", list(SPEC_TABLE))
def test_missions_match_the_spec_table(name):
    assert [_abbrev(sg) for sg in MISSIONS[name].subgoals] == SPEC_TABLE[name]


@pytest.mark.parametrize("name", list(QUERIES))
def test_query_states_are_the_papers(name):
    assert MISSIONS[name].query_subgoal.name == QUERIES[name]


def test_unknown_mission_suggests_a_name():
    with pytest.raises(UnknownMissionError, match="did you mean 'do_laundry'"):
        get_mission("do_laundy")


def test_env_names_are_camel_case():
    assert MISSIONS["do_laundry"].env_name == "DoLaundry"
    assert MISSIONS["watch_news_on_tv"].env_name == "WatchNewsOnTV"


def snack_world():
    return generate_world(SNACK_HOUSE, np.random.default_rng(0))


def test_progress_follows_the_script_to_completion():
    world = snack_world()
    progress = MissionProgress(MISSIONS["get_snack"])
    achieved = []
    for action in SNACK_SCRIPT:
        j = progress.update(apply_action(world.house, world.state, 0, int(action)), world)
        if j is not None:
            achieved.append(j)
    assert achieved == [0, 1, 2, 3]
    assert progress.complete and progress.current is None


def test_a_later_subgoal_skips_the_skippable_ones_before_it():
    world = snack_world()
    progress = MissionProgress(MISSIONS["get_snack"])
    script = [a for a in SNACK_SCRIPT if a != Action.close]  # leave the fridge open
    for action in script:
        progress.update(apply_action(world.house, world.state, 0, int(action)), world)
    assert progress.achieved == [0, 1, 3] and progress.skipped == [2]
    assert progress.complete


def test_a_required_subgoal_cannot_be_skipped():
    world = snack_world()
    progress = MissionProgress(MISSIONS["get_snack"])
    # picking up without opening fails; walking to the table and idling achieves nothing
    assert progress.update(apply_action(world.house, world.state, 0, int(Action.pickup)), world) is None
    assert progress.index == 0


def test_infeasible_skippable_subgoals_are_passed_over():
    house = {**SNACK_HOUSE}
    house["rooms"] = [dict(r) for r in SNACK_HOUSE["rooms"]]
    fridge = dict(house["rooms"][0]["furniture"][0])
    fridge["state"] = {**fridge["state"], "openable": True}
    house["rooms"][0]["furniture"] = [fridge]
    world = generate_world(house, np.random.default_rng(0))
    mission = Mission(
        "test",
        "test",
        (
            Subgoal(Action.pickup, "electric_refrigerator", "Kitchen", obj="sandwich"),
            Subgoal(Action.open, "electric_refrigerator", "Kitchen", state=("openable", True), skippable=True),
            Subgoal(Action.drop, "table", "Bedroom", obj="sandwich"),
        ),
        query=0,
    )
    progress = MissionProgress(mission)
    progress.update(apply_action(world.house, world.state, 0, int(Action.pickup)), world)
    assert progress.index == 2 and progress.skipped == [1]  # the fridge is already open


def test_matching_checks_the_room():
    world = snack_world()
    sg = Subgoal(Action.open, "electric_refrigerator", "Bedroom", state=("openable", True))
    assert not sg.matches(apply_action(world.house, world.state, 0, int(Action.open)), world.house)


def test_requirements_follow_from_subgoals():
    reqs = {(r.fur, r.room): r for r in mission_requirements(MISSIONS["do_laundry"])}
    assert reqs[("bed", "Bedroom")].contains == ["clothes"]
    assert reqs[("laundry", "Bathroom")].initial == {"openable": False, "toggleable": False}
    assert reqs[("laundry", "Bathroom")].contains == []  # the clothes it gives back were dropped in first
    assert reqs[("closet", "Bedroom")].needs_free_cell
    feed = {(r.fur, r.room): r for r in mission_requirements(MISSIONS["feed_dog"])}
    assert feed[("dog", "Bedroom")].contains == []


def test_subgoals_reject_inconsistent_definitions():
    with pytest.raises(ValueError, match="must produce a openable state"):
        Subgoal(Action.open, "closet", "Bedroom")
    with pytest.raises(ValueError, match="name an object"):
        Subgoal(Action.pickup, "closet", "Bedroom")
