"""The exact observer (the answer key) on hand-built trials: each family's expected test is its least surprising,
the surprising test its most; a way through an obstacle is impossible to it; it reads only what an onlooker
sees."""

from __future__ import annotations

import numpy as np
import pytest
from expectation_trials import agent_of, chosen, going_for, hand_stage, hand_trial

from marple_eval.expectations.observer import FLOOR, ExpectationObserver
from marple_gym.expectations import stages
from marple_gym.expectations.scenarios import all_types, make_trial, trial_keys
from marple_gym.expectations.stages import around
from marple_gym.expectations.trial import Episode, TrialView
from marple_gym.expectations.unobserved_constraints import lift
from marple_gym.generation.stage import Stage, StageRoom

OBSERVER = ExpectationObserver()


def rate(trial, order=("expected", "surprising")):
    return dict(zip(order, OBSERVER.rate(trial.view(order))))


def preference_trial(agent, fam, test, kind="1.1"):
    """Goes for its preferred object in ``fam``; at test for it again (expected) or for the other (surprising)."""
    other = min(agent.rewards, key=agent.rewards.get)
    return hand_trial(
        "goal_preferences", kind, agent, [chosen(fam, agent)], chosen(test, agent), going_for(test, agent, other)
    )


@pytest.mark.parametrize("swap", [False, True])
def test_goal_preferences_going_for_the_other_object_is_the_surprise(swap):
    left, right = (4, 3), (8, 3)
    fam = hand_stage([("apple", left), ("ball", right)])
    test = hand_stage([("apple", right), ("ball", left)] if swap else [("apple", left), ("ball", right)])
    for rewards in ({"apple": 30.0, "ball": 12.0}, {"apple": 12.0, "ball": 30.0}):  # either object preferred
        ratings = rate(preference_trial(agent_of(rewards), fam, test))
        assert ratings["expected"] < ratings["surprising"]


def test_goal_preferences_a_dearer_way_to_the_preferred_object_is_still_expected():
    agent = agent_of({"apple": 40.0, "ball": 12.0})
    fam = hand_stage([("apple", (4, 3)), ("ball", (8, 3))])
    test = hand_stage([("apple", (8, 3)), ("ball", (4, 3))], chairs=around((8, 3), "cup") + around((4, 3), "cup"))
    ratings = rate(preference_trial(agent, fam, test, "1.3"))
    assert ratings["expected"] < ratings["surprising"]


def test_ratings_follow_the_order_the_tests_are_shown_in():
    fam = hand_stage([("apple", (4, 3)), ("ball", (8, 3))])
    trial = preference_trial(agent_of({"apple": 30.0, "ball": 12.0}), fam, fam)
    forward = rate(trial)
    assert forward == pytest.approx(rate(trial, ("surprising", "expected")))
    assert np.isfinite(list(forward.values())).all()


# ---- action efficiency -----------------------------------------------------------------------------------------------
BARRIER = [(x, 5) for x in range(4, 9)]  # five chairs across the way from (6, 8) to the apple at (6, 2)


def detour_trial(test_stage, kind="2.1"):
    """Round the barrier in familiarisation; at test the new cheapest way (expected) or the old detour."""
    agent = agent_of({"apple": 40.0})
    fam = hand_stage([("apple", (6, 2))], chairs=BARRIER)
    familiar = chosen(fam, agent)
    old_way = Episode(test_stage, familiar.actions)
    return hand_trial("action_efficiency", kind, agent, [familiar], chosen(test_stage, agent), old_way)


@pytest.mark.parametrize(
    ("kind", "chairs"),
    [("2.1", []), ("2.2", [(1, y) for y in range(2, 7)]), ("2.3", BARRIER[1:-1])],
)
def test_action_efficiency_repeating_the_old_detour_is_the_surprise(kind, chairs):
    ratings = rate(detour_trial(hand_stage([("apple", (6, 2))], chairs=chairs), kind))
    assert ratings["expected"] < 1.0 < ratings["surprising"]


def test_action_efficiency_a_new_door_on_the_way_makes_the_old_door_the_surprise():
    agent = agent_of({"apple": 40.0})
    rooms = (StageRoom("Study", (1, 1), (11, 3)), StageRoom("Kitchen", (1, 5), (11, 4)))
    fam = Stage(13, 10, rooms, doors=[(1, 4)], objects=[("apple", (6, 2))], agent=(6, 8, 3))
    test = Stage(13, 10, rooms, doors=[(1, 4), (6, 4)], objects=[("apple", (6, 2))], agent=(6, 8, 3))
    familiar = chosen(fam, agent)
    old_way = Episode(test, familiar.actions)
    ratings = rate(hand_trial("action_efficiency", "2.4", agent, [familiar], chosen(test, agent), old_way))
    assert ratings["expected"] < 1.0 < ratings["surprising"]


def test_a_way_through_the_chairs_or_a_wall_has_probability_nought():
    agent = agent_of({"apple": 40.0})
    fam = hand_stage([("apple", (6, 2))], chairs=BARRIER)
    familiar = chosen(fam, agent)
    straight = chosen(hand_stage([("apple", (6, 2))]), agent)
    through = Episode(fam, straight.actions, through=((6, 5),))
    ratings = rate(hand_trial("action_efficiency", "2.5", agent, [familiar], familiar, through))
    assert ratings["expected"] < 1.0 and ratings["surprising"] == pytest.approx(-np.log(FLOOR))
    rooms = (StageRoom("Study", (1, 1), (11, 3)), StageRoom("Kitchen", (1, 5), (11, 4)))
    side = Stage(13, 10, rooms, doors=[(1, 4)], objects=[("apple", (6, 2))], agent=(6, 8, 3))
    middle = Stage(13, 10, rooms, doors=[(1, 4), (6, 4)], objects=[("apple", (6, 2))], agent=(6, 8, 3))
    walked_in, round_by_the_side = chosen(middle, agent), chosen(side, agent)
    wall = stages.crossing(walked_in, side)
    assert wall.through == ((6, 4),)
    ratings = rate(hand_trial("action_efficiency", "2.4", agent, [round_by_the_side], round_by_the_side, wall))
    assert ratings["surprising"] == pytest.approx(-np.log(FLOOR))
    assert OBSERVER.role == "answer_key" and OBSERVER.name == "observer"


# ---- unobserved constraints ------------------------------------------------------------------------------------------
SCREEN = [(x, y) for x in range(3, 10) for y in range(4, 7)]  # hides the barrier and a cell round it


def reveal_trial(fam_chairs, surprising_chairs, kind="3.1"):
    agent = agent_of({"apple": 40.0})
    fam = hand_stage([("apple", (6, 2))], chairs=fam_chairs, occluder=SCREEN)
    familiar = chosen(fam, agent)
    other = hand_stage([("apple", (6, 2))], chairs=surprising_chairs, occluder=SCREEN)
    expected, surprising = lift(fam, familiar), lift(other, familiar)  # the agent at its goal, the screen lifted
    return hand_trial("unobserved_constraints", kind, agent, [familiar], expected, surprising)


DOORWAY = [c for c in BARRIER if c != (6, 5)]  # the line with a doorway on the straight way


@pytest.mark.parametrize(("kind", "shown"), [("3.1", []), ("3.2", BARRIER[1:-1]), ("3.2", DOORWAY)])
def test_unobserved_constraints_a_reveal_that_makes_the_bend_wasteful_is_the_surprise(kind, shown):
    ratings = rate(reveal_trial(BARRIER, shown, kind))
    assert ratings["expected"] < ratings["surprising"] < -np.log(FLOOR)  # a doorway is in the observer's prior


def test_an_occluded_cell_never_appears_in_the_observers_evidence():
    trial = reveal_trial(BARRIER, [])
    hidden = trial.familiarisation[0].stage.visibility().hidden
    evidence = trial.view().familiarisation[0]
    assert not evidence.vision[:, hidden].any()  # every step, every channel
    for t in range(evidence.steps + 1):
        cells = {a.get("pos") for _, a in evidence.scene_graph(t).nodes(data=True) if a.get("kind") != "room"}
        assert not {c for c in cells if c is not None and hidden[c[1], c[0]]}
    assert None in evidence.poses and None in evidence.actions  # the agent walked behind it, unseen
    # What stands behind the occluder in familiarisation changes nothing the observer sees or says: the same run
    # past a line one chair shorter (on the side the agent did not take) gives the same evidence and ratings.
    familiar = trial.familiarisation[0]
    went_right = max(x for x, _ in stages.route_of(familiar)) > 8
    fewer = [c for c in BARRIER if c != (BARRIER[0] if went_right else BARRIER[-1])]
    other = Episode(familiar.stage.without_obstacles().with_obstacles(fewer), familiar.actions)
    assert np.array_equal(other.evidence().vision, evidence.vision)
    tests = (trial.surprising.evidence(),)
    assert OBSERVER.rate(TrialView((other.evidence(),), tests)) == OBSERVER.rate(TrialView((evidence,), tests))


# ---- cost-reward trade-offs ------------------------------------------------------------------------------------------
def test_cost_reward_going_for_the_object_worth_less_is_the_surprise():
    # Scale 1.5: the straight way costs 6, round a line 14.25, into a deep cup 21 (measured by the planner).
    agent = agent_of({"apple": 18.0, "ball": 10.0}, scale=1.5)
    cell = (6, 3)
    fams = [
        hand_stage([(kind, cell)], chairs=around(cell, level))
        for kind, level in (("apple", "front"), ("apple", "deep"), ("ball", "none"), ("ball", "front"))
    ]
    test = hand_stage([("apple", (4, 3)), ("ball", (8, 3))], chairs=around((8, 3), "front"))
    familiarisation = [chosen(s, agent) for s in fams]
    assert [len(e.actions) == 1 for e in familiarisation] == [False, True, False, True]  # it stays twice
    trial = hand_trial(
        "cost_reward_trade_offs", "4.2", agent, familiarisation, chosen(test, agent), going_for(test, agent, "ball")
    )
    ratings = rate(trial)
    assert ratings["expected"] < ratings["surprising"]


@pytest.mark.parametrize("kind", all_types())
def test_the_observer_orders_every_generated_pair_of_every_type(kind):
    for key in trial_keys("test", 3, [kind]):
        ratings = rate(make_trial(key, seed=5))
        assert ratings["expected"] < ratings["surprising"], key.id
