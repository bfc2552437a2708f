"""Scoring as AGENT scores: pairwise accuracy per type and scenario with intervals, ties counting half, human
ratings standardised per participant, and the generalisation tests' splits."""

from __future__ import annotations

import pytest

from marple_eval.expectations.methods import ExpectationUniform, Rating, rate_trials
from marple_eval.expectations.scoring import (
    ALL,
    accuracy_of,
    accuracy_table,
    format_table,
    generalisation_tests,
    pair_score,
    plot_accuracy,
    standardise,
)
from marple_gym.expectations.scenarios import all_types, make_trial, scenario_of, trial_keys


def rating(kind: str, expected: float, surprising: float, i: int = 0) -> Rating:
    return Rating(f"t{i}", scenario_of(kind).name, kind, expected, surprising)


def test_a_pair_counts_one_when_ordered_right_half_on_a_tie_nothing_otherwise():
    assert pair_score(rating("1.1", 1.0, 2.0)) == 1.0
    assert pair_score(rating("1.1", 2.0, 2.0)) == 0.5
    assert pair_score(rating("1.1", 3.0, 2.0)) == 0.0


def test_accuracy_per_type_scenario_and_all_with_intervals():
    ratings = [rating("1.1", 0, 1, i) for i in range(30)] + [rating("1.2", 1, 0, i) for i in range(10)]
    table = accuracy_table(ratings)
    assert table["1.1"].accuracy == 1.0 and table["1.2"].accuracy == 0.0
    assert table["goal_preferences"].accuracy == pytest.approx(0.75) and table[ALL].trials == 40
    assert table["goal_preferences"].low < 0.75 < table["goal_preferences"].high
    assert table["1.2"].warning and not table["1.1"].warning
    assert "1.3" not in table
    assert accuracy_of(ratings[:30]).low == 1.0  # every resample of a perfect group is perfect
    text = format_table({"exact": table})
    assert "| exact | 1.00 [1.00, 1.00] | 0.00 [0.00, 0.00] |" in text and "fewer than 20" in text
    with pytest.raises(ValueError, match="no ratings"):
        accuracy_of([])


def test_the_uniform_rater_scores_a_half():
    trials = [make_trial(k) for k in trial_keys("test", 3, all_types()[:2])]
    table = accuracy_table(rate_trials(ExpectationUniform(), trials))
    assert table[ALL].accuracy == 0.5


def test_human_ratings_are_standardised_per_participant():
    z = standardise({"p1": {"a": 10, "b": 30}, "p2": {"a": 60, "b": 100, "c": 80}, "p3": {"a": 50}})
    assert z["p1"] == pytest.approx({"a": -1.0, "b": 1.0})
    assert z["p2"]["c"] == pytest.approx(0.0) and z["p3"] == {"a": 0.0}


def test_generalisation_tests_split_types_as_agent_does():
    types = ["1.1", "1.2", "1.3"]
    assert [(s.train, s.test) for s in generalisation_tests("leave_one_type_out", types)] == [
        (("1.2", "1.3"), ("1.1",)),
        (("1.1", "1.3"), ("1.2",)),
        (("1.1", "1.2"), ("1.3",)),
    ]
    assert [(s.train, s.test) for s in generalisation_tests("single_type", types)][0] == (("1.1",), ("1.2", "1.3"))
    assert generalisation_tests("all", types)[0].train == tuple(types)
    assert generalisation_tests("leave_one_scenario_out", types) == []  # one scenario: nothing to leave out
    with pytest.raises(ValueError, match="unknown generalisation test"):
        generalisation_tests("G7")


def test_the_plot_is_written(tmp_path):
    ratings = [rating("1.1", 0, 1, i) for i in range(5)]
    path = plot_accuracy({"exact": accuracy_table(ratings)}, tmp_path / "acc.png")
    assert path.stat().st_size > 1000
