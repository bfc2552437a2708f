"""Episodes of searching agents: the Sally-Anne setup leaves a false belief, and every episode replays exactly
from its record."""

from __future__ import annotations

import json

import numpy as np
import pytest

from marple_gym.beliefs.episodes import EpisodeError, SearchEpisode, false_belief_episode, search_episode
from marple_gym.beliefs.locations import object_piece
from marple_gym.beliefs.search import SearchSettings
from marple_gym.episode import EpisodeState, replay
from marple_gym.world.actions import Action


def _goal_object(trace, code):
    return next(o for o, c in enumerate(trace.house.obj_type_list) if c == code)


@pytest.fixture(scope="module")
def sally_anne() -> SearchEpisode:
    return false_belief_episode(np.random.default_rng(3), episode_id="sally-anne", seed=3)


def test_the_sally_anne_setup_leaves_the_searcher_a_false_belief(sally_anne):
    trace = sally_anne.trace()
    start, code = sally_anne.search_start, sally_anne.goal_code
    obj = _goal_object(trace, code)
    # The searcher takes the object from where it lay and puts it away itself: no object it sees and leaves.
    searcher = [s[0] for s in trace.outcomes[:start] if s[0].success]
    took = next(k for k, o in enumerate(searcher) if o.action == int(Action.pickup))
    put = next(o for o in searcher[took:] if o.action == int(Action.drop))
    assert searcher[took].obj == obj and put.obj == obj
    first = put.fur
    belief = trace.beliefs(code, sally_anne.prior)[start]
    moved_to = object_piece(trace.house, trace.states[start], obj)
    assert belief.support == 1 << first and belief.cell is not None  # it saw the object there...
    assert moved_to != first  # ...but B moved it while it was away
    # Its first act of the search goes to the old place: the first container it opens is the first one.
    opens = [s[0].fur for s in trace.outcomes[start:] if s[0].action == int(Action.open) and s[0].success]
    assert opens[0] == first and moved_to in opens
    assert sally_anne.found >= 0 and trace.states[sally_anne.found].carrying[0].tolist().count(obj) == 1


def test_a_false_belief_episode_replays_exactly_from_its_record(sally_anne):
    again = false_belief_episode(np.random.default_rng(3), episode_id="sally-anne", seed=3)
    assert again == sally_anne
    restored = SearchEpisode.from_json(json.loads(json.dumps(sally_anne.to_json())))
    assert restored == sally_anne
    world = restored.initial_world()
    episode = EpisodeState.start(world.house, world.state, (None, None))
    states = [world.state.copy()] + [world.state.copy() for _ in replay(world.house, episode, restored.actions)]
    original = sally_anne.trace().states
    assert len(states) == len(original) and all(a.same_as(b) for a, b in zip(states, original))
    # The searcher's belief is recomputed from the replayed percepts: the same at every step.
    code = sally_anne.goal_code
    assert restored.trace().beliefs(code, restored.prior) == sally_anne.trace().beliefs(code, sally_anne.prior)


def test_episodes_are_pure_functions_of_their_generator():
    settings = SearchSettings(perception="view", lapse=0.1)
    a = search_episode(np.random.default_rng(11), settings=settings, episode_id="a")
    b = search_episode(np.random.default_rng(11), settings=settings, episode_id="a")
    assert a == b and a.settings == settings
    assert SearchEpisode.from_json(a.to_json()) == a


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("goal"), "goal: missing"),
        (lambda d: d.update(kind="heist"), "kind: expected one of"),
        (lambda d: d.update(actions=[[1], [12]]), "actions: expected a list of equal rows"),
        (lambda d: d.update(extra=1), "extra: unknown key"),
        (lambda d: d["settings"].update(lapse=2.0), "lapse must be in"),
        (lambda d: d.update(goal="unicorn"), "goal: expected one of"),
    ],
)
def test_a_malformed_episode_record_is_refused_naming_the_field_and_file(sally_anne, change, message):
    data = json.loads(json.dumps(sally_anne.to_json()))
    change(data)
    with pytest.raises(EpisodeError, match=message) as caught:
        SearchEpisode.from_json(data, file="episodes.jsonl")
    assert "episodes.jsonl" in str(caught.value)
