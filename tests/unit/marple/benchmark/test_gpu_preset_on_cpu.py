"""A GPU preset whose jobs would run on the CPU is said so and asked about first (or --yes); with no terminal to
ask on, it is refused, exit 2, with the hint, and nothing is written."""

from __future__ import annotations

import io
import sys

import pytest

import marple.families.whodunit.benchmark
import marple_agents.device
from marple.cli.main import main


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(marple_agents.device, "_cuda_count", lambda: 0)
    started = []
    monkeypatch.setattr(marple.families.whodunit.benchmark, "run_benchmark", lambda cfg: started.append(cfg) or "ran")
    return started


def benchmark(tmp_path, *options: str) -> int:
    return main(["benchmark", "--out", str(tmp_path / "run"), "--no-progress", *options])


@pytest.mark.parametrize("preset", ["gpu", "paper"])
def test_without_a_terminal_a_gpu_preset_on_the_cpu_is_refused_with_the_hint(no_gpu, tmp_path, capsys, preset):
    assert benchmark(tmp_path, "--preset", preset) == 2
    err = capsys.readouterr().err
    assert f"--preset {preset} is sized for a GPU" in err and "no GPU that torch can use" in err
    assert "pass --yes to start it on the CPU anyway, or run --preset small" in err
    assert no_gpu == [] and list(tmp_path.iterdir()) == []


def test_yes_starts_it_with_a_warning(no_gpu, tmp_path, capsys):
    assert benchmark(tmp_path, "--preset", "gpu", "--device", "cpu", "--yes") == 0
    assert "(--device cpu): days, not hours; starting anyway (--yes)" in capsys.readouterr().err
    assert len(no_gpu) == 1


@pytest.mark.parametrize(("answer", "code", "runs"), [("y\n", 0, 1), ("\n", 1, 0), ("no\n", 1, 0)])
def test_at_a_terminal_the_user_is_asked(no_gpu, tmp_path, capsys, monkeypatch, answer, code, runs):
    terminal = io.StringIO(answer)
    terminal.isatty = lambda: True
    monkeypatch.setattr(sys, "stdin", terminal)
    assert benchmark(tmp_path, "--preset", "gpu") == code
    out = capsys.readouterr()
    assert "Start --preset gpu on the CPU anyway? [y/N]" in out.out and len(no_gpu) == runs


def test_the_small_preset_and_a_ray_cluster_are_not_asked_about(no_gpu, tmp_path):
    assert benchmark(tmp_path) == 0
    assert benchmark(tmp_path, "--preset", "gpu", "--executor", "ray") == 0
    assert len(no_gpu) == 2
