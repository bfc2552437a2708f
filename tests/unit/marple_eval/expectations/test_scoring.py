"""Scoring as AGENT scores: pairwise accuracy per type and scenario with intervals, a tie wrong (and, beside it,
counting half), human ratings standardised per participant, and the generalisation tests' splits."""

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
    plot_generalisation,
    seeded_table,
    standardise,
)
from marple_gym.expectations.scenarios import all_types, make_trial, scenario_of, trial_keys


def rating(kind: str, expected: float, surprising: float, i: int = 0) -> Rating:
    return Rating(f"t{i}", scenario_of(kind).name, kind, expected, surprising)


def test_a_pair_counts_one_only_when_the_surprising_test_is_rated_strictly_higher():
    assert pair_score(rating("1.1", 1.0, 2.0)) == 1.0
    assert pair_score(rating("1.1", 2.0, 2.0)) == 0.0  # AGENT's strict count: a tie is wrong
    assert pair_score(rating("1.1", 2.0, 2.0), tie=0.5) == 0.5
    assert pair_score(rating("1.1", 3.0, 2.0)) == 0.0


def test_the_tie_as_half_figure_stands_beside_the_strict_one_where_ties_make_them_differ():
    ratings = [rating("1.1", 1, 1, i) for i in range(10)] + [rating("1.1", 0, 1, i) for i in range(10, 20)]
    table = accuracy_table(ratings)
    assert table["1.1"].accuracy == 0.5 and table["1.1"].half == 0.75
    assert table["1.1"].half_low < 0.75 < table["1.1"].half_high
    assert "0.50 [" in format_table({"ties": table}) and "(½ 0.75)" in format_table({"ties": table})
    assert "(½" not in format_table({"none": accuracy_table(ratings[10:])})


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


def test_the_uniform_rater_scores_nothing_strictly_and_a_half_with_ties_counting_half():
    trials = [make_trial(k) for k in trial_keys("test", 3, all_types()[:2])]
    table = accuracy_table(rate_trials(ExpectationUniform(), trials))
    assert table[ALL].accuracy == 0.0 and table[ALL].half == 0.5


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


def test_a_learned_methods_seeds_pool_with_an_interval_over_the_pairs_and_the_seeds():
    right = [rating("2.1", 0, 1, i) for i in range(30)]
    wrong = [rating("2.1", 1, 0, i) for i in range(30)]
    half = right[:15] + wrong[15:]
    table = seeded_table([right, half, wrong])
    assert table["2.1"].accuracy == pytest.approx(0.5) and table["2.1"].seeds == 3 and table["2.1"].trials == 30
    one_seed = accuracy_table(half)["2.1"]
    assert table["2.1"].high - table["2.1"].low > one_seed.high - one_seed.low  # the seeds' spread counts too
    assert table["2.1"].to_dict()["seeds"] == 3 and "seeds" not in one_seed.to_dict()
    with pytest.raises(ValueError, match="same trials"):
        seeded_table([right, right[:10]])


def test_the_generalisation_tests_are_plotted_as_bars_and_grids(tmp_path):
    ratings = [rating(k, 0, 1, i) for k in ("1.1", "1.2") for i in range(3)]
    tests = {
        "all": accuracy_table(ratings),
        "leave_one_type_out": accuracy_table(ratings),
        "single_type": {"only 1.1": accuracy_table(ratings[3:]), "only 1.2": accuracy_table(ratings[:3])},
    }
    paths = plot_generalisation(tests, tmp_path)
    assert [p.name for p in paths] == ["generalisation.png", "generalisation-single_type.png"]
    assert all(p.stat().st_size > 0 for p in paths)
