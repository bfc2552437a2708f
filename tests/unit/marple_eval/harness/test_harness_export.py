"""A family's items for the researchers' tools: the datasets export loads back equal to the set, and
lm-evaluation-harness and Inspect run the exported tasks end to end, with their own command lines, against the
test server on 127.0.0.1 (a fake model with a fixed rule, so the scores are known). The harness tools are the
``harness`` extra; the tests that need one skip, saying so, where it is not installed (and fail in CI, which
installs it: ``MARPLE_REQUIRE_HARNESS=1``)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from llm_process import Server

from marple.cli.main import main
from marple_eval.harness.export import expectation_export, export_items
from marple_eval.harness.items import belief_item, expectation_item, whodunit_items
from marple_eval.harness.scoring import choice_score, parse_test
from marple_gym.beliefs.questions import QuestionSpec, generate_question_set, read_question_set
from marple_gym.expectations import TrialSetSpec, generate_trial_set, read_trial_set

REQUIRED = os.environ.get("MARPLE_REQUIRE_HARNESS") == "1"
"""CI sets it (.ci/run installs the harness extra): there a missing tool fails the test instead of skipping it."""


def missing(what: str) -> None:
    message = f"{what} (the harness extra: pip install -e '.[harness]')"
    if REQUIRED:
        pytest.fail(message)
    pytest.skip(message)


def needs(*modules: str) -> None:
    absent = [m for m in modules if importlib.util.find_spec(m) is None]
    if absent:
        missing(f"{', '.join(absent)} not installed")


@pytest.fixture(scope="module")
def beliefs(tmp_path_factory):
    root = tmp_path_factory.mktemp("beliefs")
    spec = QuestionSpec(seed=3, test_houses=1, episodes_per_house=2, train_episodes=0)
    generate_question_set(spec, root / "set", workers=1, progress=False)
    assert (
        main(["export", str(root / "set"), "--family", "beliefs", "--format", "harness", "--out", str(root / "out")])
        == 0
    )
    return root


@pytest.fixture(scope="module")
def expectations(tmp_path_factory):
    root = tmp_path_factory.mktemp("expectations")
    spec = TrialSetSpec(seed=0, sizes={"train": 0, "validation": 0, "test": 1}, types=("1.1", "3.1"))
    generate_trial_set(spec, root / "set", workers=1, progress=False)
    export_items(*expectation_export(root / "set"), root / "out", "harness")
    return root


def test_a_belief_item_is_the_llm_methods_text_with_its_options_and_frames(beliefs):
    question = read_question_set(beliefs / "set")[0]
    item = belief_item(question)
    assert item.text.endswith("Please respond with either a or b.") and item.target == question.letter
    assert item.text.startswith(item.stem) and all(option in item.text for option in item.options)
    assert len(item.frames) == len(item.frame_captions) == 8


def test_an_expectation_item_asks_which_test_is_surprising_in_the_rating_runs_order(expectations):
    trial = read_trial_set(expectations / "set")[0]
    item = expectation_item(trial)
    assert item.fields["tests"][item.answer] == "surprising" and item.choices == ("1", "2")
    assert "Test video 1:" in item.text and "Test video 2:" in item.text
    assert item.text.endswith("Please respond with either 1 or 2.")
    videos = len(trial.familiarisation) + 2
    assert sorted(set(item.fields["frame_videos"])) == list(range(videos))


def test_replies_are_scored_as_each_source_paper_scores_them():
    assert choice_score("beliefs", " b) because", 1) == 1.0 and choice_score("beliefs", "maybe", 0) is None
    assert parse_test("Test video 2 is odd") == 1 and parse_test("1") == 0 and parse_test("neither") is None
    assert choice_score("expectations", "2", 0) == 0.0
    assert choice_score("whodunit", "Reasoning: hm.\nAnswer: 30", 0) == pytest.approx(0.7)
    assert choice_score("whodunit", "Answer: 30", 1) == pytest.approx(0.3)


def test_the_datasets_export_loads_back_equal_to_the_set(beliefs):
    needs("datasets")
    from datasets import load_dataset

    questions = read_question_set(beliefs / "set")
    loaded = load_dataset(str(beliefs / "out"), split="test")
    rows = {row["id"]: row for row in loaded}
    assert sorted(rows) == sorted(q.id for q in questions)
    for question in questions:
        item, row = belief_item(question), rows[question.id]
        assert (row["text"], row["type"], row["answer"], row["target"]) == (
            item.text,
            item.type,
            item.answer,
            item.target,
        )
        assert row["end_time"] == question.end_time and row["posterior"] == pytest.approx(question.posterior)
        shown = [np.asarray(image.convert("RGB")) for image in row["frames"]]
        assert len(shown) == len(item.frames) and all((a == b).all() for a, b in zip(shown, item.frames))
    one = load_dataset(str(beliefs / "out"), "type_" + questions[0].type.replace(".", "_"), split="test")
    assert set(one["type"]) == {questions[0].type}
    card = (beliefs / "out" / "README.md").read_text()
    assert card.startswith("---\nlicense: mit") and "marple generate --family beliefs" in card
    assert all(key in card for key in ("jin2024marple", "jin2024mmtom"))


def _run(command: list[str], cwd, env: dict[str, str]) -> str:
    done = subprocess.run(command, cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def _tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=os.path.dirname(sys.executable))
    if found is None:
        missing(f"{name} is not on the PATH")
    return found


def test_lm_evaluation_harness_scores_the_exported_tasks_by_log_likelihood(beliefs, tmp_path):
    needs("lm_eval", "datasets")
    server = Server(tmp_path)  # its fake model prefers "a" to "b": accuracy is the share of questions answered a
    try:
        args = f"model=fake,base_url={server.url}/completions,tokenizer_backend=remote,num_concurrent=1,max_retries=1"
        _run(
            [_tool("lm_eval"), "--model", "local-completions", "--tasks", "marple_beliefs", "--include_path",
             str(beliefs / "out" / "lm_eval"), "--model_args", args, "--output_path", str(tmp_path / "results")],
            tmp_path, {"OPENAI_API_KEY": "none", "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"},
        )  # fmt: skip
    finally:
        server.stop()
    (results,) = tmp_path.glob("results/**/results_*.json")
    scores = json.loads(results.read_text())["results"]
    questions = read_question_set(beliefs / "set")
    assert scores["marple_beliefs"]["acc,none"] == pytest.approx(np.mean([q.letter == "a" for q in questions]))
    assert {f"marple_beliefs_{q.type.replace('.', '_')}" for q in questions} <= set(scores)


def test_inspect_runs_the_exported_multiple_choice_tasks(expectations, tmp_path):
    needs("inspect_ai", "openai")
    server = Server(tmp_path, "--answers", json.dumps(["ANSWER: A"]))  # always the first test
    try:
        _run(
            [_tool("inspect"), "eval", str(expectations / "out" / "inspect_tasks.py@marple_expectations"),
             "--model", "openai-api/marple/fake", "--log-dir", str(tmp_path / "logs"), "--log-format", "json",
             "--display", "none", "--no-log-images"],
            tmp_path, {"MARPLE_API_KEY": "none", "MARPLE_BASE_URL": server.url},
        )  # fmt: skip
    finally:
        server.stop()
    (log,) = tmp_path.glob("logs/*.json")
    result = json.loads(log.read_text())
    trials = read_trial_set(expectations / "set")
    first = np.mean([expectation_item(t).answer == 0 for t in trials])
    (score,) = result["results"]["scores"]
    assert result["status"] == "success" and score["metrics"]["accuracy"]["value"] == pytest.approx(first)


def test_whodunit_items_are_the_papers_prompt_at_every_evidence_point(tmp_path):
    from marple_eval.protocol import dataset_episodes
    from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset

    spec = DatasetSpec([Unit.scenario("pillow")], Sizes(1, 1, 1, 1), seed=7, splits=("test",))
    generate_dataset(spec, tmp_path / "data", workers=1, progress=False)
    (episode,) = dataset_episodes(MarpleDataset(tmp_path / "data"), ["pillow"], 1)
    items = list(whodunit_items([episode]))
    assert len(items) == 11 and [i.fields["fraction"] for i in items][::10] == [0.0, 1.0]
    assert all(i.choices == ("0", "100") and "Answer: <an integer from 0 to 100>" in i.text for i in items)
    assert len({i.answer for i in items}) == 1  # one placement a trial, as the evaluation draws it
