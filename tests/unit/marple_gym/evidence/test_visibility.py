"""Partial views: a hidden cell or a hidden container's contents never reach the vision array, the scene graph or
a frame, and everything else reaches them unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from worlds import make_world

from marple_gym.evidence import Visibility, closed_containers, scene_graph
from marple_gym.evidence.egocentric import view_cells
from marple_gym.generation import generate_world
from marple_gym.rendering import render_frame
from marple_gym.world import Action
from marple_gym.world.rules import apply_action

T = 8  # tile size for pixel tests

CLOSET = {
    "type": "closet",
    "pos": [5, 1],
    "state": {"openable": False},
    "objects": [{"type": "clothes", "pos": [5, 1]}],
}


def hidden_cells(vis: Visibility) -> set[tuple[int, int]]:
    ys, xs = np.nonzero(vis.hidden)
    return set(zip(xs.tolist(), ys.tolist()))


def graph_cells(graph) -> set[tuple[int, int]]:
    """Every cell the graph's objects, agents and doors stand on."""
    return {a["pos"] for _, a in graph.nodes(data=True) if a.get("kind") in ("object", "agent", "door") and a["pos"]}


@pytest.fixture(scope="module")
def house_world():
    return generate_world({"width": 16, "height": 14, "num_rooms": 3}, np.random.default_rng(7))


def test_hidden_cells_read_all_zeros_and_the_rest_is_untouched(house_world):
    grid = house_world.state.grid
    hidden = np.zeros(grid.shape[:2], dtype=bool)
    hidden[2:6, 3:9] = True
    vis = Visibility.hiding(house_world.house, hidden)
    out = vis.vision(grid)
    assert not out[hidden].any()
    assert np.array_equal(out[~hidden], grid[~hidden])
    assert out is not grid and np.array_equal(grid, house_world.state.grid)  # a copy; the state is unchanged


def test_a_stack_of_arrays_is_cut_the_same_way_as_each_array(house_world):
    grids = np.stack([house_world.state.grid] * 3)
    vis = Visibility.hiding(house_world.house, [(1, 1), (4, 2), (6, 6)])
    assert np.array_equal(vis.vision(grids), np.stack([vis.vision(g) for g in grids]))


def test_an_occluded_cell_never_appears_in_the_scene_graph(house_world):
    house, state = house_world.house, house_world.state
    full = scene_graph(house, state)
    objects = [a["pos"] for _, a in full.nodes(data=True) if a.get("kind") == "object"]
    for cells in ([tuple(state.agent_pos[0].tolist())], objects[::2]):
        vis = Visibility.hiding(house, cells)
        cut = vis.scene_graph(full)
        assert not graph_cells(cut) & hidden_cells(vis)
        movers = {n: a["pos"] for n, a in full.nodes(data=True) if a.get("kind") in ("object", "agent")}
        assert {n for n in movers if n in cut} == {n for n, pos in movers.items() if pos not in cells}
    assert list(full.nodes) == list(scene_graph(house, state).nodes)  # the input graph is not changed


def test_furniture_and_rooms_appear_while_any_of_their_cells_is_seen():
    world = make_world(furniture=[{"type": "bed", "pos": [4, 2]}], agent=(1, 1, 0))
    house = world.house
    graph = scene_graph(house, world.state)
    (bed,) = [n for n, a in graph.nodes(data=True) if a.get("type") == "bed"]
    ys, xs = house.fur_cells[house.fur_names.index(bed)]
    cells = list(zip(xs.tolist(), ys.tolist()))
    assert bed in Visibility.hiding(house, cells[1:]).scene_graph(graph)
    assert bed not in Visibility.hiding(house, cells).scene_graph(graph)
    everything = np.ones((house.height, house.width), dtype=bool)
    assert len(Visibility.hiding(house, everything).scene_graph(graph)) == 0


def test_a_held_object_is_seen_with_its_holder_only():
    world = make_world(furniture=[], floor_objects=[{"type": "apple", "pos": [3, 3]}], agent=(2, 3, 0))
    assert apply_action(world.house, world.state, 0, int(Action.pickup)).success
    graph = scene_graph(world.house, world.state)
    (apple,) = [n for n, a in graph.nodes(data=True) if a.get("type") == "apple"]
    assert apple in Visibility.everything(world.house).scene_graph(graph)
    assert apple not in Visibility.hiding(world.house, [(2, 3)]).scene_graph(graph)


def test_a_sealed_container_shows_itself_but_not_its_contents():
    world = make_world(furniture=[CLOSET], agent=(4, 1, 0))
    house, state = world.house, world.state
    sealed = closed_containers(house, state)
    closet = house.fur_names.index(next(n for n in house.fur_names if n.startswith("closet")))
    assert sealed == {closet}
    vis = Visibility.everything(house).sealing(sealed)
    cut = vis.vision(state.grid)
    assert cut[1, 5, 1] == state.grid[1, 5, 1] and not cut[vis.sealed_cells][:, 3:6].any()
    graph = vis.scene_graph(scene_graph(house, state))
    assert house.fur_names[closet] in graph and not [a for _, a in graph.nodes(data=True) if a["type"] == "clothes"]
    assert apply_action(house, state, 0, int(Action.open)).success
    assert closed_containers(house, state) == frozenset()


def test_an_egocentric_view_hides_exactly_the_cells_the_agent_does_not_see(house_world):
    house, state = house_world.house, house_world.state
    vis = Visibility.egocentric(house, state, agent=0, view_size=5)
    xs, ys, seen = view_cells(state, 0, 5)
    assert {(x, y) for x, y in zip(xs[seen].tolist(), ys[seen].tolist())} == set(zip(*np.nonzero(~vis.hidden)[::-1]))


def test_a_room_view_shows_the_agents_room_and_its_walls_only(house_world):
    house, state = house_world.house, house_world.state
    vis = Visibility.room(house, state)
    x, y = state.agent_pos[0].tolist()
    room = house.rooms[house.room_of_cell(x, y)]
    (left, top), (w, h) = room.top, room.size
    expected = np.ones_like(vis.hidden)
    expected[top - 1 : top + h + 1, left - 1 : left + w + 1] = False
    assert np.array_equal(vis.hidden, expected)


def test_views_combine_hiding_what_either_hides(house_world):
    house = house_world.house
    a = Visibility.hiding(house, [(1, 1)], sealed=[0])
    b = Visibility.hiding(house, [(2, 2)])
    both = a.together(b)
    assert hidden_cells(both) == {(1, 1), (2, 2)} and both.sealed == {0}
    other = generate_world({"width": 16, "height": 14, "num_rooms": 3}, np.random.default_rng(8))
    with pytest.raises(ValueError, match="different houses"):
        a.together(Visibility.everything(other.house))


def test_bad_views_are_refused_with_a_reason(house_world):
    house = house_world.house
    with pytest.raises(ValueError, match="mask over the house"):
        Visibility(house, np.zeros((3, 3), dtype=bool))
    with pytest.raises(ValueError, match="outside"):
        Visibility.hiding(house, [(house.width, 0)])
    with pytest.raises(ValueError, match="furniture indices"):
        Visibility.hiding(house, [], sealed=[house.num_furniture])
    with pytest.raises(ValueError, match="does not fit"):
        Visibility.everything(house).vision(np.zeros((3, 3, 8), dtype=np.uint8))


def test_a_frame_draws_hidden_cells_as_the_occluder_whatever_is_behind_them():
    world = make_world(furniture=[CLOSET], agent=(2, 3, 0))
    hidden = np.zeros((world.house.height, world.house.width), dtype=bool)
    hidden[1:4, 2:4] = True  # the agent's cell among them
    vis = Visibility.hiding(world.house, hidden)
    frame = render_frame(world, T, visibility=vis)
    plain = render_frame(world, T)
    tiles = frame.reshape(world.house.height, T, world.house.width, T, 3).transpose(0, 2, 1, 3, 4)
    first = tiles[1, 2]
    assert all(np.array_equal(t, first) for t in tiles[hidden])  # one look, agent or not
    assert np.array_equal(tiles[~hidden], plain.reshape(tiles.shape[0], T, -1, T, 3).transpose(0, 2, 1, 3, 4)[~hidden])
    sealed = render_frame(world, T, visibility=Visibility.everything(world.house).sealing([0]))
    empty = make_world(furniture=[{**CLOSET, "objects": []}], agent=(2, 3, 0))
    assert np.array_equal(sealed, render_frame(empty, T))  # a sealed closet looks empty
