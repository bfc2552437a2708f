"""Presets that tell the truth: projections are functions of measured-figure files and counted work."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from marple.benchmark import estimate  # noqa: E402
from marple.benchmark import measured as measured_module  # noqa: E402
from marple.benchmark.config import BenchmarkConfig  # noqa: E402
from marple.benchmark.estimate import (  # noqa: E402
    expected_time,
    models_hours,
    peak_bf16,
    project,
    training_samples,
    trajectories,
)
from marple.benchmark.measured import (  # noqa: E402
    MeasuredError,
    measured_files,
    measured_path,
    read_measured,
    write_measured,
)
from marple.benchmark.presets import PRESETS  # noqa: E402
from marple_agents.config import preset as model_preset  # noqa: E402
from marple_agents.flops import forward_flops, training_flops  # noqa: E402
from marple_agents.networks import build_model, count_parameters  # noqa: E402
from marple_gym.missions.scenarios import SCENARIOS, get_scenario  # noqa: E402

KEYS = ("uniform", "distance", "perfect-agent-models", "ideal", "bip", "vision", "language")


@pytest.fixture
def work(monkeypatch):
    """A made-up workload: 1,000 training states per model, 50 rows and one CPU-second per trial (4 uncut)."""
    states = {f"{s}/{r}-{k}": 1000 for s in SCENARIOS for r in get_scenario(s).roles for k in ("vision", "language")}
    made = {
        "data": {"trajectories_per_cpu_second": 250.0},
        "training_states": {"in": states, "ood": states},
        "inference": {
            k: {"cut": {"rows": 50, "cpu_seconds": 1.0}, "uncut": {"rows": 200, "cpu_seconds": 4.0}} for k in KEYS
        },
    }
    monkeypatch.setattr(estimate, "workload", lambda: made)
    return made


def test_flops_follow_the_usual_rule_for_the_papers_model():
    paper, _ = model_preset("paper", "vision")
    params = count_parameters(build_model(paper))
    # 6 x parameters x 400 cell tokens, within a few per cent (the last block reads out one token)
    assert training_flops(paper) == pytest.approx(6 * params * 400, rel=0.05)
    assert forward_flops(paper) == pytest.approx(training_flops(paper) / 3, rel=0.02)


def test_peaks_by_gpu_name():
    assert peak_bf16("NVIDIA H100 80GB HBM3") == 989e12 and peak_bf16("NVIDIA H100 PCIe") == 756e12
    assert peak_bf16("NVIDIA A100-SXM4-80GB") == 312e12 and peak_bf16("cpu (2 threads)") is None


def test_the_papers_sizes_hold_105000_trajectories_and_budgets_end_where_training_stops():
    assert trajectories(PRESETS["paper"].sizes, tuple(SCENARIOS)) == 105_000
    assert training_samples(PRESETS["paper"], 1000) == 20 * 1000  # 20 epochs
    assert training_samples(PRESETS["gpu"], 10**6) == 4000 * 128  # 4,000 steps of 64 x 2
    assert training_samples(PRESETS["gpu"], 100) == 20 * 100  # ...unless 20 epochs end first


def measured(folder, card="NVIDIA H100 80GB HBM3", day="2026-11-28", samples_per_second=559.0, cores=16, **parts):
    """A measured-figure file as bench/gpu_check.py writes it, with made-up figures."""
    record = {
        "card": card,
        "date": day,
        "machine": {"driver": "580.0", "torch": "2.11.0", "cuda": "13.0", "python": "3.12.3", "cores": cores},
        "command": "python bench/gpu_check.py",
        "training": {"model_preset": "paper", "runs": {"all": {"samples_per_second": samples_per_second}}},
        "inference": {"model_preset": "paper", "forward": {"rows": 1100, "seconds": 0.455}},
        **parts,
    }
    return write_measured(measured_path(folder, card, day), record)


@pytest.fixture
def figures(tmp_path, monkeypatch):
    """The measured-figure folder the projections read: empty, in a temporary folder."""
    monkeypatch.setattr(measured_module, "MEASURED_DIR", tmp_path)
    return tmp_path


def test_a_projection_divides_counted_work_by_the_newest_measured_speed(work, figures):
    paper = PRESETS["paper"]
    measured(figures)
    base = project(paper)
    assert base.source.startswith("NVIDIA H100 80GB HBM3, measured 2026-11-28")
    measured(figures, day="2026-12-01", samples_per_second=2 * 559.0, cores=32)  # newer: it is the one read
    measured(figures, day="2026-11-01", samples_per_second=5.0)  # older: ignored
    quick = project(paper)
    assert quick.models == pytest.approx(base.models / 2) and quick.data == pytest.approx(base.data / 2)
    language, _ = model_preset("paper", "language")
    expected = 40 * 20 * 1000 * training_flops(language) / (559.0 * training_flops(language)) / 3600
    assert base.models == pytest.approx(expected, rel=0.02)  # vision models cost 1 % less than language ones
    assert base.train_mfu == pytest.approx(559.0 * training_flops(language) / 989e12)
    assert project(paper, mfu=0.45).train_mfu == 0.45
    work["training_states"]["ood"] = {k: 2000 for k in work["training_states"]["ood"]}  # twice the ood states
    assert project(paper).models == pytest.approx(1.5 * quick.models, rel=0.01)
    assert models_hours(paper, 2 * 559.0 * training_flops(language)) == pytest.approx(project(paper).models)


def said(preset: str, out, **options) -> str:
    """What ``marple benchmark --preset PRESET`` with ``options`` says it takes."""
    return expected_time(BenchmarkConfig.from_options(preset, out=str(out), **options))


def test_without_a_measured_card_there_is_no_projection(work, figures):
    with pytest.raises(MeasuredError, match="no measured figures for the NVIDIA H100 80GB HBM3 yet"):
        project(PRESETS["paper"])
    assert said("paper", figures).endswith(
        "no projection: no GPU has been measured yet (python bench/gpu_check.py; docs/gpu.md)"
    )
    measured(figures, card="NVIDIA H200")  # another card: named in what the benchmark says
    assert "on one NVIDIA H200, measured 2026-11-28" in said("gpu", figures)
    with pytest.raises(MeasuredError, match="no measured figures for the NVIDIA H100"):
        project(PRESETS["paper"])


def test_a_part_not_measured_is_named_not_guessed(work, figures):
    path = measured(figures, inference={"model_preset": "paper"})  # the check stopped before the forward pass
    with pytest.raises(MeasuredError, match="no forward pass of the paper's model was timed"):
        project(PRESETS["paper"])
    record = json.loads(path.read_text())
    del record["training"]
    path.write_text(json.dumps(record))
    with pytest.raises(MeasuredError, match="no training figures were measured"):
        project(PRESETS["paper"], read_measured(path))


def test_a_malformed_measured_file_is_named(figures):
    bad = figures / "nvidia-h100-2026-11-28.json"
    bad.write_text(json.dumps({"format": "marple-measured", "version": 1, "card": "H100", "date": "28 Nov"}))
    with pytest.raises(MeasuredError, match=f"{bad}.*date.*expected YYYY-MM-DD"):
        read_measured(bad)


def test_every_benchmark_preset_says_what_it_takes(work, figures):
    small = said("small", figures)
    assert (
        small
        == "about 640 CPU seconds measured for `marple benchmark --preset small` "
        + PRESETS["small"].measured.conditions
    )
    measured(figures)
    for name in ("paper", "gpu"):
        assert said(name, figures).startswith("projected") and "H100" in said(name, figures)


@pytest.mark.parametrize(
    "preset, options, words",
    [
        ("quick", {"suspects": 3, "shared": True}, "about 40 minutes measured for `marple benchmark --preset quick "),
        ("quick", {"suspects": 3, "shared": True, "scenarios": ["sandwich"]}, "less than the about 40 minutes"),
        (
            "small",
            {"scenarios": ["laundry"]},
            "less than the about 640 CPU seconds measured for `marple benchmark --preset small`",
        ),
        ("quick", {"scenarios": ["laundry"]}, "not measured for this run (the about 40 minutes measured were for `"),
        ("quick", {}, "not measured for this run"),
        ("small", {"trials": 5}, "not measured for this run (the about 640 CPU seconds measured were for"),
        ("small", {"suspects": 3, "shared": True}, "not measured for this run"),
        ("small", {"variants": "vision"}, "less than the about 640 CPU seconds"),
        ("small", {"seeds": 2}, "not measured for this run"),
    ],
)
def test_a_measured_time_is_quoted_only_for_the_run_it_was_measured_on_or_a_part_of_it(
    preset, options, words, tmp_path
):
    text = said(preset, tmp_path, **options)
    assert text.startswith(words), text
    if text.startswith("not measured"):  # not the paper's data sizes: no projection either
        assert text.endswith("no projection for these sizes (docs/gpu.md)")


def test_the_committed_figures_read_and_the_workload_covers_every_agent_model():
    """Every committed measured-figure file reads, and the counted work covers the 20 agent models of each
    split the gpu and paper presets train."""
    for found in measured_files():
        assert found.card and found.machine["cores"] >= 1
    states = estimate.workload()["training_states"]
    assert len(states["in"]) == len(states["ood"]) == 20
