"""The hierarchical planner: it completes every mission, walks shortest paths, and varies its paths."""

from __future__ import annotations

import math
import zlib
from collections import Counter

import networkx as nx
import numpy as np
import pytest
from worlds import make_world

from marple_gym.generation import generate_world
from marple_gym.missions import MISSIONS, Mission, Subgoal, target_cells
from marple_gym.planner import HierarchicalPlanner, sample_shortest_path
from marple_gym.world import Action
from marple_gym.world.assets import DOOR
from marple_gym.world.house import DIR_VEC
from marple_gym.world.state import CH_AGENT, CH_FUR, CH_OBJ

SEEDS_PER_MISSION = 100


def run(world, planner, limit=2000):
    """Run to completion, returning (subgoal index, outcome, position before, direction before) per step."""
    log = []
    while not planner.done and len(log) < limit:
        index = planner.progress.index
        pos = tuple(world.state.agent_pos[0].tolist())
        direction = int(world.state.agent_dir[0])
        log.append((index, planner.step(), pos, direction))
    return log


def completes_every_mission(mission: str, seeds: int) -> None:
    rng = np.random.default_rng(zlib.crc32(mission.encode()))
    for seed in range(seeds):
        world = generate_world(None, rng, [mission])
        planner = HierarchicalPlanner(world, mission=mission, rng=rng)
        log = run(world, planner)
        assert planner.succeeded, f"seed {seed}: stuck on {planner.current_subgoal}"
        assert planner.missions[0].name == mission and not planner.failed_missions
        assert all(outcome.success for _, outcome, _, _ in log), "the planner never takes a failing action"


@pytest.mark.parametrize("mission", list(MISSIONS))
def test_planner_completes_the_mission_in_every_generated_house(mission):
    completes_every_mission(mission, SEEDS_PER_MISSION)


@pytest.mark.slow
@pytest.mark.parametrize("mission", list(MISSIONS))
def test_planner_completes_the_mission_in_a_thousand_houses(mission):
    completes_every_mission(mission, 1000)


def grid_graph(world) -> nx.Graph:
    """An independent model of where an agent can walk: a networkx graph of free cells."""
    grid = world.state.grid
    h, w = grid.shape[:2]
    free = {
        (x, y)
        for y in range(h)
        for x in range(w)
        if (grid[y, x, CH_FUR] in (0, DOOR)) and grid[y, x, CH_OBJ] == 0 and grid[y, x, CH_AGENT] == 0
    }
    free.add(tuple(world.state.agent_pos[0].tolist()))
    g = nx.Graph()
    g.add_nodes_from(free)
    for x, y in free:
        for dx, dy in DIR_VEC:
            if (x + dx, y + dy) in free:
                g.add_edge((x, y), (x + dx, y + dy))
    return g


def independent_distances(world, subgoal) -> dict[int, int]:
    """Per piece of furniture: BFS (networkx) distance to a cell from which a target of ``subgoal`` on it is in front."""
    g = grid_graph(world)
    lengths = nx.single_source_shortest_path_length(g, tuple(world.state.agent_pos[0].tolist()))
    out: dict[int, int] = {}
    for (x, y), fur in target_cells(world, 0, subgoal).items():
        for dx, dy in DIR_VEC:
            d = lengths.get((x + dx, y + dy))
            if d is not None:
                out[fur] = min(out.get(fur, d), d)
    return out


@pytest.mark.parametrize("mission", list(MISSIONS))
def test_every_action_serves_the_current_subgoal_along_a_shortest_path(mission):
    rng = np.random.default_rng(1)
    for _ in range(15):
        world = generate_world(None, rng, [mission])
        planner = HierarchicalPlanner(world, mission=mission, rng=rng)
        segments: list[list] = []
        while not planner.done:
            if not segments or segments[-1][0] != planner.progress.index:
                sg = planner.progress.current
                segments.append([planner.progress.index, sg, independent_distances(world, sg), []])
            segments[-1][3].append(planner.step())
        for _, sg, distances, outcomes in segments:
            actions = [o.action for o in outcomes]
            # navigation only, then exactly one subgoal action that achieves it
            assert actions[-1] == sg.action and sg.matches(outcomes[-1], world.house)
            body = actions[:-1]
            assert set(body) <= {Action.left, Action.right, Action.forward, Action.open}
            walked = body.count(Action.forward)
            assert walked == distances[outcomes[-1].fur], f"{sg.name}: not a shortest path to its target"
            # turns come in the fewest needed: never three in a row, never left-right
            text = "".join("L" if a == Action.left else "R" if a == Action.right else "." for a in body)
            assert "LLL" not in text and "RRR" not in text and "LR" not in text and "RL" not in text


def test_shortest_paths_are_drawn_uniformly():
    config = {
        "width": 8,
        "height": 8,
        "rooms": [{"type": "Kitchen", "top": [1, 1], "size": [6, 6], "num_furniture": 0}],
        "doors": [],
        "agents": [{"pos": [1, 1], "dir": 0}],
    }
    world = generate_world(config, np.random.default_rng(0))
    width = world.house.width
    passable = world.house.open_floor.ravel().tolist()
    start, goal = 1 * width + 1, 5 * width + 4  # (1, 1) -> (4, 5): C(7, 3) = 35 shortest paths
    rng = np.random.default_rng(0)
    n = 7000
    counts = Counter(tuple(sample_shortest_path(passable, width, start, {goal}, rng)) for _ in range(n))
    assert len(counts) == math.comb(7, 3)
    assert all(len(p) == 8 for p in counts)
    expected = n / len(counts)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    df = len(counts) - 1
    assert chi2 < df + 5 * math.sqrt(2 * df), f"chi-square {chi2:.1f} with {df} dof: paths are not uniform"


def test_planner_is_deterministic_given_a_seed():
    def actions(seed):
        world = generate_world(None, np.random.default_rng(seed), ["do_laundry"])
        planner = HierarchicalPlanner(world, mission="do_laundry", rng=np.random.default_rng(seed))
        return [o.action for _, o, _, _ in run(world, planner)]

    assert actions(4) == actions(4)
    assert actions(4) != actions(5)


def test_planner_varies_its_behaviour_across_seeds_in_one_house():
    world = generate_world(None, np.random.default_rng(0), ["get_snack"])
    start = world.get_state()
    paths = set()
    for seed in range(30):
        world.set_state(start)
        planner = HierarchicalPlanner(world, mission="get_snack", rng=np.random.default_rng(seed))
        paths.add(tuple(p for _, _, p, _ in run(world, planner)))
    assert len(paths) > 5


def test_planner_opens_closed_doors_on_its_way():
    config = {
        "width": 13,
        "height": 7,
        "rooms": [
            {"type": "Bedroom", "top": [1, 1], "size": [5, 5], "num_furniture": 0},
            {
                "type": "Kitchen",
                "top": [7, 1],
                "size": [5, 5],
                "num_furniture": 1,
                "furniture": [{"type": "light", "pos": [10, 3], "state": {"toggleable": False}}],
            },
        ],
        "doors": [{"pos": [6, 3], "open": False}],
        "agents": [{"pos": [2, 3], "dir": 0}],
    }
    world = generate_world(config, np.random.default_rng(0))
    toggle = Mission(
        "t", "toggle the light", (Subgoal(Action.toggle, "light", "Kitchen", state=("toggleable", True)),), 0
    )
    planner = HierarchicalPlanner(world, mission=toggle, rng=np.random.default_rng(0))
    outcomes = [o for _, o, _, _ in run(world, planner)]
    assert planner.succeeded
    assert [o.action for o in outcomes if o.action == Action.open] == [Action.open]
    assert outcomes[-1].action == Action.toggle and outcomes[-1].value == 1


def test_an_infeasible_mission_is_dropped_and_resampled():
    # get_night_snack can switch on the Kitchen light here, but there is no fridge: after the
    # light the mission becomes infeasible, and every resampled attempt fails at once.
    config = {
        "width": 9,
        "height": 7,
        "rooms": [
            {
                "type": "Kitchen",
                "top": [1, 1],
                "size": [7, 5],
                "num_furniture": 1,
                "furniture": [{"type": "light", "pos": [4, 3], "state": {"toggleable": False}}],
            }
        ],
        "doors": [],
        "agents": [{"pos": [2, 3], "dir": 0}],
    }
    world = generate_world(config, np.random.default_rng(0))
    planner = HierarchicalPlanner(world, mission="get_night_snack", rng=np.random.default_rng(0))
    assert not planner.done
    run(world, planner)
    assert planner.done and not planner.succeeded
    assert planner.failed_missions and set(planner.failed_missions) == {"get_night_snack"}


def test_planner_rejects_bad_preferences():
    world = generate_world(None, np.random.default_rng(0), ["do_laundry"])
    with pytest.raises(ValueError, match="mission or mission preferences"):
        HierarchicalPlanner(world, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=">= 0"):
        HierarchicalPlanner(world, preferences={"do_laundry": -1.0}, rng=np.random.default_rng(0))


def test_a_planner_without_a_generator_is_refused_rather_than_drawing_unseeded():
    world = generate_world(None, np.random.default_rng(0), ["do_laundry"])
    with pytest.raises(TypeError, match="rng"):
        HierarchicalPlanner(world, mission="do_laundry")
    for wrong in (None, 0, np.random.RandomState(0)):
        with pytest.raises(TypeError, match=r"needs rng, a numpy.random.Generator .* got " + type(wrong).__name__):
            HierarchicalPlanner(world, mission="do_laundry", rng=wrong)


CHI2_CRITICAL_0_001 = {14: 36.123}  # tabulated upper 0.1% points of the chi-square distribution, by dof


def test_planner_draws_uniformly_among_all_shortest_paths_to_the_nearest_usable_cells():
    # A 3 x 2 stove at x 5..7, y 3..4; the agent in the corner (1, 1), facing east. The nearest cells
    # from which the stove can be toggled are (4, 3) (10 shortest paths) and (5, 2) (5 shortest paths),
    # both 5 steps away. The documented rule (planner module and paths.py): every shortest path to a
    # nearest usable cell is equally likely, 1/15 each; choosing a cell first and then a path would
    # give the (5, 2) paths 1/10 each and the (4, 3) paths 1/20, which this test rejects.
    world = make_world([{"type": "stove", "pos": [5, 3], "state": {"toggleable": False}}], agent=(1, 1, 0), width=10)
    toggle = Mission(
        "t", "toggle the stove", (Subgoal(Action.toggle, "stove", "Kitchen", state=("toggleable", True)),), 0
    )

    # independent enumeration: all shortest paths (networkx) to the nearest free neighbours of the stove
    graph = grid_graph(world)
    start = (1, 1)
    ys, xs = world.house.fur_cells[0]
    stove = set(zip(xs.tolist(), ys.tolist()))
    usable = {(x + dx, y + dy) for x, y in stove for dx, dy in DIR_VEC} & set(graph)
    lengths = nx.single_source_shortest_path_length(graph, start)
    nearest = min(lengths[c] for c in usable)
    expected_paths = {tuple(p) for c in usable if lengths[c] == nearest for p in nx.all_shortest_paths(graph, start, c)}
    assert len(expected_paths) == 15

    initial = world.get_state()
    n = 1500
    walked, action_sequences = Counter(), set()
    for seed in range(n):
        world.set_state(initial)
        planner = HierarchicalPlanner(world, mission=toggle, rng=np.random.default_rng(seed))
        cells, actions = [start], []
        while not planner.done:
            actions.append(planner.step().action)
            pos = tuple(world.state.agent_pos[0].tolist())
            if pos != cells[-1]:
                cells.append(pos)
        assert planner.succeeded and actions[-1] == Action.toggle
        walked[tuple(cells)] += 1
        action_sequences.add(tuple(actions))

    assert set(walked) == expected_paths, "every shortest path is taken, and only shortest paths"
    assert len(action_sequences) == len(expected_paths), "here each cell path is exactly one action sequence"
    expected = n / len(expected_paths)
    chi2 = sum((walked[p] - expected) ** 2 / expected for p in expected_paths)
    df = len(expected_paths) - 1
    assert chi2 < CHI2_CRITICAL_0_001[df], f"chi-square {chi2:.1f} with {df} dof: paths are not uniform"
