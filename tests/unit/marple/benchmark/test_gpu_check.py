"""bench/gpu_check.py on the CPU with tiny sizes: every part runs and lands in a measured-figure file that the
projections read."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("lightning")

from bench_scripts import load_bench  # noqa: E402

from marple.benchmark.estimate import project  # noqa: E402
from marple.benchmark.measured import MeasuredError, read_measured  # noqa: E402
from marple.benchmark.presets import PRESETS  # noqa: E402


def load_check():
    return load_bench("gpu_check")


def test_the_check_measures_training_and_inference_into_a_file_the_projections_read(tmp_path):
    args = ["--tiny", "--out", str(tmp_path), "--parts", "data,training,inference", "--options", "none"]
    path = load_check().main([*args, "--work", str(tmp_path / "work"), "--no-progress"])
    assert path.parent == tmp_path and path.name.startswith("cpu-")
    figures = read_measured(path)
    assert figures.card == "cpu" and figures.machine["torch"] and figures.machine["cores"] >= 1
    assert figures.parts["data"]["matches_manifest"] and figures.parts["data"]["shards"] == 6
    training = figures.parts["training"]
    assert set(training["runs"]) == {"none"} and training["runs"]["none"]["samples_per_second"] > 0
    assert training["flops_per_sample"] > 0 and training["timed_steps"] == [1, 2]
    inference = figures.parts["inference"]
    assert set(inference["variants"]) == {"vision", "language"} and inference["forward"]["rows"] == 16
    assert all(v["trials"] == 1 and v["seconds_per_trial"] > 0 for v in inference["variants"].values())
    # The projection reads the file: its training rate needs every option on, which this run left out.
    with pytest.raises(MeasuredError, match="every speed option on"):
        project(PRESETS["paper"], figures)


def test_a_check_out_of_time_keeps_what_it_measured(tmp_path):
    path = load_check().main(["--tiny", "--out", str(tmp_path), "--budget", "0", "--no-progress"])
    figures = read_measured(path)
    assert figures.parts == {} and figures.machine["generator"].startswith("marple-gym")
    with pytest.raises(MeasuredError, match="no training figures were measured on the cpu"):
        project(PRESETS["paper"], figures)


def test_the_check_refuses_a_machine_without_a_gpu_unless_tiny(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(SystemExit):
        load_check().main(["--out", str(tmp_path)])
    assert "no CUDA device" in capsys.readouterr().err


@pytest.mark.slow
def test_the_whole_check_runs_on_the_cpu(tmp_path):
    """Every part and every option set, the GPU-marked tests included (skipped here: no GPU)."""
    path = load_check().main(["--tiny", "--out", str(tmp_path), "--no-progress", "--budget", "3600"])
    figures = read_measured(path)
    assert set(figures.parts) == {"tests", "data", "training", "inference"}
    assert figures.parts["tests"]["failed"] == 0 and figures.parts["tests"]["exit_status"] == 0
    assert set(figures.parts["training"]["runs"]) == {"none", "all", "fold", "fused", "device", "compile"}
    projected = project(PRESETS["paper"], figures)  # a CPU has no bf16 peak: no share of one
    assert projected.total > 0 and projected.train_mfu is None
