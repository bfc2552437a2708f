"""bench/readme_table.py: the README's results table from a run's figures, and the commands, machine and date
that made them (commands.json, which marple benchmark writes)."""

from __future__ import annotations

import json
import re

import pytest
from bench_scripts import load_bench
from paths import ROOT

import marple.families.whodunit.benchmark
from marple.benchmark.provenance import machine, read_commands
from marple.cli.main import main
from marple_gym.errors import MarpleError


def evidence(value, low, high):
    return {"0.8": {"value": value, "low": low, "high": high}}


def row(method, split, value, low, high, seed=None, prior=None, tau0=None):
    found = {
        "method": method,
        "split": split,
        "model_seed": seed,
        "trials": 150,
        "evidence": evidence(value, low, high),
    }
    if prior is not None:
        found["mission_prior"] = prior
    if tau0 is not None:
        found["tau0"] = {"mean": tau0[0], "low": tau0[1], "high": tau0[2]}
    return found


RECORD = {
    "preset": {"name": "small", "trials": 30, "rollouts": 20},
    "protocol": {"name": "ours", "cutoff": 40},
    "training_budget": "steps 500",
    "thresholds": [0.8, 0.6],
    "model_seeds": [0],
    "views": {
        "cutoff 40": [
            row("ideal observer", None, 0.47, 0.40, 0.52, prior="uniform", tau0=(0.57, 0.55, 0.60)),
            row("ideal observer", None, 0.35, 0.27, 0.41, prior="labels", tau0=(0.69, 0.65, 0.73)),
            row("uniform", None, None, None, None),
            row("simulation: perfect agent models", None, 0.35, 0.27, 0.41),
            row("simulation-language", "in", 0.59, 0.54, 0.64, 0),
            row("simulation-vision", "ood", 0.92, 0.92, 0.93, 0),
            row("simulation-vision", "in", 0.81, 0.76, 0.84, 0),
            row("bip", "in", 0.56, 0.52, 0.61, 0),
        ],
        "no cutoff": [row("uniform", None, None, None, None)],
    },
}


@pytest.fixture
def run(tmp_path, monkeypatch):
    """A run folder as two marple benchmark commands leave it (their stages stubbed out)."""
    folder = tmp_path / "runs" / "benchmark-small"
    monkeypatch.setattr(marple.families.whodunit.benchmark, "run_benchmark", lambda cfg: "summary")
    assert main(["benchmark", "--out", str(folder), "--no-progress"]) == 0
    assert main(["benchmark", "--out", str(folder), "--splits", "in,ood", "--no-progress"]) == 0
    (folder / "benchmark.json").write_text(json.dumps(RECORD))
    return folder


def test_every_finished_benchmark_command_is_recorded_with_its_machine_and_time(run):
    commands = read_commands(run)
    assert [c["command"] for c in commands] == [
        f"marple benchmark --out {run} --no-progress",
        f"marple benchmark --out {run} --splits in,ood --no-progress",
    ]
    assert {c["machine"] for c in commands} == {machine()} and "CPU cores" in machine()
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", c["finished"]) for c in commands)


def test_the_table_names_the_paper_variants_orders_the_rows_and_cites_commands_machine_and_date(run):
    text = load_bench("readme_table").table(run)
    caption, _, *table = text.splitlines()
    today = read_commands(run)[-1]["finished"][:10]
    assert caption.startswith("Evidence needed to reach 0.8 accuracy") and "150 trials (30 per scenario)" in caption
    assert "agent models trained for 500 steps; scored under `ours`, cutoff 40" in caption
    assert f"Made by `marple benchmark --out {run} --no-progress` then `marple benchmark --out {run} " in caption
    assert f"on {machine()}, {today}." in caption
    assert table[2:] == [
        "| uniform (chance) | - | not reached | - | - |",
        "| Vision only | in | 0.81 [0.76, 0.84] | - | 0.85 |",
        "| Vision only | ood | 0.92 [0.92, 0.93] | - | 0.92 |",
        "| Vision+Language | in | 0.59 [0.54, 0.64] | - | 0.64 |",
        "| inverse planning (`bip`) | in | 0.56 [0.52, 0.61] | - | - |",
        "| ideal observer (ceiling) | - | 0.47 [0.40, 0.52] | 0.57 [0.55, 0.60] | - |",
        "| ideal observer (ceiling) (training-label prior, privileged) | - | 0.35 [0.27, 0.41] | 0.69 [0.65, 0.73] | - |",
        "| humans (the paper's study, no cutoff) | - | - | - | 0.48 |",
    ]


def test_the_table_is_written_between_the_markers_and_nowhere_else(run, tmp_path):
    generator = load_bench("readme_table")
    page = tmp_path / "README.md"
    page.write_text(f"# Title\n\nbefore\n{generator.START}\nold table\n{generator.END}\nafter\n")
    assert generator.main([str(run), "--pages", str(page)]) == 0
    text = page.read_text()
    assert text.startswith("# Title\n\nbefore\n") and text.endswith(f"{generator.END}\nafter\n")
    assert "old table" not in text and "| Vision only | in | 0.81 [0.76, 0.84] | - | 0.85 |" in text
    page.write_text("no markers\n")
    assert generator.main([str(run), "--pages", str(page)]) == 2


def test_a_run_without_commands_needs_them_given(run):
    generator = load_bench("readme_table")
    (run / "commands.json").unlink()
    with pytest.raises(MarpleError, match="no commands.json .* pass --command, --machine and --date"):
        generator.table(run)
    text = generator.table(run, command="`marple benchmark`", machine="2 CPU cores", date="2026-11-26")
    assert "Made by `marple benchmark` on 2 CPU cores, 2026-11-26." in text


@pytest.mark.parametrize("page", ["README.md", "docs/benchmarks.md"])
def test_the_published_table_was_generated_from_a_run_and_cites_it(page):
    generator = load_bench("readme_table")
    text = (ROOT / page).read_text()
    assert text.count(generator.START) == 1 and text.count(generator.END) == 1
    table = text.split(generator.START)[1].split(generator.END)[0]
    assert re.search(r"Made by `marple benchmark[^`]*`.* on \d+ CPU cores.*, \d{4}-\d\d-\d\d\.", table)
    assert "| Vision only | in |" in table and "| humans (the paper's study, no cutoff) |" in table
