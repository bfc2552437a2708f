"""Whodunit scenarios as data: the paper's five, any unique pair, preference variants, similarity."""

from __future__ import annotations

import pytest

from marple_gym.missions.scenarios import SCENARIOS, Scenario, ScenarioError, get_scenario, similarity


def test_the_five_paper_scenarios():
    assert list(SCENARIOS) == ["pillow", "shower", "snack", "plant", "laundry"]
    laundry = SCENARIOS["laundry"]
    assert (laundry.mission_a, laundry.mission_b) == ("do_laundry", "change_outfit")
    assert laundry.question == "Who turned on the laundry?"
    assert laundry.query.name == "toggle-on-laundry-Bathroom"
    assert [s.paper_horizon for s in SCENARIOS.values()] == [15.0, 26.4, 36.8, 43.9, 51.3]


def test_any_pair_with_a_unique_query_state_is_a_scenario():
    s = get_scenario("feed_dog-vs-do_laundry")
    assert s.question == "Who put the dogfood in the closet?"
    assert s.roles == {"A": {"feed_dog": 1.0}, "B": {"do_laundry": 1.0}}


def test_a_query_state_both_missions_produce_is_refused():
    with pytest.raises(ScenarioError, match="not unique to get_night_snack"):
        Scenario.from_missions("get_night_snack", "move_plant_at_night")


def test_preference_variants_mix_the_missions():
    s = get_scenario("shower@0.8")
    assert s.name == "shower@0.8"
    assert s.roles["A"] == {"take_shower": 0.8, "feed_dog": pytest.approx(0.2)}
    assert s.roles["B"] == {"feed_dog": 0.8, "take_shower": pytest.approx(0.2)}
    with pytest.raises(ScenarioError, match="preference"):
        get_scenario("shower@0.3")


def test_unknown_scenario_names_suggest_one():
    with pytest.raises(ScenarioError, match="did you mean 'laundry'"):
        get_scenario("laundy")


def test_similarity_follows_the_supplements_formula():
    # do_laundry and change_outfit: actions {pickup, open, drop, close, toggle, idle} vs {open, pickup, close, drop}
    # -> J = 4/6; rooms {Bedroom, Bathroom} both -> J = 1; (4/6 + 0.5) / 1.5
    assert similarity("do_laundry", "change_outfit") == pytest.approx((4 / 6 + 0.5) / 1.5)
    assert similarity("feed_dog", "feed_dog") == pytest.approx(1.0)
