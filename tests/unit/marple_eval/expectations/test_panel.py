"""The shortcut panel: what its rules count in a test, that each wins and loses where it must on hand-built trials,
that every type's generated pairs leave nothing for them to count, and the verdict recorded in a set's manifest."""

from __future__ import annotations

import json

import pytest
from expectation_trials import agent_of, chosen, hand_stage, hand_trial

from marple_eval.expectations.methods import Rating, rate_trial
from marple_eval.expectations.panel import (
    CHECK,
    PASS_BAND,
    RULES,
    Counts,
    counts_of,
    panel_verdict,
    record_verdict,
)
from marple_eval.expectations.scoring import accuracy_table
from marple_gym.datasets.sharded import read_set_manifest
from marple_gym.expectations import TrialSetSpec, all_types, generate_trial_set, make_trial, trial_keys
from marple_gym.expectations.scenarios import scenario_of
from marple_gym.expectations.sets import COMMAND, FORMAT, VERSION
from marple_gym.expectations.trial import Episode
from marple_gym.expectations.unobserved_constraints import occluded

RULE = {rule.name: rule for rule in RULES}
GOAL = (6, 2)
LINE = [(x, 5) for x in range(4, 9)]  # five chairs across the way from (6, 8) to the goal


def counted(episode: Episode) -> Counts:
    return counts_of(episode.evidence())


def test_the_counts_are_what_an_onlooker_sees():
    agent = agent_of({"apple": 40.0})
    straight = chosen(hand_stage([("apple", GOAL)]), agent)  # five steps up, then the pickup
    assert counted(straight) == Counts(steps=6, path_length=5, turns=0, detour=0, obstacles_revealed=0)
    lined = hand_stage([("apple", GOAL)], chairs=LINE)
    round_the_line = chosen(lined, agent)
    counts = counted(round_the_line)
    assert counts.steps == len(round_the_line.actions) and counts.turns >= 2
    x, y = round_the_line.states[-1].agent_pos[0].tolist()  # beside the goal, facing it
    assert counts.path_length > 5 and counts.detour == counts.path_length - (abs(x - 6) + abs(y - 8)) > 0
    hidden = occluded(lined)
    revealed = Episode(hidden, round_the_line.actions, reveal=True, continues=0)
    assert counted(revealed).obstacles_revealed == len(LINE)
    assert counted(Episode(hidden.without_obstacles(), round_the_line.actions, reveal=True)).obstacles_revealed == 0


def test_each_rule_wins_where_its_cue_holds_and_loses_where_it_is_turned_round():
    agent = agent_of({"apple": 40.0})
    open_room, lined = hand_stage([("apple", GOAL)]), hand_stage([("apple", GOAL)], chairs=LINE)
    straight, detour = chosen(open_room, agent), chosen(lined, agent)
    old_way = Episode(open_room, detour.actions)  # AGENT's 2.1: the chairs gone, the old detour walked again
    through = Episode(lined, straight.actions, through=((6, 5),))  # the chairs there, walked through
    agents = hand_trial("action_efficiency", "2.1", agent, [detour], straight, old_way)
    turned = hand_trial("action_efficiency", "2.1", agent, [detour], detour, through)
    for name in ("steps", "path-length", "turns", "detour"):
        assert rate_trial(RULE[name], agents).surprising > rate_trial(RULE[name], agents).expected, name
        assert rate_trial(RULE[name], turned).surprising < rate_trial(RULE[name], turned).expected, name
    screen = occluded(lined).occluder
    behind, empty = lined.with_occluder(screen), open_room.with_occluder(screen)
    run, straight_run = chosen(behind, agent), chosen(empty, agent)
    bend = hand_trial("unobserved_constraints", "3.1", agent, [run], Episode(behind, run.actions, reveal=True,
                      continues=0), Episode(empty, run.actions, reveal=True, continues=0))  # fmt: skip
    walked_through = hand_trial("unobserved_constraints", "3.1", agent, [straight_run],
                                Episode(empty, straight_run.actions, reveal=True, continues=0),
                                Episode(behind, straight_run.actions, reveal=True, continues=0, through=((6, 5),)))  # fmt: skip
    rule = RULE["obstacles-revealed"]
    assert rate_trial(rule, bend).surprising > rate_trial(rule, bend).expected
    assert rate_trial(rule, walked_through).surprising < rate_trial(rule, walked_through).expected
    for rule in RULES:
        assert rule.role == "shortcut" and rule.reads == {"test"}


@pytest.mark.parametrize("kind", all_types())
def test_every_types_pairs_give_the_panel_nothing_to_count(kind):
    """Couples show the same two movements with the roles swapped (3.x's the same two lifts, the episodes equal);
    2.5's two ways are mirror images."""
    scenario = scenario_of(kind)
    trials = [make_trial(k, seed=5) for k in trial_keys("test", 4, [kind])]
    pairs = [(counted(t.expected), counted(t.surprising)) for t in trials]
    if kind in scenario.couples:
        for first, second in (trials[0:2], trials[2:4]):
            assert first.expected.actions == second.surprising.actions
            assert first.surprising.actions == second.expected.actions
            if scenario.name == "unobserved_constraints":
                assert (first.expected, first.surprising) == (second.surprising, second.expected)
        assert pairs[0] == pairs[1][::-1] and pairs[2] == pairs[3][::-1]
    else:
        assert kind == "2.5"
        assert all(expected == surprising for expected, surprising in pairs)
        assert all(t.surprising.through and not t.expected.through for t in trials)


def rating(kind: str, expected: float, surprising: float, i: int) -> Rating:
    return Rating(f"t{i}", scenario_of(kind).name, kind, expected, surprising)


def test_a_set_passes_when_every_rule_lies_in_the_band_on_every_type_and_the_verdict_names_the_cells_outside():
    low, high = PASS_BAND
    assert (low, high) == (0.40, 0.60)
    ties = accuracy_table([rating(k, 1, 1, i) for k in ("1.1", "2.1") for i in range(4)])
    cue = accuracy_table([rating("1.1", 1, 1, i) for i in range(4)] + [rating("2.1", 0, 1, i) for i in range(4)])
    turned = accuracy_table([rating("1.1", 1, 1, i) for i in range(4)] + [rating("2.1", 1, 0, i) for i in range(4)])
    verdict = panel_verdict({"steps": ties, "turns": ties}, ["1.1", "2.1"])
    assert verdict.passes and "passes" in verdict.summary()
    verdict = panel_verdict({"steps": cue, "turns": turned}, ["1.1", "2.1"])
    assert not verdict.passes and verdict.outside == {"steps": {"2.1": 1.0}, "turns": {"2.1": 0.0}}
    assert "steps: 2.1 1.00" in verdict.summary() and "turns: 2.1 0.00" in verdict.summary()


def test_the_verdict_is_recorded_in_the_sets_manifest(tmp_path):
    root = tmp_path / "set"
    generate_trial_set(TrialSetSpec(0, {"train": 0, "validation": 0, "test": 2}, ("1.1",)), root, progress=False,
                       workers=1)  # fmt: skip
    verdict = panel_verdict({"steps": accuracy_table([rating("1.1", 1, 1, i) for i in range(2)])}, ["1.1"])
    record_verdict(root, verdict)
    manifest = read_set_manifest(root, FORMAT, VERSION, COMMAND)  # still a valid set, every file intact
    assert manifest["checks"][CHECK]["passes"] is True and manifest["checks"][CHECK]["band"] == [0.4, 0.6]
    assert json.loads((root / "manifest.json").read_text())["shards"] == manifest["shards"]


def test_every_panel_rule_is_a_registered_method_of_role_shortcut():
    from marple_eval.methods.registry import make_method

    for rule in RULES:
        built = make_method("expectations", rule.name)
        assert type(built) is type(rule) and built.role == "shortcut" and built.reads == {"test"}
    assert make_method("expectations", "bipack").role == "method"
