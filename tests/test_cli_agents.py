"""The `marple train` and `marple benchmark` commands, as a user runs them."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("lightning")

from marple_agents import load_policy  # noqa: E402
from marple_agents.benchmark import BenchmarkConfig, BenchmarkPreset, run_benchmark  # noqa: E402
from marple_gym.cli.main import main  # noqa: E402
from marple_gym.datasets import DatasetSpec, Sizes, Unit, generate_dataset  # noqa: E402


@pytest.fixture(scope="module")
def pillow_data(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli-agents") / "data"
    spec = DatasetSpec([Unit.scenario("pillow")], Sizes(2, 2, 3, 1), seed=5, splits=("test", "train-in"))
    generate_dataset(spec, root, workers=1, progress=False)
    return root


def test_train_without_data_names_the_generate_command(tmp_path, capsys):
    assert main(["train", "--scenario", "shower", "--data", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err
    assert "no dataset here" in err and "marple generate --scenario shower --splits train-in" in err


def test_train_on_a_missing_split_names_the_generate_command(pillow_data, capsys):
    assert main(["train", "--scenario", "pillow", "--split", "ood", "--data", str(pillow_data)]) == 2
    assert "no train-ood data" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args, message",
    [
        (["train", "--scenario", "laundy"], "unknown scenario 'laundy'"),
        (["train", "--mission", "do_laundry", "--role", "B"], "role A only"),
        (["benchmark", "--variants", "vision,smell"], "unknown ['smell']"),
        (["benchmark", "--trials", "0"], "--trials must be at least 1"),
        (["benchmark", "--splits", "in,outer"], "--splits: choose from in, ood"),
    ],
)
def test_bad_arguments_fail_with_a_clear_message(args, message, capsys):
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_train_writes_a_loadable_policy(pillow_data, tmp_path, capsys):
    out = tmp_path / "policy"
    args = ["train", "--scenario", "pillow", "--role", "B", "--data", str(pillow_data), "--out", str(out)]
    assert main([*args, "--max-epochs", "1", "--accelerator", "cpu", "--devices", "1", "--no-progress"]) == 0
    assert "held-out-house accuracy" in capsys.readouterr().out
    policy = load_policy(out / "policy.pt")
    assert policy.conditioning == "vision" and policy.meta["data"]["role"] == "B"
    assert json.loads((out / "metrics.json").read_text())["steps"] > 0


def test_benchmark_runs_every_stage_and_resumes(pillow_data, tmp_path):
    preset = BenchmarkPreset(
        "tiny", Sizes(2, 2, 3, 1), trials=2, model="small", rollouts=3, splits=("in",), train={"max_epochs": 1}
    )
    cfg = BenchmarkConfig(preset, tmp_path / "bench", scenarios=("pillow",), workers=2, progress=False)
    summary = run_benchmark(cfg)
    for variant in ("Vision only", "Vision+Audio", "Vision+Language", "Vision+Audio+Language"):
        assert variant in summary
    assert "0.48" in summary  # the paper's human row for reference
    assert (cfg.out / "figure4.png").stat().st_size > 0
    results = sorted(p.name for p in (cfg.out / "results").glob("*.json"))
    assert results == [
        "distance.json",
        "simulation-all-in.json",
        "simulation-audio-in.json",
        "simulation-language-in.json",
        "simulation-vision-in.json",
        "uniform.json",
        "upper-bound.json",
    ]
    stamps = {p: p.stat().st_mtime_ns for p in (cfg.out / "results").glob("*.json")}
    run_benchmark(cfg)  # everything exists: nothing is recomputed
    assert stamps == {p: p.stat().st_mtime_ns for p in (cfg.out / "results").glob("*.json")}
