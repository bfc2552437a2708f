"""One results envelope: every family's results file starts with the same fields, is saved atomically and read
strictly, and the files written before the envelope (each family's own format) still load."""

from __future__ import annotations

import json

import pytest

from marple_eval.beliefs import BeliefResults
from marple_eval.expectations import Rating, RatingResults
from marple_eval.items import ItemResults, answer_record, score_items
from marple_eval.methods.base import ROLES, Method
from marple_eval.results import ENVELOPE, ResultsError, RunResults, TrialResult, results_family

TRIAL = TrialResult("laundry/h00/000", "laundry", 10, [0, 10], [0.5, 0.75], [{"swap": False, "p_a": [0.5, 0.75],
                                                                               "p_b": [0.5, 0.25]}])  # fmt: skip
ANSWER = {"id": "test/h000/0000/1.1/3", "type": "1.1", "answer": 0, "posterior": 1.0, "p": [0.9, 0.1]}
SCORES = {"all": {"n": 1, "accuracy": 1.0, "low": 1.0, "high": 1.0, "chance": 0.5, "brier": 0.01}}
RATING = Rating("goal_preferences/1.1/test/00000", "goal_preferences", "1.1", 0.4, 3.1)


def every_family() -> list:
    records = [answer_record({"id": "a", "type": "x", "answer": 1}, 1)]
    return [
        RunResults("ideal", {"name": "ideal"}, [TRIAL], role="answer_key"),
        BeliefResults("observer", {}, [ANSWER], SCORES, role="answer_key"),
        RatingResults("tomnet", {}, [RATING]),
        ItemResults("guess", {}, records, score_items(records), role="shortcut", of="toy"),
    ]


@pytest.mark.parametrize("results", every_family(), ids=lambda r: type(r).__name__)
def test_every_familys_results_start_with_the_one_envelope_and_read_back(results, tmp_path):
    path = results.save(tmp_path / "r.json")
    document = json.loads(path.read_text())
    assert list(document)[: len(ENVELOPE)] == list(ENVELOPE)
    assert document["format"] == "marple-results" and document["version"] == 3
    family = results.of if isinstance(results, ItemResults) else results.family
    assert document["family"] == family == results_family(path)
    loaded = ItemResults.load_of("toy", path) if isinstance(results, ItemResults) else type(results).load(path)
    assert (loaded.method, loaded.role, loaded.settings, loaded.created) == (
        results.method, results.role, results.settings, results.created,
    )  # fmt: skip
    assert loaded.records() == results.records()


def test_a_file_of_another_family_is_refused_naming_its_family(tmp_path):
    path = BeliefResults("observer", {}, [ANSWER], SCORES).save(tmp_path / "beliefs.json")
    with pytest.raises(ResultsError, match="family: results of beliefs, not of expectations"):
        RatingResults.load(path)


def test_results_written_before_the_envelope_still_load(tmp_path):
    old = {
        "whodunit.json": {"format": "marple-results", "version": 2, "method": "m", "settings": {},
                          "trials": [json.loads(json.dumps(TRIAL.__dict__))]},
        "beliefs.json": {"format": "marple-belief-results", "version": 1, "method": "observer", "settings": {},
                         "answers": [ANSWER], "scores": SCORES},
        "expectations.json": {"format": "marple-expectation-results", "version": 1, "method": "exact",
                              "settings": {}, "ratings": [RATING.to_dict()], "generalisation": {}},
    }  # fmt: skip
    for name, document in old.items():
        (tmp_path / name).write_text(json.dumps(document))
    assert RunResults.load(tmp_path / "whodunit.json").trials[0].p_culprit == [0.5, 0.75]
    assert BeliefResults.load(tmp_path / "beliefs.json").answers == [ANSWER]
    assert RatingResults.load(tmp_path / "expectations.json").ratings == [RATING]
    assert [results_family(tmp_path / n) for n in old] == ["whodunit", "beliefs", "expectations"]
    assert all(type(r).load(tmp_path / f"{r.family}.json").role == "method" for r in every_family()[:3])


def test_a_method_has_one_of_three_roles():
    assert ROLES == ("method", "shortcut", "answer_key")
    with pytest.raises(TypeError, match="role is 'oracle'"):
        type("Oracle", (Method,), {"role": "oracle"})
