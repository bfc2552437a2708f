"""Evidence modalities: audio tokens, language templates, scene graphs."""

from __future__ import annotations

import numpy as np
from scripted import SNACK_HOUSE
from worlds import make_world

from marple_gym.evidence import AUDIO, FOOTSTEP, SILENCE, audio_token, intent, language, scene_graph
from marple_gym.generation import generate_world
from marple_gym.missions import MISSIONS
from marple_gym.world import Action
from marple_gym.world.rules import apply_action


def token_of(world, action) -> str:
    outcome = apply_action(world.house, world.state, 0, int(action))
    return AUDIO.tokens[audio_token(outcome, world.house, world.state)]


def test_all_navigation_shares_the_footstep_even_when_blocked():
    world = make_world(agent=(1, 3, 2))  # facing the west wall
    assert token_of(world, Action.forward) == "footstep"
    assert token_of(world, Action.left) == "footstep"
    assert token_of(world, Action.right) == "footstep"


def test_interactions_sound_by_action_and_target():
    light = {"type": "light", "pos": [3, 3], "state": {"toggleable": False}}
    world = make_world(furniture=[light])
    assert token_of(world, Action.toggle) == "toggle_on_light"
    assert token_of(world, Action.toggle) == "toggle_off_light"
    assert token_of(world, Action.open) == "silence"  # failed


def test_pickup_and_drop_sound_by_object():
    world = generate_world(SNACK_HOUSE, np.random.default_rng(0))
    assert token_of(world, Action.open) == "open_electric_refrigerator"
    assert token_of(world, Action.pickup) == "pickup_sandwich"
    assert token_of(world, Action.drop) == "drop_sandwich"


def test_idle_hums_only_at_a_running_appliance():
    tv = {"type": "television", "pos": [3, 3], "state": {"toggleable": False}}
    world = make_world(furniture=[tv])
    assert token_of(world, Action.idle) == "silence"
    apply_action(world.house, world.state, 0, int(Action.toggle))
    assert token_of(world, Action.idle) == "idle_television"


def test_audio_likelihood_maps_tokens_back_to_actions():
    lik = AUDIO.likelihood
    assert lik.shape == (len(AUDIO), 10)
    assert lik[FOOTSTEP].tolist() == [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    assert lik[AUDIO.index["pickup_clothes"]].tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert lik[SILENCE, :3].sum() == 0 and lik[SILENCE, 3:].all()
    assert len(set(AUDIO.tokens)) == len(AUDIO)


def test_intent_names_the_subgoal_never_the_mission():
    mission = MISSIONS["get_night_snack"]
    assert intent(mission.subgoals[0]) == "I am going to toggle on the light in the Kitchen."
    assert (
        intent(mission.subgoals[2])
        == "I am going to pick up the sandwich from the electric refrigerator in the Kitchen."
    )
    assert intent(mission.subgoals[5]) == "I am going to put the sandwich on the table in the Bedroom."
    assert (
        intent(MISSIONS["change_outfit"].subgoals[4]) == "I am going to put the clothes in the laundry in the Bathroom."
    )
    for m in MISSIONS.values():
        for sg in m.subgoals:
            assert m.title not in intent(sg)


def test_testimony_reports_state_changes():
    world = generate_world(SNACK_HOUSE, np.random.default_rng(0))
    assert (
        language.testimony(apply_action(world.house, world.state, 0, int(Action.open)), world.house)
        == "The electric refrigerator in the Kitchen was opened."
    )
    assert (
        language.testimony(apply_action(world.house, world.state, 0, int(Action.pickup)), world.house)
        == "The sandwich in the electric refrigerator in the Kitchen was picked up."
    )
    assert (
        language.testimony(apply_action(world.house, world.state, 0, int(Action.left)), world.house)
        == "Nothing has changed."
    )


def test_scene_graph_relations():
    world = generate_world(SNACK_HOUSE, np.random.default_rng(0))
    g = scene_graph(world.house, world.state)
    relations = {(u, v): d["relation"] for u, v, d in g.edges(data=True)}
    assert relations[("sandwich_1", "electric_refrigerator_1")] == "inside"
    assert relations[("sandwich_1", "Kitchen_1")] == "inRoom"
    assert relations[("table_1", "Bedroom_1")] == "inRoom"
    assert relations[("A", "Kitchen_1")] == "inRoom"
    assert g.nodes["electric_refrigerator_1"]["states"]["openable"] is False
    apply_action(world.house, world.state, 0, int(Action.open))
    apply_action(world.house, world.state, 0, int(Action.pickup))
    g = scene_graph(world.house, world.state)
    assert g.edges["A", "sandwich_1"]["relation"] == "holding"
    assert not g.has_edge("sandwich_1", "electric_refrigerator_1")
    assert g.nodes["electric_refrigerator_1"]["states"]["openable"] is True
