"""The `marple generate` and `marple stats` commands, as a user runs them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from marple.cli.main import main
from marple_gym.datasets import MarpleDataset


def test_generate_writes_a_loadable_dataset(tmp_path, capsys):
    out = tmp_path / "data"
    args = [
        "generate",
        "--scenario",
        "pillow",
        "--test-houses",
        "1",
        "--test-per-house",
        "2",
        "--train-per-house",
        "2",
        "--train-ood",
        "2",
        "--out",
        str(out),
        "--workers",
        "1",
        "--no-progress",
    ]
    assert main(args) == 0
    assert "trajectories" in capsys.readouterr().out
    data = MarpleDataset(out)
    assert len(list(data.whodunit("pillow"))) == 2
    assert main(args) == 0  # a rerun resumes: nothing to do
    assert "0 shards written" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["generate", "--scenario", "laundy"], "unknown scenario 'laundy'"),
        (["generate", "--mission", "fly"], "unknown mission 'fly'"),
        (["generate", "--splits", "train"], "unknown split"),
        (["generate", "--scale", "-1"], "argument --scale: expected a finite number in (0.0, 1000.0]"),
        (["generate", "--config", "/no/such.json"], "no such file"),
        (["stats", "--episodes", "0"], "argument --episodes: expected an integer >= 1"),
    ],
)
def test_bad_arguments_fail_with_a_clear_message(args, message, capsys, tmp_path):
    try:
        code = main(args + (["--out", str(tmp_path)] if args[0] == "generate" else []))
    except SystemExit as exc:  # an option the parser refused
        code = exc.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_stats_prints_horizons_next_to_the_paper(capsys):
    assert main(["stats", "--scenario", "pillow", "--episodes", "5"]) == 0
    out = capsys.readouterr().out
    assert "Who picked up the pillow?" in out and "15.0" in out


def test_the_marple_command_runs_as_a_module_too():
    for module in ("marple", "marple.cli.main"):
        result = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True)
        assert result.returncode == 0 and "generate" in result.stdout


@pytest.mark.parametrize(("scale", "houses", "per_house"), [(0.01, 1, 20), (0.02, 1, 20), (0.1, 1, 50), (0.5, 5, 50)])
def test_a_scaled_dataset_has_at_least_the_test_trials_the_evaluation_asks_for(scale, houses, per_house):
    from marple.cli.families import family_parser
    from marple.families import family
    from marple.families.whodunit.generate import build_spec
    from marple_eval.metrics import MIN_TRIALS

    parser = family_parser("generate", family("whodunit"))
    spec = build_spec(parser.parse_args(["--scenario", "laundry", "--scale", str(scale)]))
    assert (spec.sizes.test_houses, spec.sizes.test_per_house) == (houses, per_house)
    assert spec.sizes.test_houses * spec.sizes.test_per_house >= MIN_TRIALS  # no "too uncertain" warning
    given = build_spec(parser.parse_args(["--scale", str(scale), "--test-houses", "4"]))
    assert given.sizes.test_houses == 4 and 4 * given.sizes.test_per_house >= MIN_TRIALS
