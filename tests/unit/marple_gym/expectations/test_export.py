"""The JSON export: AGENT's tree, a document per trial that reads back to the same trial, read strictly; a set's
documents leave the per-step states out and read back the same."""

from __future__ import annotations

import copy
import json

import pytest

from marple_gym.expectations.export import read_trial, read_trials, trial_document, trial_path, write_trials
from marple_gym.expectations.scenarios import make_trial
from marple_gym.expectations.trial import TrialError, TrialKey

KEYS = [
    TrialKey("goal_preferences", "1.2", "test", 0),
    TrialKey("action_efficiency", "2.4", "train", 1),
    TrialKey("unobserved_constraints", "3.1", "test", 0),
    TrialKey("cost_reward_trade_offs", "4.1", "validation", 2),
    TrialKey("action_efficiency", "2.5", "test", 0),
]


@pytest.fixture(scope="module")
def trials():
    return [make_trial(k, seed=3) for k in KEYS]


def test_trials_are_written_in_agents_tree_and_read_back_the_same(trials, tmp_path):
    paths = write_trials(trials, tmp_path)
    assert paths[0] == tmp_path / "scenario_1_goal_preferences" / "type_1.2" / "test_set" / "Trial_00000.json"
    assert paths == [trial_path(tmp_path, t.key) for t in trials]
    back = {t.id: t for t in read_trials(tmp_path)}
    assert back == {t.id: t for t in trials}


def test_a_document_holds_every_step_with_visibility(trials):
    doc = trial_document(trials[2])  # unobserved constraints: an occluder, lifted at the tests' end
    assert set(doc) >= {"familiarization", "expected", "surprising", "agent", "scenario_number"}
    fam = doc["familiarization"][0]
    assert len(fam["state_info"]) == len(fam["actions"]) + 1
    hidden_chairs = [e for e in fam["state_info"][0].values() if e["class"] == "obstacle" and not e["visible"]]
    assert hidden_chairs and fam["state_info"][0]["occluder"]["visible"]
    last = doc["expected"]["state_info"][-1]
    assert not last["occluder"]["visible"] and all(e["visible"] for e in last.values() if e["class"] == "obstacle")
    assert doc["surprising"]["continues"] == 0 and "surprising" not in trial_document(trials[1])
    json.dumps(doc)  # plain JSON


def test_a_path_through_the_chairs_is_recorded_and_shown_with_the_chairs_standing(trials):
    doc = trial_document(trials[4])  # 2.5: the surprising agent walks through the line of chairs
    through = doc["surprising"]["through"]
    assert through and doc["expected"]["through"] == []
    inside = [s for s in doc["surprising"]["state_info"] if s["agent"]["position"] in through]
    chairs = {tuple(e["position"]) for e in inside[0].values() if e["class"] == "obstacle"}
    assert inside and {tuple(c) for c in through} <= chairs  # the chairs stand while the agent is in one
    assert read_trial(doc) == trials[4]


def test_a_sets_documents_leave_the_states_out_and_read_back_the_same(trials):
    for trial in trials:
        doc = trial_document(trial, states=False)
        assert all("state_info" not in v for v in doc["familiarization"] + [doc["expected"]])
        assert read_trial(json.loads(json.dumps(doc))) == trial


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(colour="red"), "colour: unknown key"),
        (lambda d: d.update(version=1), "version: expected an integer in"),
        (lambda d: d["expected"]["through"].append([0, 0]), "expected.through: an episode passes only"),
        (lambda d: d["expected"]["actions"].__setitem__(0, "jump"), "expected.actions[0]: unknown action 'jump'"),
        (lambda d: d["expected"]["state_info"][1]["agent"].update(position=[1, 1]), "expected.state_info: differs"),
        (lambda d: d["expected"]["actions"].insert(0, "pickup"), "expected.actions: action 0"),
        (lambda d: d.pop("surprising"), "surprising: test trials hold a surprising video"),
        (lambda d: d.update(id="goal_preferences/1.1/test/00000"), "id: says"),
        (lambda d: d["familiarization"][0]["scene_config"].update(obstacles=[[0, 0]]), "not a stage the world can be"),
    ],
)
def test_a_malformed_document_is_refused_naming_the_file_and_field(trials, tmp_path, change, message):
    doc = copy.deepcopy(trial_document(trials[0]))
    change(doc)
    path = tmp_path / "Trial_00000.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(TrialError, match=str(path)) as caught:
        read_trial(path)
    assert message in str(caught.value)


def test_a_file_that_is_not_json_is_refused(tmp_path):
    path = tmp_path / "Trial_00000.json"
    path.write_text("{not json")
    with pytest.raises(TrialError, match="malformed JSON"):
        read_trial(path)
