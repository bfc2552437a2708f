"""The seven question types on a hand-made apartment: each type's generator yields questions whose normative
answer is the intended option, and the exact observer, asked as a method, gives the same answer."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from search_houses import piece, two_rooms

from marple_eval.beliefs.methods import BeliefObserver, BeliefUniform
from marple_eval.methods.registry import make_method
from marple_gym.beliefs.episodes import search_episode
from marple_gym.beliefs.questions.generate import QuestionSpec, make_questions
from marple_gym.beliefs.questions.question import DECISIVE, QUESTION_TYPES, episode_questions

CONTENTS = {"fridge": "apple", "kitchen cabinet": "plate", "table": "fork", "living cabinet": "remote"}
KITCHEN = [piece("fridge"), piece("kitchen cabinet"), piece("table")]


@pytest.fixture(scope="module")
def searches():
    """Alice looks for the apple from the living room: believing it may be anywhere in the kitchen, and sure it
    is not in the kitchen cabinet (which she passes on her way to the fridge)."""
    config = two_rooms(CONTENTS)
    everywhere = search_episode(np.random.default_rng(0), config, goal="apple", prior=KITCHEN, episode_id="open")
    sure = [piece("fridge"), piece("table")]
    passing = search_episode(np.random.default_rng(0), config, goal="apple", prior=sure, episode_id="sure")
    return everywhere, passing


INTENDED = {
    "1.1": ("fridge", True),
    "1.2": ("kitchen cabinet", True),
    "1.3": ("kitchen cabinet", False),
}


@pytest.mark.parametrize("kind", sorted(QUESTION_TYPES))
def test_each_types_questions_have_the_intended_normative_answer(searches, kind):
    questions = [q for e in searches for q in episode_questions(e, np.random.default_rng(1), [kind], per_type=4)]
    assert questions, f"no question of type {kind}"
    observer = BeliefObserver()
    for q in questions:
        chosen = q.options[q.answer]
        if kind in INTENDED:
            where, inside = INTENDED[kind]
            assert (chosen.obj, chosen.piece, chosen.inside) == ("apple", piece(where), inside)
            assert q.given.goal == "apple"
        else:
            assert chosen.goal == "apple"
        assert max(q.normative) >= DECISIVE
        assert observer.answer(q) == pytest.approx(q.normative, abs=1e-9)


def test_type_2_2_supposes_a_belief_about_the_other_object(searches):
    (q, *_) = episode_questions(searches[0], np.random.default_rng(1), ["2.2"])
    assert (q.given.obj, q.given.piece, q.given.inside) == ("plate", piece("kitchen cabinet"), False)
    assert {o.goal for o in q.options} == {"apple", "plate"}


def test_questions_of_an_episode_have_distinct_cuts_and_both_letters_occur(searches):
    questions = [q for e in searches for q in episode_questions(e, np.random.default_rng(2), per_type=3)]
    for e in searches:
        cuts = [q.end_time for q in questions if q.episode is e]
        assert len(cuts) == len(set(cuts))
    assert {q.letter for q in questions} == {"a", "b"}
    assert all(0 < q.end_time <= q.episode.length for q in questions)


def test_unknown_types_and_methods_are_refused(searches):
    with pytest.raises(ValueError, match="unknown question types"):
        episode_questions(searches[0], np.random.default_rng(0), ["3.1"])
    with pytest.raises(ValueError, match="unknown beliefs method"):
        make_method("beliefs", "oracle")
    assert BeliefUniform().answer(None) == (0.5, 0.5)


@settings(max_examples=6)
@given(seed=st.integers(0, 10_000))
def test_generated_questions_keep_only_decisive_normative_answers_that_the_observer_reproduces(seed):
    spec = QuestionSpec(seed=seed, test_houses=1, episodes_per_house=1, false_belief=0.5)
    questions = make_questions(spec, "test", 0, 0)
    observer = BeliefObserver()
    for q in questions:
        assert max(q.normative) >= DECISIVE
        assert observer.answer(q) == pytest.approx(q.normative, abs=1e-9)
        chosen = q.options[q.answer]
        if q.type.startswith("2."):
            assert chosen.goal == q.episode.goal  # the goal questions' answer is the searcher's true goal
        else:
            assert q.given.goal == q.episode.goal and chosen.inside == (q.type != "1.3")
