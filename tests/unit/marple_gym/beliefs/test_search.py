"""Searching by belief: the agent checks the places its belief holds possible, cheapest first, and finds its
object wherever it can be reached."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from search_houses import piece, two_rooms

from marple_gym.beliefs.belief import ObjectBelief
from marple_gym.beliefs.distances import UNREACHABLE, house_distances, pose
from marple_gym.beliefs.episodes import EpisodeError, search_episode
from marple_gym.beliefs.locations import bits_of, locations_of
from marple_gym.beliefs.search import SearchPolicy, SearchSettings
from marple_gym.generation import generate_world
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS


@pytest.mark.parametrize("door_open", [True, False])
def test_pose_costs_agree_with_a_shortest_path_search_over_poses(door_open):
    config = two_rooms({})
    config.doors[0].open = door_open
    world = generate_world(config, np.random.default_rng(0))
    house, state = world.house, world.state
    distances = house_distances(house)
    ground = distances.ground(house, state, 0)
    ys, xs = house.fur_cells[piece("fridge")]
    targets = tuple((ys * house.width + xs).tolist())
    table = distances.costs(ground, targets)
    w, steps = house.width, (1, house.width, -1, -house.width)
    graph = nx.DiGraph()
    for c, ok in enumerate(ground.passable):
        if not ok:
            continue
        for d in range(4):
            graph.add_edge((c, d), (c, (d + 1) % 4))
            graph.add_edge((c, d), (c, (d + 3) % 4))
            if ground.passable[c + steps[d]]:
                graph.add_edge((c, d), (c + steps[d], d), weight=2 if c + steps[d] in ground.closed_doors else 1)
            if c + steps[d] in targets:
                graph.add_edge((c, d), "goal", weight=0)
    nx.set_edge_attributes(graph, {e: graph.edges[e].get("weight", 1) for e in graph.edges}, "weight")
    assert bool(ground.closed_doors) != door_open
    expected = nx.single_source_dijkstra_path_length(graph.reverse(), "goal")
    expected.pop("goal")
    for (c, d), cost in expected.items():
        assert table[pose(w, c % w, c // w, d)] == cost
    unreached = [p for p in range(len(table)) if table[p] < UNREACHABLE and (p >> 2, p & 3) not in expected]
    assert unreached == []


def test_the_agent_checks_the_nearest_place_first_and_opens_it():
    world = generate_world(two_rooms({"fridge": "apple"}, agent=(5, 4, 3)), np.random.default_rng(0))
    policy = SearchPolicy(world.house, SearchSettings(lapse=0.0))
    code = ASSETS.object_code["apple"]
    belief = ObjectBelief.start(bits_of([piece("fridge"), piece("kitchen cabinet")]))
    moment = policy.moment(world.state, 0)
    p = policy.probabilities(moment, code, [belief])[0]
    # At (5, 4) facing north, the kitchen cabinet (6..7, 1..3) is one step and a turn away; the fridge is far.
    assert p[int(Action.forward)] == 1.0
    only_fridge = ObjectBelief.start(bits_of([piece("fridge")]))
    q = policy.probabilities(moment, code, [only_fridge])[0]
    assert q[int(Action.left)] + q[int(Action.forward)] == pytest.approx(1.0) and q[int(Action.right)] == 0


def test_a_lapse_spreads_its_share_over_turns_and_steps_and_every_distribution_sums_to_one():
    world = generate_world(two_rooms({"fridge": "apple"}), np.random.default_rng(0))
    policy = SearchPolicy(world.house, SearchSettings(lapse=0.3))
    code = ASSETS.object_code["apple"]
    beliefs = [ObjectBelief.start(bits_of([piece("fridge")])), ObjectBelief.start(0)]
    p = policy.probabilities(policy.moment(world.state, 0), code, beliefs)
    assert np.allclose(p.sum(axis=1), 1.0)
    assert min(p[0][int(a)] for a in (Action.left, Action.right, Action.forward)) == pytest.approx(0.1)
    assert p[1][int(Action.idle)] == 1.0  # nothing left to check: it waits


def test_holding_the_object_the_agent_is_done():
    episode = search_episode(np.random.default_rng(1), two_rooms({"fridge": "apple"}), goal="apple")
    trace = episode.trace()
    assert episode.found == episode.length and int(episode.actions[-1, 0]) == int(Action.pickup)
    last = trace.moment(episode.length)
    p = trace.policy.probabilities(last, episode.goal_code, [ObjectBelief.start(0)])[0]
    assert p[int(Action.idle)] == 1.0


@settings(max_examples=15)
@given(seed=st.integers(0, 100_000), perception=st.sampled_from(["room", "view"]))
def test_a_searching_agent_finds_its_object_in_every_house_where_it_is_reachable(seed, perception):
    rng = np.random.default_rng(seed)
    episode = search_episode(rng, settings=SearchSettings(perception=perception), max_steps=400)
    trace = episode.trace()
    house, state = trace.house, trace.states[0]
    obj = [o for o, c in enumerate(house.obj_type_list) if c == episode.goal_code][0]
    x, y = state.obj_pos[obj].tolist()
    distances = house_distances(house)
    table = distances.costs(distances.ground(house, state, 0), (y * house.width + x,))
    ax, ay = state.agent_pos[0].tolist()
    reachable = table[pose(house.width, ax, ay, int(state.agent_dir[0]))] < UNREACHABLE
    assert (episode.found >= 0) == reachable
    if reachable:
        assert any(
            house.obj_type_list[o] == episode.goal_code for o in trace.states[episode.found].carrying[0] if o >= 0
        )


def test_a_prior_that_rules_out_the_right_place_is_given_up_when_everything_else_is_empty():
    episode = search_episode(
        np.random.default_rng(0), two_rooms({"fridge": "apple"}), goal="apple", prior=[piece("kitchen cabinet")]
    )
    assert episode.found >= 0  # checked the cabinet, found nothing, started again, opened the fridge
    opened = [
        int(o.fur) for o in (s[0] for s in episode.trace().outcomes) if o.action == int(Action.open) and o.success
    ]
    assert opened == [piece("kitchen cabinet"), piece("fridge")]


def test_an_episode_refuses_a_goal_the_house_cannot_be_searched_for():
    with pytest.raises(EpisodeError, match="no single 'apple'"):
        search_episode(np.random.default_rng(0), two_rooms({"fridge": "plate"}), goal="apple")
    with pytest.raises(EpisodeError, match="could hold a apple"):
        search_episode(np.random.default_rng(0), two_rooms({"fridge": "apple"}), goal="apple", prior=[piece("sofa")])
    assert locations_of(generate_world(two_rooms({}), np.random.default_rng(0)).house).candidates(
        ASSETS.object_code["apple"]
    ) == bits_of([piece("fridge"), piece("kitchen cabinet"), piece("table")])
