"""The exact observer on hand-built trials: each family's expected test is its least surprising, the surprising
test its most; it reads only what an onlooker sees."""

from __future__ import annotations

import numpy as np
import pytest
from expectation_trials import agent_of, chosen, going_for, hand_stage, hand_trial

from marple_eval.expectations.observer import ExactObserver
from marple_eval.expectations.stages import around

OBSERVER = ExactObserver()


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
