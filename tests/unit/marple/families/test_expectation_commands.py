"""``marple generate/evaluate/train/report/benchmark --family expectations`` end to end on a tiny trial set:
shards of trials under a manifest, resumable and refused when the spec differs, every method rated into a results
file (ToMnet trained on the set's training split, its generalisation tests behind an option), a run resumed
from its journal, bad input named with its file (exit 2), and the report's tables and plot."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from marple.cli.main import main
from marple_eval.expectations import RatingResults
from marple_eval.journal import journal_path
from marple_gym.datasets.shards import file_sha256
from marple_gym.expectations import read_trial_set
from marple_gym.expectations.export import read_trials, trial_document

TYPES = "1.1,1.2"
TINY = ["--types", TYPES, "--train-per-type", "3", "--validation-per-type", "0", "--test-per-type", "2"]
TOMNET = ["--model-arg", "epochs=1", "--model-arg", "width=8", "--model-arg", "character=2"]


def run(args: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(args)
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def trial_set(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("expectations") / "set"
    assert main(["generate", "--family", "expectations", "--out", str(root), "--workers", "1", *TINY,
                 "--no-progress"]) == 0  # fmt: skip
    return root


def test_generate_writes_shards_with_checksums_and_resumes_a_killed_run(trial_set, tmp_path, capsys):
    manifest = json.loads((trial_set / "manifest.json").read_text())
    assert manifest["format"] == "marple-expectation-trials" and manifest["complete"]
    files = [f for entry in manifest["shards"].values() for f in entry["files"]]
    assert "test/1.1/shard-00000.jsonl" in files and len(files) == 4
    assert [t.id for t in read_trial_set(trial_set)] == [f"goal_preferences/{t}/test/{i:05d}" for t in ("1.1", "1.2")
                                                         for i in range(2)]  # fmt: skip
    root = tmp_path / "set"
    shutil.copytree(trial_set, root)
    manifest["shards"].pop("test/1.2/shard-00000")
    manifest["complete"] = False
    (root / "manifest.json").write_text(json.dumps(manifest))
    (root / "test/1.2/shard-00000.jsonl").unlink()
    code, out, _ = run(["generate", "--family", "expectations", "--out", str(root), *TINY, "--no-progress"], capsys)
    assert code == 0 and "1 shards written" in out
    assert read_trial_set(root) == read_trial_set(trial_set)
    code, _, err = run(["generate", "--family", "expectations", "--out", str(root), *TINY[:-1], "3"], capsys)
    assert code == 2 and "sizes.test" in err and str(root) in err


def test_every_method_rates_the_set_and_report_prints_tables_and_plot(trial_set, tmp_path, capsys):
    paths = []
    for method in ("uniform", "observer", "bipack", "steps", "tomnet", "tomnet-test-only", "llm"):
        out = tmp_path / f"{method}.json"
        argv = ["evaluate", "--family", "expectations", "--data", str(trial_set), "--model", method, "--out", str(out)]
        argv += [*TOMNET, "--generalisation", "leave_one_type_out"] if method == "tomnet" else []
        argv += TOMNET if method == "tomnet-test-only" else []
        argv += ["--dry-run"] if method == "llm" else []
        code, stdout, err = run([*argv, "--device", "cpu", "--no-progress"], capsys)
        assert code == 0, err
        assert f"results: {out}" in stdout
        paths.append(out)
    assert RatingResults.load(tmp_path / "observer.json").table()["all"].accuracy == 1.0
    assert RatingResults.load(tmp_path / "uniform.json").table()["all"].half == 0.5  # strictly 0: ties are wrong
    tomnet = RatingResults.load(tmp_path / "tomnet.json")
    assert set(tomnet.generalisation["leave_one_type_out"]) == {"without 1.1", "without 1.2"}
    assert (tmp_path / "tomnet.tomnet.pt").is_file()  # trained on the set's training split, kept for a resumed run
    plot = tmp_path / "accuracy.png"
    code, stdout, _ = run(["report", *map(str, paths), "--plot", str(plot)], capsys)
    assert code == 0 and plot.stat().st_size > 0
    assert "| method | 1.1 | 1.2 | Goal preferences | all |" in stdout
    assert "| llm (dry run) |" in stdout and "Generalisation, leave_one_type_out (tomnet)" in stdout
    methods, panel, key = (
        stdout.split("The shortcut panel")[0],
        *stdout.split("The shortcut panel")[1].split("The answer key"),
    )
    assert "| tomnet |" in methods and "| bipack |" in methods and "| steps |" not in methods
    assert "| steps |" in panel and "| tomnet-test-only |" in panel and "| observer: answer key (ceiling) |" in key
    assert "shortcut panel: " in stdout and "observer" not in methods
    assert RatingResults.load(tmp_path / "tomnet-test-only.json").role == "shortcut"


def test_the_runs_of_one_method_with_several_seeds_make_one_row(trial_set, tmp_path):
    from marple.families.expectations import pooled_tables

    run = RatingResults.load(_rated(trial_set, tmp_path, "observer"))
    seeds = [RatingResults("tomnet", {"seed": s}, run.ratings) for s in range(3)]
    tables = pooled_tables([*seeds, run])
    assert list(tables) == ["method", "answer_key"]
    assert tables["method"]["tomnet (3 seeds)"]["all"].seeds == 3
    assert list(tables["answer_key"]) == ["observer: answer key (ceiling)"]


def _rated(trial_set: Path, tmp_path: Path, method: str) -> Path:
    out = tmp_path / f"{method}.json"
    argv = ["evaluate", "--family", "expectations", "--data", str(trial_set), "--method", method, "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    return out


def test_export_writes_the_set_in_agents_tree(trial_set, tmp_path, capsys):
    code, stdout, err = run(["export", "--family", "expectations", str(trial_set), "--format", "agent", "--out",
                             str(tmp_path / "agent")], capsys)  # fmt: skip
    assert code == 0, err
    files = sorted((tmp_path / "agent").rglob("*.json"))
    assert len(files) == 10 and "10 trial files in AGENT's tree" in stdout
    exported = [trial_document(t) for t in read_trials(tmp_path / "agent") if t.key.split == "test"]
    assert exported == [trial_document(t) for t in read_trial_set(trial_set, "test")]
    code, _, err = run(["export", "--family", "expectations", str(trial_set), "--format", "agent"], capsys)
    assert code == 2 and "--out FOLDER is needed" in err


def test_an_interrupted_rating_resumes_from_its_journal(trial_set, tmp_path, capsys):
    out = tmp_path / "observer.json"
    argv = ["evaluate", "--family", "expectations", "--data", str(trial_set), "--model", "observer", "--out", str(out)]
    assert run([*argv, "--no-progress"], capsys)[0] == 0
    done = json.loads(out.read_text())
    header = {"family": "expectations", "method": "observer", "settings": done["settings"]}
    first = {**done["ratings"][0], "expected": 9.0, "surprising": 1.0}  # a mark: read back, not rated again
    journal_path(out).write_text(
        json.dumps(header) + "\n" + json.dumps({"key": first["trial"], "record": first}) + "\n"
    )
    out.unlink()
    assert run([*argv, "--no-progress"], capsys)[0] == 0
    again = json.loads(out.read_text())
    assert again["ratings"][0] == first and again["ratings"][1:] == done["ratings"][1:]
    assert not journal_path(out).exists()


def test_a_corrupt_trial_file_is_named_and_bad_requests_exit_2(trial_set, tmp_path, capsys):
    root = tmp_path / "set"
    shutil.copytree(trial_set, root)
    target = root / "test/1.1/shard-00000.jsonl"
    first, *rest = target.read_text().splitlines()
    doc = json.loads(first)
    doc["familiarization"][0]["actions"][0] = "fly"
    target.write_text("\n".join([json.dumps(doc), *rest]) + "\n")
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["shards"]["test/1.1/shard-00000"]["files"][str(target.relative_to(root))] = file_sha256(target)
    (root / "manifest.json").write_text(json.dumps(manifest))
    argv = ["evaluate", "--family", "expectations", "--out", str(tmp_path / "r.json"), "--no-progress"]
    code, _, err = run([*argv, "--data", str(root)], capsys)
    assert code == 2 and f"{target}, line 1" in err and "actions[0]: unknown action 'fly'" in err
    for extra, words in [
        (["--model", "oracle"], "unknown expectations method 'oracle'"),
        (["--model", "tomnet", "--checkpoint", "nowhere.pt"], "nowhere.pt: no such ToMnet checkpoint"),
        (["--model", "observer", "--generalisation"], "only a learned method"),
        (["--model", "tomnet", "--model-arg", "depth=3"], "tomnet takes width"),
    ]:
        code, _, err = run([*argv, "--data", str(trial_set), *extra], capsys)
        assert code == 2 and words in err, err
    assert not (tmp_path / "r.json").exists()


def test_a_manifest_whose_spec_was_edited_is_refused_naming_it(trial_set, tmp_path, capsys):
    root = tmp_path / "set"
    shutil.copytree(trial_set, root)
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["spec"]["seed"] = 7  # every file still matches its checksum; the spec no longer made them
    (root / "manifest.json").write_text(json.dumps(manifest))
    argv = ["evaluate", "--family", "expectations", "--data", str(root), "--out", str(tmp_path / "r.json")]
    code, _, err = run([*argv, "--no-progress"], capsys)
    assert code == 2 and f"{root / 'manifest.json'}: spec: differs from the spec shard" in err
    assert not (tmp_path / "r.json").exists()


def test_generating_a_set_of_no_trials_is_refused(tmp_path, capsys):
    sizes = ["--train-per-type", "0", "--validation-per-type", "0", "--test-per-type", "0"]
    code, _, err = run(["generate", "--family", "expectations", "--out", str(tmp_path / "set"), *sizes], capsys)
    assert code == 2 and "every split has 0 trials per type" in err
    assert not (tmp_path / "set").exists()


@pytest.mark.slow
def test_the_benchmark_goes_from_nothing_to_the_table_and_plot(tmp_path, capsys):
    root = tmp_path / "bench"
    argv = ["benchmark", "--family", "expectations", "--preset", "quick", "--out", str(root), "--device", "cpu"]
    code, _, err = run([*argv, "--workers", "1", "--no-progress"], capsys)
    assert code == 0, err
    table = (root / "table.md").read_text()
    assert (root / "accuracy.png").stat().st_size > 0 and "| tomnet |" in table and "| tomnet-test-only |" in table
    manifest = json.loads((root / "data" / "manifest.json").read_text())
    assert manifest["checks"]["shortcut_panel"]["band"] == [0.4, 0.6]
    assert set(json.loads((root / "timings.json").read_text())["cpu_seconds"]) >= {"generating the set", "observer"}
