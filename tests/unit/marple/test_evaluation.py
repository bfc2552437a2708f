"""``marple.evaluation``: what ``marple evaluate`` runs, as a library (a model's run, a dry run, responses)."""

from __future__ import annotations

import json

import pytest
from study_fixtures import body, participant_lines

from marple.evaluation import MethodEvaluation, evaluate_method, method_protocol, score_responses
from marple_eval.llm.model import LLMMethod
from marple_eval.methods.reference import DistanceMethod
from marple_gym.datasets import DatasetSpec, Sizes, Unit, generate_dataset


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("evaluation") / "data"
    spec = DatasetSpec([Unit.scenario("laundry")], Sizes(1, 1, 1, 1), seed=7, splits=("test",))
    generate_dataset(spec, root, workers=1, progress=False)
    return root


def test_a_method_run_is_saved_and_a_device_it_cannot_use_is_noted(data, tmp_path):
    out = tmp_path / "distance.json"
    request = MethodEvaluation("distance", str(data), device="cpu", limit=1, out=str(out), progress=False)
    outcome = evaluate_method(request)
    assert outcome.out == out and outcome.run is not None and outcome.summary == ""
    assert json.loads(out.read_text())["settings"]["dataset"] == str(data)
    assert outcome.notes == ["--device cpu does not apply to method 'distance': it runs no learned model"]


def test_a_device_a_method_cannot_use_is_warned_of_once_before_the_run_naming_the_method(data, tmp_path, capsys):
    from marple.cli.main import main

    out = tmp_path / "uniform.json"
    args = ["evaluate", "--data", str(data), "--model", "uniform", "--device", "cuda:7", "--out", str(out)]
    assert main([*args, "--no-progress"]) == 0
    err = capsys.readouterr().err
    note = "note: --device cuda:7 does not apply to method 'uniform': it runs no learned model"
    assert err.count(note) == 1 and err.index(note) < err.index("warning: uniform")  # said before the run
    assert "device" not in json.loads(out.read_text())["settings"]


def test_a_dry_run_of_a_method_that_calls_no_service_is_refused(data, tmp_path):
    request = MethodEvaluation("distance", str(data), dry_run=True, out=str(tmp_path / "r.json"))
    with pytest.raises(ValueError, match="--dry-run: method 'distance' calls no service"):
        evaluate_method(request)


def test_an_llm_is_scored_without_the_cutoff_unless_one_is_asked_for():
    original = MethodEvaluation(protocol="original", seed=3)
    assert (
        method_protocol(original, LLMMethod).cutoff is None and method_protocol(original, DistanceMethod).cutoff == 40
    )
    asked = MethodEvaluation(protocol="original", protocol_changes={"cutoff": 20})
    assert method_protocol(asked, LLMMethod).cutoff == 20 and method_protocol(asked, LLMMethod).seed == 0


def test_responses_are_scored_saved_and_written_as_csv(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_bytes(body(*participant_lines("c1", "p1")))
    outcome = score_responses([str(path)], csv=str(tmp_path / "a.csv"), out=str(tmp_path / "human.json"))
    assert outcome.run is not None and outcome.run.method == "human" and (tmp_path / "human.json").is_file()
    assert outcome.summary == f"answers, one per row: {tmp_path / 'a.csv'} (22 rows)"


@pytest.mark.parametrize(
    ("model", "args", "kind"),
    [("simulation", [], "vision"), ("simulation", ["--model-arg", "variant=all"], "language"), ("bip", [], "language")],
)
def test_a_method_without_its_agent_models_is_refused_before_it_runs_naming_the_agents_to_pass(
    data, tmp_path, capsys, model, args, kind
):
    from marple.cli.main import main

    out = tmp_path / "r.json"
    code = main(["evaluate", "--data", str(data), "--model", model, *args, "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert f"--model {model} needs an agent model for every suspect" in err
    assert (
        f"--agent 'A=runs/{{scenario}}-in-A-{kind}/policy.pt' --agent 'B=runs/{{scenario}}-in-B-{kind}/policy.pt'"
        in err
    )
    assert "--agent ROLE=planner" in err
