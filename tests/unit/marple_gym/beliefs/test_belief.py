"""Perception and belief: an agent sees its room (or its view), not inside closed containers, and its belief
about an object changes only through what it perceives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from search_houses import piece, two_rooms

from marple_gym.beliefs.belief import ObjectBelief
from marple_gym.beliefs.houses import apartment_config
from marple_gym.beliefs.locations import bits_of, locations_of, object_piece, pieces_of, unique_objects
from marple_gym.beliefs.perception import PerceptionError, check_perception, perceive, sighting
from marple_gym.episode import EpisodeState
from marple_gym.generation import generate_world
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS, OPEN_BIT
from marple_gym.world.state import CH_FUR_STATE, CH_OBJ, CH_OBJ_ID, CH_OBJ_STATE, WorldState


def _world(contents, agent=(12, 3, 2)):
    return generate_world(two_rooms(contents, agent), np.random.default_rng(0))


def test_room_perception_sees_the_agents_room_whole_but_not_inside_closed_containers():
    world = _world({"table": "fork", "kitchen cabinet": "plate"}, agent=(4, 4, 0))
    percept = perceive(world.house, world.state, 0, "room")
    kitchen = bits_of([piece("fridge"), piece("kitchen cabinet"), piece("table")])
    assert percept.cells[4, 4] and not percept.cells[4, 12]  # its own room, not the living room
    assert (
        percept.pieces == bits_of([piece("table")])
        and bits_of(percept.view.sealed) & kitchen == kitchen & ~percept.pieces
    )
    fork, plate = world.house.obj_names.index("fork_1"), world.house.obj_names.index("plate_1")
    assert sighting(world.house, world.state, percept, fork) == (piece("table"), (4, 6))
    assert sighting(world.house, world.state, percept, plate) is None  # inside the closed cabinet


def test_an_open_container_is_seen_whole_with_its_contents():
    world = _world({"kitchen cabinet": "plate"}, agent=(4, 4, 0))
    f = piece("kitchen cabinet")
    _set_open(world, f)
    percept = perceive(world.house, world.state, 0, "room")
    assert percept.pieces >> f & 1
    plate = world.house.obj_names.index("plate_1")
    assert sighting(world.house, world.state, percept, plate) == (f, (6, 2))


def test_a_doorway_shows_both_rooms():
    world = _world({}, agent=(7, 4, 0))
    EpisodeState.start(world.house, world.state, (None,)).advance(world.house, [int(Action.forward)])
    assert world.state.agent_pos[0].tolist() == [8, 4]
    percept = perceive(world.house, world.state, 0, "room")
    assert percept.cells[4, 4] and percept.cells[4, 12]


def test_view_perception_sees_the_window_and_the_faced_piece_whole():
    world = _world({"sofa": "remote"}, agent=(12, 5, 1))  # facing the sofa, south
    percept = perceive(world.house, world.state, 0, "view")
    assert percept.pieces >> piece("sofa") & 1
    assert not percept.cells[2, 2]  # the kitchen is behind the wall
    with pytest.raises(PerceptionError, match="perception must be one of"):
        check_perception("telepathy")


def _set_open(world, f: int) -> None:
    world.state.fur_state[f] |= OPEN_BIT
    ys, xs = world.house.fur_cells[f]
    world.state.grid[ys, xs, CH_FUR_STATE] = world.state.fur_state[f] + 1


def test_seeing_the_object_makes_the_belief_certain_and_seeing_its_place_empty_drops_it():
    world = _world({"table": "fork"}, agent=(4, 4, 0))
    locations = locations_of(world.house)
    code = ASSETS.object_code["fork"]
    candidates = locations.candidates(code)
    belief = ObjectBelief.start(candidates)
    percept = perceive(world.house, world.state, 0, "room")
    fork = world.house.obj_names.index("fork_1")
    seen = belief.revise(percept, sighting(world.house, world.state, percept, fork), candidates)
    assert seen.support == 1 << piece("table") and seen.cell == (4, 6) and seen.certain
    # The fork is taken away (out of the agent's sight it would change nothing): seen whole without it, the
    # table is dropped, the support is empty, and the belief starts again from every candidate less what it sees.
    after = seen.revise(percept, None, candidates)
    assert after.cell is None and not after.holds(piece("table"))
    assert after.support == candidates & ~percept.pieces


def _move_unseen(state: WorldState, obj: int, to: tuple[int, int]) -> WorldState:
    """``state`` with object ``obj`` moved to cell ``to`` (both cells out of the agent's sight)."""
    out = state.copy()
    x, y = out.obj_pos[obj].tolist()
    channels = out.grid[y, x, CH_OBJ : CH_OBJ_ID + 1].copy()
    out.grid[y, x, CH_OBJ : CH_OBJ_ID + 1] = 0
    out.grid[to[1], to[0], CH_OBJ : CH_OBJ_ID + 1] = channels
    out.obj_pos[obj] = to
    assert out.grid[to[1], to[0], CH_OBJ_STATE]
    return out


@settings(max_examples=25)
@given(seed=st.integers(0, 10_000), mode=st.sampled_from(["room", "view"]))
def test_a_belief_changes_only_through_what_the_agent_perceives(seed, mode):
    """Moving an object between places the agent does not see changes neither its percept nor its belief;
    the belief's support only shrinks, unless the object is seen or the support runs out."""
    rng = np.random.default_rng(seed)
    world = generate_world(apartment_config(), rng)
    house, state = world.house, world.state
    objects = unique_objects(house, state)
    code, obj = sorted(objects.items())[int(rng.integers(len(objects)))]
    candidates = locations_of(house).candidates(code)
    before = perceive(house, state, 0, mode)
    belief = ObjectBelief.start(candidates)
    revised = belief.revise(before, sighting(house, state, before, obj), candidates)
    if sighting(house, state, before, obj) is None:
        assert revised.support & ~belief.support == 0 or revised.support == candidates & ~before.pieces
    # Somewhere else the agent does not see: a free cell of another unseen piece.
    hidden = [
        (x, y)
        for f in pieces_of(locations_of(house).all & ~before.pieces)
        if f != object_piece(house, state, obj)
        for x, y in zip(house.fur_cells[f][1].tolist(), house.fur_cells[f][0].tolist())
        if not state.grid[y, x, CH_OBJ] and not before.sees_cell_contents(x, y)
    ]
    x, y = state.obj_pos[obj].tolist()
    if not hidden or before.sees_cell_contents(x, y):
        return
    moved = _move_unseen(state, obj, hidden[int(rng.integers(len(hidden)))])
    after = perceive(house, moved, 0, mode)
    assert after.pieces == before.pieces and np.array_equal(after.cells, before.cells)
    assert belief.revise(after, sighting(house, moved, after, obj), candidates) == revised
