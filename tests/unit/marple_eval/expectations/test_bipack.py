"""The BIPaCK analogue: from a hand-built familiarisation it recovers the rewards and costs the agent's choices
imply, and rates the test that strays from the plan those imply as the more surprising."""

from __future__ import annotations

import numpy as np
from expectation_trials import agent_of, chosen, going_for, hand_stage, hand_trial

from marple_eval.expectations.bipack import ExpectationBipack
from marple_gym.expectations import stages
from marple_gym.expectations.stages import around
from marple_gym.expectations.trial import Episode

RATER = ExpectationBipack()
APPLE, BALL = (3, 3), (9, 3)


def view_of(familiarisation, expected, surprising, scenario="goal_preferences", kind="1.1"):
    agent = agent_of({"apple": 1.0, "ball": 1.0})  # the truth is never read
    return hand_trial(scenario, kind, agent, familiarisation, expected, surprising).view()


def test_choosing_one_object_over_another_as_dear_implies_a_higher_reward_for_it():
    both = hand_stage([("apple", APPLE), ("ball", BALL)])
    agent = agent_of({"apple": 12.0, "ball": 40.0})
    belief = RATER.posterior(view_of([chosen(both, agent)], chosen(both, agent), going_for(both, agent, "apple")))
    apple, ball = (belief.types.index(t) for t in ("apple", "ball"))
    prefers_ball = belief.weights @ (belief.rewards[:, ball] > belief.rewards[:, apple])
    assert prefers_ball > 0.75  # the prior gives it 0.48
    mean, _ = belief.mean()
    assert mean["ball"] > mean["apple"] + 10


def test_going_round_a_line_but_not_into_a_deep_cup_bounds_the_reward_by_the_two_costs():
    cell = (6, 3)
    line, deep = (hand_stage([("apple", cell)], chairs=around(cell, level)) for level in ("front", "deep"))
    agent = agent_of({"apple": 12.0}, scale=1.0)
    went, stayed = chosen(line, agent), chosen(deep, agent)
    assert len(stayed.actions) == 1  # the deep cup is not worth it to this agent
    belief = RATER.posterior(view_of([went, stayed], went, stayed, "cost_reward_trade_offs", "4.1"))
    reward, scale = belief.rewards[:, 0], belief.scales
    low, high = (stages.goal_cost(stage, cell) for stage in (line, deep))
    between = (reward > scale * low) & (reward < scale * high)
    assert belief.weights @ between > 0.9


def test_the_test_that_strays_from_the_inferred_plan_is_the_more_surprising():
    both = hand_stage([("apple", APPLE), ("ball", BALL)])
    agent = agent_of({"apple": 40.0, "ball": 12.0})
    expected, surprising = chosen(both, agent), going_for(both, agent, "ball")
    view = view_of([chosen(both, agent)], expected, surprising)
    rated_expected, rated_surprising = RATER.rate(view)
    assert rated_expected < rated_surprising


def test_a_way_through_the_chairs_strays_from_every_plan():
    chairs = [(x, 5) for x in range(3, 10)]
    stage = hand_stage([("apple", (6, 2))], chairs=chairs)
    agent = agent_of({"apple": 40.0})
    round_them = chosen(stage, agent)
    straight = chosen(hand_stage([("apple", (6, 2))]), agent)
    through = Episode(stage, straight.actions, through=((6, 5),))
    ratings = RATER.rate(view_of([round_them], round_them, through, "action_efficiency", "2.5"))
    assert ratings[0] < ratings[1] and np.isfinite(ratings).all()


def test_a_lift_is_judged_by_the_familiarisations_run_on_what_it_shows():
    """Unobserved constraints: both tests are the same pickup; only the run the familiarisation showed, laid on
    what each lift shows, tells the line that explains the bend from the nothing that makes it a waste."""
    from marple_gym.expectations.unobserved_constraints import lift, occluded

    line = [(x, 5) for x in range(4, 9)]
    lined = occluded(hand_stage([("apple", (6, 2))], chairs=line))
    agent = agent_of({"apple": 40.0})
    bend = chosen(lined, agent)
    expected, surprising = lift(lined, bend), lift(lined.without_obstacles(), bend)
    assert expected.actions == surprising.actions and expected.stage.agent == surprising.stage.agent
    rated_expected, rated_surprising = RATER.rate(
        view_of([bend], expected, surprising, "unobserved_constraints", "3.1")
    )
    assert rated_expected < rated_surprising
