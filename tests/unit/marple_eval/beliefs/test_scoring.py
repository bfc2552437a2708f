"""Scoring: accuracy per type with a bootstrap interval and chance, and the Brier score against the exact
observer's posterior."""

from __future__ import annotations

import numpy as np
import pytest
from search_houses import piece, two_rooms

from marple_eval.beliefs.methods import BeliefObserver, BeliefUniform
from marple_eval.beliefs.scoring import credit, format_table, score
from marple_gym.beliefs.episodes import search_episode
from marple_gym.beliefs.questions.moments import episode_questions


@pytest.fixture(scope="module")
def questions():
    config = two_rooms({"fridge": "apple", "kitchen cabinet": "plate", "table": "fork", "living cabinet": "remote"})
    prior = [piece("fridge"), piece("kitchen cabinet"), piece("table")]
    episode = search_episode(np.random.default_rng(0), config, goal="apple", prior=prior, episode_id="e")
    return episode_questions(episode, np.random.default_rng(0), per_type=3)


def test_a_tie_earns_half_credit_and_a_choice_all_or_nothing():
    assert credit((0.5, 0.5), 0) == 0.5
    assert credit((0.7, 0.3), 0) == 1.0 and credit((0.7, 0.3), 1) == 0.0


def test_the_exact_observer_scores_the_ceiling_and_uniform_scores_chance(questions):
    best = score(questions, BeliefObserver().answer_all(questions))
    chance = score(questions, BeliefUniform().answer_all(questions))
    assert best["all"]["accuracy"] == 1.0 and best["all"]["brier"] == pytest.approx(0.0, abs=1e-12)
    assert chance["all"]["accuracy"] == 0.5 and chance["all"]["chance"] == 0.5
    expected = np.mean([(q.posterior - 0.5) ** 2 for q in questions])
    assert chance["all"]["brier"] == pytest.approx(expected)
    for kind in {q.type for q in questions}:
        assert best[kind]["n"] == sum(q.type == kind for q in questions)
        assert 0.0 <= chance[kind]["low"] <= chance[kind]["accuracy"] <= chance[kind]["high"] <= 1.0
    assert best["belief"]["n"] + best["goal"]["n"] == best["all"]["n"] == len(questions)
    table = format_table({"observer": best, "uniform": chance})
    assert "| all |" in table and "observer | uniform" in table


def test_answers_must_match_the_questions(questions):
    with pytest.raises(ValueError, match="answers"):
        score(questions, [(0.5, 0.5)])
    with pytest.raises(ValueError, match="no questions"):
        score([], [])


def test_an_answer_with_rounding_noise_is_recorded_within_zero_and_one_and_reads_back(tmp_path):
    from marple_eval.beliefs.results import BeliefResults, answer_record
    from marple_gym.beliefs.questions import QuestionSpec, make_questions

    question = make_questions(QuestionSpec(seed=1), "test", 0, 0)[0]
    record = answer_record(question, (-2.220446049250313e-16, 1.0000000000000002))  # the exact observer's sums
    assert record["p"] == [0.0, 1.0]
    path = BeliefResults("observer", {}, [record], {}).save(tmp_path / "r.json")
    assert BeliefResults.load(path).answers == [record]


def test_a_method_over_seeds_is_scored_with_the_two_way_interval_and_each_seeds_figure(questions):
    from marple_eval.beliefs.scoring import score_seeds

    right = [(1.0, 0.0) if q.answer == 0 else (0.0, 1.0) for q in questions]
    wrong = [(b, a) for a, b in right]
    same = score_seeds(questions, [right, right, right])
    assert same["all"]["accuracy"] == 1.0 and same["all"]["seeds"] == 3 and same["all"]["per_seed"] == [1.0] * 3
    mixed = score_seeds(questions, [right, wrong, right])
    assert mixed["all"]["accuracy"] == pytest.approx(2 / 3) and mixed["all"]["per_seed"] == [1.0, 0.0, 1.0]
    # Drawing the seeds too, the interval holds their spread: wider than the questions alone would make it.
    assert mixed["all"]["low"] < 0.4 and mixed["all"]["high"] == 1.0


def test_a_table_names_the_types_a_set_lacks_and_flags_small_groups(questions):
    few = [q for q in questions if q.type == questions[0].type][:3]
    table = format_table({"uniform": score(few, BeliefUniform().answer_all(few))})
    missing = [k for k in ("1.1", "1.2", "1.3", "2.1", "2.2", "2.3", "2.4") if k != few[0].type]
    assert all(f"| {k} " in table and "| 0 | missing |" in table for k in missing)
    assert "No questions of type" in table and f"| {len(few)} (few) |" in table and "too uncertain" in table
