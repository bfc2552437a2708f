"""``marple generate/evaluate/train/report/benchmark --family beliefs`` end to end on a tiny question set:
sharded and resumable generation, a different spec refused by name, every method scored into a results file
that resumes from its journal, bad input named with its file (exit 2), and the report's tables and plot."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from marple.cli.main import main
from marple_eval.beliefs import BeliefResults
from marple_eval.journal import journal_path
from marple_gym.beliefs.questions import read_question_set
from marple_gym.beliefs.questions.sets import read_panel
from marple_gym.datasets.shards import file_sha256

TINY = ["--test-houses", "1", "--episodes-per-house", "4", "--train-episodes", "6", "--no-progress"]


def run(args: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(args)
    except SystemExit as exc:  # the parser refused an option
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def question_set(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("beliefs") / "set"
    assert main(["generate", "--family", "beliefs", "--out", str(root), "--workers", "1", *TINY]) == 0
    return root


@pytest.fixture(scope="module")
def policy(question_set, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("policy")
    argv = ["train", "--family", "beliefs", "--data", str(question_set), "--out", str(out), "--max-steps", "3"]
    assert main([*argv, "--accelerator", "cpu", "--no-progress"]) == 0
    return out / "belief-policy.pt"


def test_generate_writes_shards_with_checksums_an_mmtom_file_and_leaves_a_finished_set_alone(question_set, capsys):
    manifest = json.loads((question_set / "manifest.json").read_text())
    assert manifest["format"] == "marple-belief-questions" and manifest["complete"]
    for entry in manifest["shards"].values():
        for name, sha in entry["files"].items():
            assert file_sha256(question_set / name) == sha
    rows = [json.loads(line) for line in (question_set / "mmtom" / "questions.jsonl").read_text().splitlines()]
    assert len(rows) == len(read_question_set(question_set)) > 0
    assert set(rows[0]) == {"question", "answer", "question_type", "test", "episode", "start_time", "end_time",
                            "answer_list"}  # fmt: skip
    before = {p: p.stat().st_mtime_ns for p in question_set.rglob("*")}
    code, out, _ = run(["generate", "--family", "beliefs", "--out", str(question_set), "--workers", "1", *TINY], capsys)
    assert code == 0 and "0 shards written" in out
    assert {p: p.stat().st_mtime_ns for p in question_set.rglob("*")} == before


def test_a_killed_generation_resumes_with_the_shards_it_lacks(question_set, tmp_path, capsys):
    root = tmp_path / "set"
    shutil.copytree(question_set, root)
    manifest = json.loads((root / "manifest.json").read_text())
    lost = "test/shard-00000"
    for name in manifest["shards"].pop(lost)["files"]:
        (root / name).unlink()  # as if the run was killed before this shard landed
    manifest["complete"] = False
    (root / "manifest.json").write_text(json.dumps(manifest))
    shutil.rmtree(root / "mmtom")
    code, out, _ = run(["generate", "--family", "beliefs", "--out", str(root), "--workers", "1", *TINY], capsys)
    assert code == 0 and "1 shards written" in out
    assert read_question_set(root) == read_question_set(question_set)
    assert (root / "mmtom" / "questions.jsonl").read_text() == (question_set / "mmtom" / "questions.jsonl").read_text()


def test_a_set_of_another_spec_in_the_folder_is_refused_naming_the_setting(question_set, capsys):
    argv = ["generate", "--family", "beliefs", "--out", str(question_set), *TINY[:-1], "--per-type", "1"]
    code, _, err = run(argv, capsys)
    assert code == 2 and str(question_set) in err and "questions.per_type" in err


def test_every_method_scores_the_set_into_a_results_file_and_report_prints_the_tables(
    question_set, policy, tmp_path, capsys
):
    paths = []
    for method in ("uniform", "observer", "bip", "llm"):
        out = tmp_path / f"{method}.json"
        argv = ["evaluate", "--family", "beliefs", "--data", str(question_set), "--model", method, "--out", str(out)]
        argv += ["--checkpoint", str(policy)] if method == "bip" else []
        argv += ["--dry-run"] if method == "llm" else []
        argv += [] if method == "bip" else ["--device", "cpu"]  # bip on the default, auto: resolved to a device
        code, stdout, err = run([*argv, "--no-progress"], capsys)
        assert code == 0, err
        assert "| all |" in stdout and f"results: {out}" in stdout
        paths.append(out)
    observer = BeliefResults.load(tmp_path / "observer.json")
    assert observer.scores["all"]["accuracy"] == 1.0 and observer.scores["all"]["brier"] < 1e-12
    assert BeliefResults.load(tmp_path / "uniform.json").scores["all"]["accuracy"] == 0.5
    llm = BeliefResults.load(tmp_path / "llm.json")
    assert llm.method == "llm (dry run)" and (tmp_path / "llm.prompts.jsonl").is_file()
    assert BeliefResults.load(tmp_path / "bip.json").settings["policy_sha256"] == file_sha256(policy)
    plot = tmp_path / "accuracy.png"
    code, stdout, _ = run(["report", *map(str, paths), "--plot", str(plot)], capsys)
    assert code == 0 and plot.stat().st_size > 0
    assert "| type | n | uniform | bip | llm (dry run) | answer key (ceiling) |" in stdout and "Brier" in stdout
    assert (
        f"shortcut panel: **passes** (every rule within 0.40-0.60 on every type) (recorded with the set {question_set})"
        in stdout
    )


def test_an_interrupted_evaluation_resumes_from_its_journal_even_with_a_torn_last_line(question_set, tmp_path, capsys):
    out = tmp_path / "observer.json"
    argv = ["evaluate", "--family", "beliefs", "--data", str(question_set), "--model", "observer", "--out", str(out)]
    assert run([*argv, "--no-progress"], capsys)[0] == 0
    done = BeliefResults.load(out)
    header = json.loads(json.dumps({"family": "beliefs", "method": "observer", "settings": done.settings}))
    first = {**done.answers[0], "p": [0.25, 0.75]}  # a mark: read back from the journal, not answered again
    journal = journal_path(out)
    journal.write_text(
        json.dumps(header) + "\n" + json.dumps({"key": first["id"], "record": first}) + "\n" + '{"key": "te'
    )
    out.unlink()
    assert run([*argv, "--no-progress"], capsys)[0] == 0
    again = BeliefResults.load(out)
    assert again.answers[0]["p"] == [0.25, 0.75] and again.answers[1:] == done.answers[1:]
    assert not journal.exists()


def test_a_journal_of_another_method_is_refused_by_name(question_set, tmp_path, capsys):
    out = tmp_path / "r.json"
    journal_path(out).write_text(json.dumps({"family": "beliefs", "method": "uniform", "settings": {}}) + "\n")
    argv = ["evaluate", "--family", "beliefs", "--data", str(question_set), "--model", "observer", "--out", str(out)]
    code, _, err = run([*argv, "--no-progress"], capsys)
    assert code == 2 and str(journal_path(out)) in err and "other settings (method, settings)" in err


def test_a_corrupt_question_line_is_named_with_its_file_and_line(question_set, tmp_path, capsys):
    root = tmp_path / "set"
    shutil.copytree(question_set, root)
    target = root / "mmtom" / "beliefs.jsonl"  # the balanced test split, which evaluate reads
    lines = target.read_text().splitlines()
    lines[0] = lines[0][:40]
    target.write_text("\n".join(lines) + "\n")
    argv = ["evaluate", "--family", "beliefs", "--data", str(root), "--model", "observer", "--out", str(tmp_path / "r")]
    code, _, err = run([*argv, "--no-progress"], capsys)
    assert code == 2 and str(target) in err and "SHA-256" in err  # the manifest's checksum catches it first
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["shards"]["mmtom"]["files"]["mmtom/beliefs.jsonl"] = file_sha256(target)
    (root / "manifest.json").write_text(json.dumps(manifest))
    code, _, err = run([*argv, "--no-progress"], capsys)
    assert code == 2 and str(target) in err and "line 1" in err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--model", "oracle"], "unknown beliefs method 'oracle'"),
        (["--model", "bip", "--checkpoint", "nowhere/belief-policy.pt"], "nowhere/belief-policy.pt: no belief policy"),
        (["--model", "observer", "--dry-run"], "calls no service"),
        (["--model", "observer", "--agent", "A=planner"], "--agent A=planner: not an option of --family beliefs"),
        (["--method", "observer", "--method-arg", "zzz=1"], "beliefs method 'observer' takes no argument zzz"),
    ],
)
def test_bad_requests_exit_2_naming_the_problem(question_set, tmp_path, capsys, extra, words):
    argv = ["evaluate", "--family", "beliefs", "--data", str(question_set), "--out", str(tmp_path / "r.json")]
    code, _, err = run([*argv, *extra, "--no-progress"], capsys)
    assert code == 2 and words in err and not (tmp_path / "r.json").exists()


def test_a_folder_without_a_set_is_named_with_the_command_that_writes_one(tmp_path, capsys):
    code, _, err = run(["evaluate", "--family", "beliefs", "--data", str(tmp_path), "--no-progress"], capsys)
    assert code == 2 and str(tmp_path) in err and "marple generate --family beliefs" in err


@pytest.mark.slow
def test_the_benchmark_goes_from_nothing_to_the_table_and_plot(tmp_path, capsys):
    root = tmp_path / "bench"
    argv = ["benchmark", "--family", "beliefs", "--preset", "quick", "--out", str(root), "--device", "cpu"]
    code, stdout, err = run([*argv, "--workers", "1", "--no-progress", "--train-steps", "3"], capsys)
    assert code == 0, err
    assert (root / "accuracy.png").stat().st_size > 0 and "| bip training, seed 2 (3 steps) |" in stdout
    table = (root / "table.md").read_text()
    header = "| type | n | uniform | llm (dry run) | bip-privileged | bip, 3 seeds | always (a) |"
    assert header in table and "| text classifier | answer key (ceiling) |" in table
    assert "shortcut panel: **" in table and read_panel(root / "data") is not None
    assert "few test questions of" in err  # the quick set is too small to compare methods on
    code, stdout, _ = run([*argv, "--workers", "1", "--no-progress"], capsys)  # again: everything kept
    assert code == 0 and "scoring" not in stdout and "training" not in stdout and "| shortcut panel |" not in stdout
