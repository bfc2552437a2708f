"""What counts as reaching the query state: the query state itself, or the original code's action match."""

from __future__ import annotations

import numpy as np
import pytest
from worlds import make_world

from marple_eval.results import NotRescorable, RunResults, TrialResult
from marple_eval.settings import PROTOCOLS, ProtocolSettings
from marple_eval.success import ActionMatchSuccess, QueryStateSuccess, as_success, success_rule
from marple_gym.missions import Subgoal, get_mission
from marple_gym.world import Action
from marple_gym.world.batch import apply_actions
from marple_gym.world.batched_state import BatchedState
from marple_gym.world.rules import apply_action

LIGHT_ON = Subgoal(Action.toggle, "light", "Kitchen", state=("toggleable", True))
PILLOW = get_mission("watch_movie_cozily").query_subgoal  # pick up the pillow from the bed in the Bedroom
LAUNDRY_ON = get_mission("do_laundry").query_subgoal


def light(on: bool, room: str = "Kitchen"):
    return make_world([{"type": "light", "pos": [3, 3], "state": {"toggleable": on}}], room=room)


def pillow_on(furniture: str):
    return make_world(
        [{"type": furniture, "pos": [3, 3], "objects": [{"type": "pillow", "pos": [3, 3]}]}], room="Bedroom"
    )


def outcomes(world, actions):
    """What each action in turn did (the agent faces the furniture at (3, 3))."""
    return [apply_action(world.house, world.state, 0, int(a)) for a in actions]


def counted(query, world, actions) -> list[tuple[bool, bool]]:
    """(query state, action match) for each action in turn."""
    found = outcomes(world, actions)
    return [
        (QueryStateSuccess(query).matches(o, world.house), ActionMatchSuccess(query).matches(o, world.house))
        for o in found
    ]


def test_hand_computed_successes_of_both_rules():
    T, P, L = Action.toggle, Action.pickup, Action.left
    # A light that is on: switching it off is a toggle of a light (the action match), not the query state.
    assert counted(LIGHT_ON, light(True), [T, T]) == [(False, True), (True, True)]
    # A light in a bedroom: the action match does not look at the room.
    assert counted(LIGHT_ON, light(False, "Bedroom"), [T]) == [(False, True)]
    # A pillow picked up from a sofa: the pillow matches, the bed does not; from a bed, both.
    assert counted(PILLOW, pillow_on("sofa"), [P]) == [(False, True)]
    assert counted(PILLOW, pillow_on("bed"), [P]) == [(True, True)]
    # Turning away, or a toggle facing nothing: neither.
    assert counted(LIGHT_ON, light(False), [L, T]) == [(False, False), (False, False)]


def test_batched_rules_count_what_the_scalar_rules_count():
    """The rollouts' rule over a batch gives the same verdicts as the scalar one, row by row."""
    worlds = [light(True), light(False), light(False, "Bedroom"), pillow_on("sofa"), pillow_on("bed")]
    for query in (LIGHT_ON, PILLOW):
        for world in worlds:
            actions = np.array([Action.toggle, Action.pickup, Action.left], dtype=np.int64)
            batch = BatchedState.repeat(world.state, len(actions))
            out = apply_actions(world.house, batch, 0, actions)
            for rule in (QueryStateSuccess(query), ActionMatchSuccess(query)):
                scalar = [rule.matches(out.row(i), world.house) for i in range(len(actions))]
                assert rule.reached(world.house, out).tolist() == scalar


def test_which_subgoals_can_count():
    """A mission that only switches the laundry off, or opens it, never reaches its query state; the action
    match counts the switching off (a toggle of the laundry) but not the opening."""
    toggle_off = next(sg for sg in get_mission("do_laundry").subgoals if sg.action == Action.toggle and not sg.state[1])
    opening = next(sg for sg in get_mission("change_outfit").subgoals if sg.fur == "laundry")
    assert QueryStateSuccess(LAUNDRY_ON).produced_by(LAUNDRY_ON) and ActionMatchSuccess(LAUNDRY_ON).produced_by(
        LAUNDRY_ON
    )
    assert not QueryStateSuccess(LAUNDRY_ON).produced_by(toggle_off)
    assert ActionMatchSuccess(LAUNDRY_ON).produced_by(toggle_off)
    assert not ActionMatchSuccess(LAUNDRY_ON).produced_by(opening)
    assert as_success(LAUNDRY_ON) == QueryStateSuccess(LAUNDRY_ON) == success_rule("query-state", LAUNDRY_ON)
    with pytest.raises(ValueError, match="success must be one of"):
        success_rule("any-toggle", LAUNDRY_ON)


def test_the_original_bundle_counts_by_action_match_and_no_rescoring_changes_the_rule():
    assert PROTOCOLS["original"]["success"] == "action-match"
    assert PROTOCOLS["paper"]["success"] == PROTOCOLS["ours"]["success"] == "query-state"
    original = ProtocolSettings.named("original")
    assert original.rules.success == "action-match" and original.name == "original"
    assert ProtocolSettings.named("original", success="query-state").name == "original-success-query-state"
    # A results file from before the setting was counted by the query state, and reads so.
    assert (
        ProtocolSettings.from_record({"margin": 5, "combine": "ratio", "cutoff": 40, "last_point": "T-1"}).success
        == "query-state"
    )
    trial = TrialResult(
        "t", "s", 10, list(range(11)), [0.5] * 11, [{"swap": False, "p_a": [0.5] * 11, "p_b": [0.5] * 11}]
    )
    run = RunResults("m", {"protocol": original.record(), "combines_query_probabilities": False}, [trial])
    with pytest.raises(NotRescorable, match="success action-match"):
        run.rescored(success="query-state")
