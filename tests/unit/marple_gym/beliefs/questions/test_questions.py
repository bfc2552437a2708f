"""The seven question types on hand-made apartments and generated houses: every question a type's finder makes
satisfies the type's definition (checked here from the episode's record, not with the finder's own helpers),
is decided by the exact observer, and shows nothing after its cut."""

from __future__ import annotations

import collections
from dataclasses import replace

import numpy as np
import pytest
from search_houses import piece, two_rooms

from marple_eval.beliefs.methods import BeliefObserver, BeliefUniform
from marple_eval.methods.registry import make_method
from marple_gym.beliefs.episodes import SearchEpisode, false_belief_episode, search_episode
from marple_gym.beliefs.locations import locations_of, object_piece, unique_objects
from marple_gym.beliefs.questions.generate import QuestionSpec, make_episode, make_questions
from marple_gym.beliefs.questions.moments import FAR, episode_questions
from marple_gym.beliefs.questions.question import DECISIVE, QUESTION_TYPES
from marple_gym.beliefs.questions.text import last_target, question_text, story
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS
from marple_gym.world.house import DIR_VEC

CONTENTS = {"fridge": "apple", "kitchen cabinet": "plate", "table": "fork", "living cabinet": "remote"}
KITCHEN = [piece("fridge"), piece("kitchen cabinet"), piece("table")]


@pytest.fixture(scope="module")
def episodes() -> list[SearchEpisode]:
    """Alice looks for the apple from the living room, believing it may be anywhere in the kitchen or sure it is
    not in the kitchen cabinet; a Sally-Anne episode; and episodes of generated houses."""
    config = two_rooms(CONTENTS)
    everywhere = search_episode(np.random.default_rng(0), config, goal="apple", prior=KITCHEN, episode_id="open")
    sure = [piece("fridge"), piece("table")]
    passing = search_episode(np.random.default_rng(0), config, goal="apple", prior=sure, episode_id="sure")
    sally = false_belief_episode(np.random.default_rng(3), episode_id="sally-anne")
    spec = QuestionSpec(seed=5, false_belief=0.5)
    generated = [make_episode(spec, "test", k, i) for k in range(2) for i in range(4)]
    return [everywhere, passing, sally, *generated]


@pytest.fixture(scope="module")
def questions(episodes):
    return [q for i, e in enumerate(episodes) for q in episode_questions(e, np.random.default_rng(i), per_type=3)]


def _seen(trace, code: int, t: int) -> bool:
    return any(s is not None for s in trace.sightings(code)[: t + 1])


def _code(name: str) -> int:
    return ASSETS.object_code[name]


def _satisfies(q) -> None:
    """Assert that ``q`` satisfies its type's definition (see :mod:`marple_gym.beliefs.questions.moments`)."""
    e, t = q.episode, q.end_time
    trace = e.trace()
    house, state = trace.house, trace.states[t]
    loc = locations_of(house)
    me = e.searcher
    agent, target, verb = last_target(story(e, t))
    right = q.options[q.answer]
    x, y = state.agent_pos[me].tolist()
    here = house.room_of_cell(x, y)
    dx, dy = DIR_VEC[int(state.agent_dir[me])]
    faced = loc.piece_at(x + dx, y + dy)
    assert t >= 1 and (e.found < 0 or t < e.found)  # an action is shown, the pick-up of the goal never
    if q.type.startswith("1."):
        statement = q.options[0]
        goal, c = _code(q.given.goal), statement.piece
        assert statement.obj == q.given.goal and {o.inside for o in q.options} == {True, False}
        assert loc.gated >> c & 1 and loc.candidates(goal) >> c & 1  # a closed container that could hold it
        there = object_piece(house, state, unique_objects(house, trace.states[0])[goal]) == c
        if q.type in ("1.1", "1.2"):
            assert c == target and (faced == c or verb == "closes {}")
            assert (there == right.inside) == (q.type == "1.1")  # true belief agrees with the world
        else:  # 1.3: passed by without checking, the goal object never seen, not the last target
            visited = {house.room_of_cell(*s.agent_pos[me].tolist()) for s in trace.states[e.search_start : t]}
            assert not _seen(trace, goal, t) and c != target
            assert int(house.fur_room[c]) in visited and int(house.fur_room[c]) != here
            assert not any(p.pieces >> c & 1 for p in trace.percepts[: t + 1])  # never seen inside
        return
    goals = [_code(o.goal) for o in q.options]
    places = [object_piece(house, state, unique_objects(house, trace.states[0])[g]) for g in goals]
    assert t > e.search_start and all(p >= 0 for p in places)
    if q.type in ("2.1", "2.2"):  # about to open a closed container holding one of them, not seen so far
        assert faced == target and verb == "go" and loc.closed(state) >> faced & 1
        inside = [g for g, p in zip(goals, places) if p == faced and not _seen(trace, g, t)]
        assert inside
        if q.type == "2.2":
            assert (q.given.piece, q.given.inside) == (faced, False) and _code(q.given.obj) in inside
    elif q.type == "2.3":  # closed a container in vain, neither in it
        assert agent == me and verb == "closes {}" and target not in places
        opened = [s for s in range(e.search_start, t) if trace.outcomes[s][me].action == int(Action.open)]
        assert opened and trace.outcomes[opened[-1]][me].fur == target
    else:  # 2.4: away from the latest target and from the room it is in, one far, neither seen
        assert target not in places and all(int(house.fur_room[p]) != here for p in places)
        assert not any(_seen(trace, g, t) for g in goals)
        far = [abs(int(house.fur_pos[p][0]) - x) + abs(int(house.fur_pos[p][1]) - y) >= FAR for p in places]
        assert any(far) and t - e.search_start >= 4


def test_every_type_is_found(questions):
    assert {q.type for q in questions} == set(QUESTION_TYPES)


def test_every_question_satisfies_its_types_definition(questions):
    for q in questions:
        _satisfies(q)


def test_every_answer_is_the_exact_observers_and_decisive(questions):
    observer = BeliefObserver()
    for q in questions:
        assert max(q.normative) >= DECISIVE
        assert observer.answer(q) == pytest.approx(q.normative, abs=1e-9)


def test_either_statement_can_be_right_within_every_type(questions):
    """The options' kind never gives the answer away: in the short-term belief types "there is" and "there isn't"
    are both right somewhere, and the goal types do not always pick the true goal (a balanced split has exactly
    as many of each: test_balance.py)."""
    for kind in ("1.1", "1.2"):
        assert {q.options[q.answer].inside for q in questions if q.type == kind} == {True, False}
    assert any(q.options[q.answer].goal != q.episode.goal for q in questions if q.type.startswith("2."))


def test_a_belief_question_may_suppose_a_goal_the_searcher_does_not_have(questions):
    assert any(q.given.goal != q.episode.goal for q in questions if q.type.startswith("1."))


def _before(episode: SearchEpisode, t: int) -> SearchEpisode:
    """The episode as it stood at cut ``t``: nothing after it recorded."""
    return replace(episode, actions=episode.actions[:t].copy(), found=-1, search_start=min(episode.search_start, t))


def test_no_word_of_a_question_tells_what_happens_after_its_cut(questions):
    one_of_each = {(q.episode.id, q.type): q for q in questions}.values()  # each replayed from its record
    for q in one_of_each:
        assert question_text(q) == question_text(replace(q, episode=_before(q.episode, q.end_time))), q.id


def test_an_episode_gives_at_most_two_questions_of_a_type_at_a_cut_and_both_letters_occur(questions):
    keys = collections.Counter((q.episode.id, q.type, q.end_time) for q in questions)
    assert max(keys.values()) <= 2  # the candidates the cues get most wrong and most right; a split keeps one
    assert {q.letter for q in questions} == {"a", "b"}


def test_unknown_types_and_methods_are_refused(episodes):
    with pytest.raises(ValueError, match="unknown question types"):
        episode_questions(episodes[0], np.random.default_rng(0), ["3.1"])
    with pytest.raises(ValueError, match="unknown beliefs method"):
        make_method("beliefs", "oracle")
    assert BeliefUniform().answer(None) == (0.5, 0.5)


def test_an_episode_s_candidates_are_a_pure_function_of_the_spec_and_their_index():
    spec = QuestionSpec(seed=3, false_belief=0.5)
    assert make_questions(spec, "test", 1, 1) == make_questions(spec, "test", 1, 1)
    assert all(q.episode.id == "test/h001/0001" for q in make_questions(spec, "test", 1, 1))
