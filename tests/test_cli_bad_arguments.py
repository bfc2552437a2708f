"""Every subcommand refuses bad arguments with the option named, no traceback, and nothing written."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from paths import ROOT

from marple.cli.main import main
from marple_eval.methods.guard import MethodError
from marple_eval.methods.whodunit import WhodunitMethod
from marple_eval.protocol import ProtocolSettings, dataset_episodes, evaluate
from marple_eval.results import ResultsError
from marple_gym.datasets import MarpleDataset
from marple_gym.datasets.generate import generate_dataset
from marple_gym.datasets.manifest import DatasetError
from marple_gym.datasets.spec import DatasetSpec, Sizes, Unit


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cli-bad") / "D"
    spec = DatasetSpec([Unit.scenario("laundry")], Sizes(1, 3, 1, 1), seed=2)
    generate_dataset(spec, root, workers=1, progress=False)
    return root


def listing(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def run_main(args: list[str], capsys) -> tuple[int, str]:
    try:
        code = main(args)
    except SystemExit as exc:  # the parser refused an option (argparse exits)
        code = exc.code
    return code, capsys.readouterr().err


BAD = [
    (["envs", "--bogus"], "unrecognized arguments: --bogus"),
    (["generate", "--scale", "inf"], "argument --scale: expected a finite number"),
    (["generate", "--scale", "nan"], "argument --scale: expected a finite number"),
    (["generate", "--workers", "0"], "argument --workers: expected an integer >= 1"),
    (["generate", "--workers", "-2"], "argument --workers: expected an integer >= 1"),
    (["generate", "--seed", "-1"], "argument --seed: expected an integer in [0,"),
    (["generate", "--test-houses", "0"], "argument --test-houses: expected an integer in [1,"),
    (["generate", "--shard-size", "x"], "argument --shard-size: expected an integer, got 'x'"),
    (["generate", "--config", "nowhere.json"], "nowhere.json: no such file"),
    (["generate", "--scenario", "laundry", "--config", '{"width": 5, "height": 5}'], "cannot"),
    (["stats", "--episodes", "0"], "argument --episodes: expected an integer >= 1"),
    (["stats", "--seed", "-3"], "argument --seed"),
    (["stats", "--data", "nowhere"], "nowhere: no dataset here"),
    (["play", "--tile-size", "0"], "argument --tile-size: expected an integer in [8, 256]"),
    (["play", "--seed", "-5"], "argument --seed"),
    (["replay", "--fps", "0"], "argument --fps: expected a finite number in (0.0, 120.0]"),
    (["replay", "--index", "-1"], "argument --index: expected an integer >= 0"),
    (["study", "--data", "{D}", "--participant", "p", "--out", "s.jsonl", "--limit", "0"], "argument --limit"),
    (["study", "--data", "nowhere", "--participant", "p", "--out", "s.jsonl"], "nowhere: no dataset here"),
    (["study-score", "r.jsonl", "--set", "{D}"], "neither a belief question set nor an expectation trial set"),
    # A whodunit dataset's study takes none of the belief and expectation studies' options, whatever their values.
    (["study-web", "--data", "{D}", "--out", "W", "--fps", "0"], "--fps 0: not an option of --family whodunit"),
    (["study-web", "--data", "{D}", "--out", "W", "--pause", "-1"], "--pause -1: not an option of --family whodunit"),
    (["study-web", "--data", "{D}", "--out", "W", "--frames", "0"], "--frames 0: not an option of --family whodunit"),
    (["train", "--data", "{D}", "--devices", "0"], "argument --devices: expected 'auto' or an integer >= 1"),
    (["train", "--data", "{D}", "--lr", "-1", "--out", "T"], "argument --lr: expected a finite number > 0.0"),
    (["train", "--data", "{D}", "--max-minutes", "nan"], "argument --max-minutes"),
    (["train", "--data", "{D}", "--batch-size", "0"], "argument --batch-size"),
    (["train", "--data", "nowhere", "--out", "T"], "nowhere: no dataset here"),
    (["evaluate", "--data", "{D}", "--limit", "0"], "argument --limit: expected an integer >= 1"),
    (["evaluate", "--data", "{D}", "--limit", "-1"], "argument --limit: expected an integer >= 1"),
    (["evaluate", "--data", "{D}", "--workers", "0"], "argument --workers"),
    (
        [
            "evaluate",
            "--data",
            "{D}",
            "--model",
            "simulation",
            "--agent",
            "A=/nope.pt",
            "--agent",
            "B=planner",
            "--out",
            "r.json",
        ],
        "--agent A: no such policy checkpoint /nope.pt",
    ),
    (["evaluate", "--data", "nowhere", "--out", "r.json"], "nowhere: no dataset here"),
    (
        ["evaluate", "--data", "{D}", "--model", "simulation", "--agent", "C=planner", "--out", "r.json"],
        "--agent C: no scenario of this run has a role C (their roles: A, B)",
    ),
    (
        ["evaluate", "--data", "{D}", "--model", "simulation", "--agent", "A=p/{scenaro}.pt", "--agent", "B=planner"],
        "--agent A: 'p/{scenaro}.pt' is not a template of {scenario} and {role} (no field {scenaro}",
    ),
    (
        ["evaluate", "--data", "{D}", "--model", "simulation", "--agent", "A=p/{0}.pt", "--agent", "B=planner"],
        "--agent A: 'p/{0}.pt' is not a template of {scenario} and {role} (a numbered field",
    ),
    (["generate", "--scenario", "laundry", "--config", '{"Grid": {"auto": [1]}}'], "Grid.auto: expected a JSON object"),
    *(
        (
            ["evaluate", "--data", "{D}", "--model", model, "--model-arg", "agent=mcts", "--model-arg", arg],
            f"simulations must be a whole number from 0 to 4096, got {got}",
        )
        for model in ("simulation", "bip")
        for arg, got in (("simulations=1.5", "1.5"), ("simulations=true", "True"), ("simulations=1e9", "1000000000.0"))
    ),
    (["evaluate", "--data", "{D}", "--model", "simulation", "--model-arg", "rollouts=1.5"], "rollouts must be a whole"),
    (["benchmark", "--mcts", "5000"], "argument --mcts: expected an integer in [0, 4096]"),
    (["report", "nowhere.json"], "nowhere.json: no such results file"),
    (["report", "--slices", "no-such-series"], "--slices no-such-series: no such series folder"),
    (["benchmark", "--trials", "0"], "argument --trials"),
    (["benchmark", "--rollouts", "-1"], "argument --rollouts"),
    (["benchmark", "--devices", "0"], "argument --devices"),
]


@pytest.mark.parametrize("args, message", BAD, ids=[" ".join(a[:3]) for a, _ in BAD])
def test_bad_arguments_name_the_problem_and_write_nothing(args, message, data, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    args = [a.replace("{D}", str(data)) for a in args]
    before, dataset_before = listing(tmp_path), listing(data)
    code, err = run_main(args, capsys)
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert listing(tmp_path) == before and listing(data) == dataset_before


def test_a_config_that_cannot_be_built_leaves_no_output_folder(tmp_path, capsys):
    out = tmp_path / "out"
    code, err = run_main(
        ["generate", "--scenario", "laundry", "--config", '{"width": 7, "height": 7}', "--out", str(out)], capsys
    )
    assert code == 2 and "error:" in err and not out.exists()


def test_no_traceback_reaches_the_terminal_without_verbose(tmp_path):
    for args in (["generate", "--scale", "inf"], ["report", str(tmp_path / "none.json")]):
        result = subprocess.run(
            [sys.executable, "-m", "marple.cli.main", *args], capture_output=True, text=True, cwd=tmp_path
        )
        assert result.returncode == 2 and "Traceback" not in result.stderr and "error:" in result.stderr


def test_evaluate_refuses_an_incomplete_dataset_and_records_the_escape(data, tmp_path, capsys):
    import shutil

    root = tmp_path / "D"
    shutil.copytree(data, root)
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["complete"] = False
    (root / "manifest.json").write_text(json.dumps(manifest))
    out = tmp_path / "r.json"
    code, err = run_main(["evaluate", "--data", str(root), "--out", str(out), "--no-progress"], capsys)
    assert code == 2 and "incomplete" in err and "--allow-incomplete" in err and not out.exists()
    args = ["evaluate", "--data", str(root), "--out", str(out), "--no-progress", "--allow-incomplete"]
    assert main(args) == 0
    assert json.loads(out.read_text())["settings"]["dataset_incomplete"] is True


class Failing(WhodunitMethod):
    """Gives ``good`` answers (11 per trial), then fails."""

    name = "failing"
    reads = frozenset({"vision"})

    def __init__(self, good: int) -> None:
        self.good = good
        self.calls = 0

    def predict(self, trial):
        self.calls += 1
        if self.calls > self.good:
            raise RuntimeError("the model broke")
        return 0.5, 0.5


def test_a_run_that_fails_before_its_first_trial_leaves_no_journal(data, tmp_path):
    episodes = dataset_episodes(MarpleDataset(data), ["laundry"])
    out = tmp_path / "r.json"
    with pytest.raises(MethodError, match="method 'failing' raised RuntimeError in predict on trial laundry/h00/000"):
        evaluate(lambda: Failing(0), episodes, ProtocolSettings(), out=out, progress=False)
    assert listing(tmp_path) == set()


def test_a_run_that_fails_later_keeps_what_resume_needs_and_says_so(data, tmp_path, caplog):
    episodes = dataset_episodes(MarpleDataset(data), ["laundry"])
    model = Failing(11)  # one trial of 11 evidence points, then a failure
    out = tmp_path / "r.json"
    with pytest.raises(MethodError, match="the model broke"):
        evaluate(lambda: model, episodes, ProtocolSettings(), out=out, progress=False)
    journal = Path(f"{out}.journal.jsonl")
    assert listing(tmp_path) == {journal.name} and len(journal.read_text().splitlines()) == 2
    assert "run the same command again to resume" in caplog.text
    model.good = 10**6
    run = evaluate(lambda: model, episodes, ProtocolSettings(), out=out, progress=False)
    assert len(run.trials) == len(episodes) and listing(tmp_path) == {out.name}


def test_generate_keeps_only_what_resume_needs_and_says_so(tmp_path, monkeypatch, caplog):
    import marple_gym.datasets.generate as generate

    spec = DatasetSpec([Unit.scenario("pillow")], Sizes(1, 1, 1, 1), seed=6)
    real, calls = generate.run_task, []

    def fail_at(n):
        def run_task(*args):
            calls.append(1)
            if len(calls) > n:
                raise RuntimeError("killed")
            return real(*args)

        return run_task

    root = tmp_path / "D"
    monkeypatch.setattr(generate, "run_task", fail_at(0))
    with pytest.raises(RuntimeError):
        generate_dataset(spec, root, workers=1, progress=False)
    assert not root.exists()  # failed before its first shard: no folder

    calls.clear()
    monkeypatch.setattr(generate, "run_task", fail_at(2))
    with pytest.raises(RuntimeError):
        generate_dataset(spec, root, workers=1, progress=False)
    assert "keeps the 2 shards written so far; run the same command again to resume" in caplog.text
    assert not MarpleDataset(root).complete

    monkeypatch.setattr(generate, "run_task", real)
    report = generate_dataset(spec, root, workers=1, progress=False)
    assert report.shards_skipped == 2 and MarpleDataset(root).complete


class Renamed(Failing):
    """Other code under the same name: its trials must not be mixed with Failing's."""


def test_a_journal_left_by_another_method_is_refused_naming_both(data, tmp_path):
    episodes = dataset_episodes(MarpleDataset(data), ["laundry"])
    out = tmp_path / "r.json"
    with pytest.raises(MethodError, match="RuntimeError"):  # the model's failure, named as its own
        evaluate(lambda: Failing(11), episodes, ProtocolSettings(), out=out, progress=False)
    journal = Path(f"{out}.journal.jsonl")
    before = journal.read_bytes()
    assert json.loads(before.splitlines()[0])["class"] == f"{__name__}:Failing"
    assert Renamed.name == Failing.name  # the same name attribute ...
    with pytest.raises(
        ResultsError, match=rf"a journal left by a run of method class {__name__}:Failing, not {__name__}:Renamed"
    ):
        evaluate(lambda: Renamed(10**6), episodes, ProtocolSettings(), out=out, progress=False)  # ... other code
    assert journal.read_bytes() == before and listing(tmp_path) == {journal.name}
    with pytest.raises(ResultsError, match=r"a run of other settings \(protocol\)"):
        evaluate(lambda: Failing(10**6), episodes, ProtocolSettings(cutoff=None), out=out, progress=False)
    assert journal.read_bytes() == before


def test_a_repeated_scenario_is_generated_and_scored_once_and_a_bare_at_is_refused(data, tmp_path, caplog, capsys):
    out = tmp_path / "G"
    args = ["generate", "--splits", "test", "--test-houses", "1", "--test-per-house", "1", "--out", str(out)]
    assert main([*args, "--scenario", "laundry@0.8", "--scenario", "laundry@.8", "--no-progress"]) == 0
    units = json.loads((out / "manifest.json").read_text())["spec"]["units"]
    assert [u["name"] for u in units] == ["laundry@0.8"] and "laundry@0.8 is asked for more than once" in caplog.text
    episodes = dataset_episodes(MarpleDataset(data), ["laundry", "laundry", "laundry"])
    assert len(episodes) == len({e.episode_id for e in episodes}) == 3  # each trial once, not 9 times
    code, err = run_main([*args[:-1], str(tmp_path / "H"), "--scenario", "laundry@"], capsys)
    assert code == 2 and "scenario 'laundry@': no preference after '@'" in err and not (tmp_path / "H").exists()
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["spec"]["units"] *= 2  # a manifest from before: the unit listed twice
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(DatasetError, match=r"spec.units\[1\].name: unit 'laundry@0.8' appears more than once"):
        MarpleDataset(out)


KILLED_GENERATE = """
import os, signal, sys
import numpy as np
from marple_gym.datasets import DatasetSpec, Sizes, Unit, generate_dataset

real, calls = np.savez_compressed, []

def killed(file, **arrays):  # the second shard: half written, then the process dies
    calls.append(1)
    if len(calls) == 2:
        file.write(b"PK half a shard")
        file.flush()
        os.kill(os.getpid(), signal.SIGKILL)
    real(file, **arrays)

np.savez_compressed = killed
generate_dataset(DatasetSpec([Unit.scenario("pillow")], Sizes(1, 2, 1, 1), seed=6), sys.argv[1], workers=1, progress=False)
"""


def test_a_killed_generation_leaves_temporary_files_that_the_next_run_removes(tmp_path, caplog):
    root = tmp_path / "D"
    killed = subprocess.run([sys.executable, "-c", KILLED_GENERATE, str(root)], capture_output=True)
    assert killed.returncode < 0
    left = [p for p in root.rglob("*.tmp")]
    assert left  # what SIGKILL cannot clean up
    report = generate_dataset(DatasetSpec([Unit.scenario("pillow")], Sizes(1, 2, 1, 1), seed=6), root, 1, False)
    assert report.shards_skipped == 1 and "removed 1 half-written temporary file" in caplog.text
    assert not list(root.rglob("*.tmp")) and MarpleDataset(root).complete


SUBCOMMANDS = {"benchmark", "envs", "evaluate", "export", "generate", "play", "replay", "report", "slice", "stats"}
SUBCOMMANDS |= {"study", "study-score", "study-server", "study-web", "train"}


def test_a_source_tree_that_was_never_installed_has_every_subcommand():
    """No entry point connects the command to its subcommands: without the editable install's finder (``-S``: no
    site hooks), a source tree on ``sys.path`` beside the dependencies runs them all."""
    site = sysconfig.get_paths()["purelib"]
    code = (
        f"import sys; sys.path[:0] = [{str(ROOT)!r}, {site!r}]; from marple.cli.main import build_parser;"
        "import importlib.util; assert importlib.util.find_spec('marple').origin.startswith(sys.path[0]);"
        "print(' '.join(build_parser().commands))"
    )
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.split()) == SUBCOMMANDS
