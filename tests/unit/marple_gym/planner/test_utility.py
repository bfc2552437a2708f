"""The utility planner: costs, utilities and choices match the ones worked out by hand on built houses; it acts
only through the episode; scripted routes walk the cells they are given."""

from __future__ import annotations

import numpy as np
import pytest
from worlds import make_world

from marple_gym.planner.scripted import route_actions
from marple_gym.planner.utility import (
    STAY,
    ActionCosts,
    GoalPlan,
    Preferences,
    UtilityPlanner,
    choice_probabilities,
    walkable_cells,
)
from marple_gym.world import Action

L, R, F, P, IDLE = (int(a) for a in (Action.left, Action.right, Action.forward, Action.pickup, Action.idle))
EAST, SOUTH, WEST, NORTH = range(4)
COSTS = ActionCosts(forward=1.0, turn=0.5, pickup=0.25)


def kitchen(objects, agent=(2, 3, EAST), chairs=()):
    """A 9 x 7 kitchen (floor x 1..7, y 1..5) with objects on the floor and chairs as obstacles."""
    return make_world(
        furniture=[{"type": "chair", "pos": list(c)} for c in chairs],
        floor_objects=[{"type": t, "pos": list(c)} for t, c in objects],
        agent=agent,
    )


def plan_for(world, cell, costs=COSTS):
    walkable = walkable_cells(world.state.grid, tuple(world.state.agent_pos[0].tolist()))
    return GoalPlan(walkable, [cell], costs)


def test_the_cheapest_way_costs_what_its_steps_turns_and_pickup_cost():
    world = kitchen([("apple", (6, 3))], agent=(2, 3, EAST))
    plan = plan_for(world, (6, 3))
    assert plan.cost(2, 3, EAST) == 3 * 1.0 + 0.25  # three steps east, then pick up
    assert plan.cost(2, 3, NORTH) == 0.5 + 3.0 + 0.25  # a quarter turn first
    assert plan.cost(2, 3, WEST) == 2 * 0.5 + 3.0 + 0.25  # a U-turn is two quarter turns
    assert plan.cost(5, 3, EAST) == 0.25 and plan.cost(6, 2, SOUTH) == 0.25  # facing it: pick it up
    assert plan.values.shape == (7, 9, 4) and np.isinf(plan.values[0, 0]).all()  # walls: no way from there


def test_a_barrier_costs_the_detour_round_it():
    # Chairs at x = 4 on rows 1..4: the way east goes down to row 5, along it, and back up.
    world = kitchen([("apple", (6, 3))], agent=(2, 3, EAST), chairs=[(4, y) for y in range(1, 5)])
    plan = plan_for(world, (6, 3))
    # right (south), 2 forward to (2,5), left (east), 4 forward to (6,5), left (north), 1 forward to (6,4), pickup.
    assert plan.cost(2, 3, EAST) == pytest.approx(0.5 + 2 + 0.5 + 4 + 0.5 + 1 + 0.25)
    assert set(plan.efficient(2, 3, EAST)) == {R, F}  # turn south now, or one step east first


def test_ties_are_every_action_that_starts_a_cheapest_way_and_the_agent_draws_among_them():
    world = kitchen([("apple", (2, 5))], agent=(2, 3, NORTH))  # the apple is behind the agent
    plan = plan_for(world, (2, 5))
    assert plan.cost(2, 3, NORTH) == 2 * 0.5 + 1.0 + 0.25  # a U-turn, one step, pickup
    assert set(plan.efficient(2, 3, NORTH)) == {L, R}
    first = {
        UtilityPlanner(world.clone(), Preferences({"apple": 9.0}, COSTS), rng=np.random.default_rng(s)).next_action()
        for s in range(20)
    }
    assert first == {L, R}


def test_utilities_are_rewards_minus_costs_and_choices_are_boltzmann():
    world = kitchen([("apple", (6, 3)), ("ball", (2, 1))], agent=(2, 3, EAST))
    agent = Preferences({"apple": 10.0, "ball": 4.0}, COSTS, beta=0.7)
    planner = UtilityPlanner(world, agent, rng=np.random.default_rng(0))
    apple, ball = (planner.options.index(i) for i in range(2))
    by_hand = {apple: 10.0 - 3.25, ball: 4.0 - (0.5 + 1.0 + 0.25)}  # ball: turn north, one step, pickup
    assert planner.utilities() == pytest.approx([by_hand[0], by_hand[1]])
    u = np.array([by_hand[0], by_hand[1], 0.0])
    expected = np.exp(0.7 * u) / np.exp(0.7 * u).sum()
    assert planner.probabilities() == pytest.approx(expected)
    assert choice_probabilities([by_hand[0], by_hand[1]], 0.7) == pytest.approx(expected)


def test_sampled_choices_follow_the_boltzmann_probabilities():
    world = kitchen([("apple", (6, 3)), ("ball", (2, 1))], agent=(2, 3, EAST))
    agent = Preferences({"apple": 5.0, "ball": 3.0}, COSTS, beta=0.8)
    rng = np.random.default_rng(3)
    p = UtilityPlanner(world, agent, rng=rng).probabilities()
    n = 3000
    goals = [UtilityPlanner(world.clone(), agent, rng=rng).goal for _ in range(n)]
    counts = np.array([goals.count(0), goals.count(1), goals.count(STAY)])
    chi2 = (((counts - n * p) ** 2) / (n * p)).sum()
    assert chi2 < 13.8  # 2 degrees of freedom, p = 0.001


def test_the_best_choice_is_the_highest_utility_and_staying_when_nothing_is_worth_it():
    world = kitchen([("apple", (6, 3)), ("ball", (2, 1))], agent=(2, 3, EAST))
    assert (
        UtilityPlanner(
            world, Preferences({"apple": 10, "ball": 4}, COSTS), rng=np.random.default_rng(0), choice="best"
        ).goal
        == 0
    )
    assert (
        UtilityPlanner(
            world, Preferences({"apple": 1, "ball": 9}, COSTS), rng=np.random.default_rng(0), choice="best"
        ).goal
        == 1
    )
    assert (
        UtilityPlanner(
            world, Preferences({"apple": 1, "ball": 1}, COSTS), rng=np.random.default_rng(0), choice="best"
        ).goal
        == STAY
    )


def test_the_agent_walks_a_cheapest_way_through_the_episode_and_picks_its_goal_up():
    world = kitchen([("apple", (6, 3))], agent=(2, 3, EAST), chairs=[(4, y) for y in range(1, 5)])
    agent = Preferences({"apple": 30.0}, COSTS)
    planner = UtilityPlanner(world, agent, rng=np.random.default_rng(1), choice="best")
    plan = planner.plans[0]
    start = planner.pose
    outcomes = planner.run()
    assert planner.succeeded and all(o.success for o in outcomes)
    paid = sum({L: 0.5, R: 0.5, F: 1.0, P: 0.25}[o.action] for o in outcomes)
    assert paid == pytest.approx(plan.cost(*start))
    assert outcomes[-1].action == P and world.state.obj_pos[0].tolist() == [-1, -1]  # the world changed: it holds it
    assert planner.episode.step_count == len(outcomes)


def test_staying_is_one_idle():
    world = kitchen([("apple", (6, 3))])
    planner = UtilityPlanner(world, Preferences({"apple": 0.0}, COSTS), rng=np.random.default_rng(0), choice="best")
    assert planner.goal == STAY and [o.action for o in planner.run()] == [IDLE] and planner.succeeded


def test_a_scripted_goal_overrides_the_choice():
    world = kitchen([("apple", (6, 3)), ("ball", (2, 1))], agent=(2, 3, EAST))
    planner = UtilityPlanner(world, Preferences({"apple": 50, "ball": 0}, COSTS), rng=np.random.default_rng(0), goal=1)
    planner.run()
    assert planner.succeeded and world.state.obj_pos[1].tolist() == [-1, -1]
    with pytest.raises(ValueError, match="not an object"):
        UtilityPlanner(world, Preferences({}, COSTS), rng=np.random.default_rng(0), goal=7)


def test_a_route_walks_its_cells_with_the_fewest_turns_then_acts():
    assert route_actions((2, 3, EAST), [(2, 3), (3, 3), (3, 4), (4, 4)], target=(5, 4)) == [F, R, F, L, F, P]
    assert route_actions((2, 3, EAST), [(1, 3)]) == [L, L, F]  # a U-turn turns left
    with pytest.raises(ValueError, match="not neighbours"):
        route_actions((2, 3, EAST), [(4, 3)])


def test_bad_preferences_and_costs_are_refused():
    with pytest.raises(ValueError, match="unknown object types"):
        Preferences({"unicorn": 1.0})
    with pytest.raises(ValueError, match="finite and >= 0"):
        ActionCosts(turn=-1.0)
    with pytest.raises(ValueError, match="forward > 0"):
        ActionCosts(forward=0.0)
    with pytest.raises(TypeError, match="Generator"):
        UtilityPlanner(kitchen([("apple", (6, 3))]), Preferences({}), rng=0)
