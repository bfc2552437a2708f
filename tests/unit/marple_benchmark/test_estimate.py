"""Presets that tell the truth: projections are functions of measured speeds and counted work."""

from __future__ import annotations

from dataclasses import replace

import pytest

pytest.importorskip("torch")

from marple_agents.config import preset as model_preset  # noqa: E402
from marple_agents.flops import forward_flops, training_flops  # noqa: E402
from marple_agents.models import build_model, count_parameters  # noqa: E402
from marple_benchmark import estimate  # noqa: E402
from marple_benchmark.config import BenchmarkConfig  # noqa: E402
from marple_benchmark.estimate import expected_time, peak_bf16, project, training_samples, trajectories  # noqa: E402
from marple_benchmark.presets import PRESETS  # noqa: E402
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


def test_a_projection_divides_counted_work_by_measured_speed(work, monkeypatch):
    paper = PRESETS["paper"]
    base = project(paper)
    faster = replace(estimate.MEASURED["h100"], train_samples_per_second=2 * 559.0, cores=32)
    monkeypatch.setitem(estimate.MEASURED, "h100", faster)
    quick = project(paper)
    assert quick.models == pytest.approx(base.models / 2) and quick.data == pytest.approx(base.data / 2)
    language, _ = model_preset("paper", "language")
    expected = 40 * 20 * 1000 * training_flops(language) / (559.0 * training_flops(language)) / 3600
    assert base.models == pytest.approx(expected, rel=0.02)  # vision models cost 1 % less than language ones
    assert base.train_mfu == pytest.approx(559.0 * training_flops(language) / 989e12)
    assert project(paper, mfu=0.45).train_mfu == 0.45
    work["training_states"]["ood"] = {k: 2000 for k in work["training_states"]["ood"]}  # twice the ood states
    assert project(paper).models == pytest.approx(1.5 * quick.models, rel=0.01)


def test_every_benchmark_preset_says_what_it_takes(work, tmp_path):
    small = expected_time(BenchmarkConfig.from_options("small", out=str(tmp_path)))
    assert (
        small
        == "480 CPU seconds measured for `marple benchmark --preset small` " + PRESETS["small"].measured.conditions
    )
    for name in ("paper", "gpu"):
        text = expected_time(BenchmarkConfig.from_options(name, out=str(tmp_path)))
        assert text.startswith("projected") and "H100" in text and "45 %" in text


@pytest.mark.parametrize(
    "preset, options, said",
    [
        ("quick", {"suspects": 3, "shared": True}, "about 40 minutes measured for `marple benchmark --preset quick "),
        ("quick", {"suspects": 3, "shared": True, "scenarios": ["sandwich"]}, "less than the about 40 minutes"),
        (
            "small",
            {"scenarios": ["laundry"]},
            "less than the 480 CPU seconds measured for `marple benchmark --preset small`",
        ),
        ("quick", {"scenarios": ["laundry"]}, "not measured for this run (the about 40 minutes measured were for `"),
        ("quick", {}, "not measured for this run"),
        ("small", {"trials": 5}, "not measured for this run (the 480 CPU seconds measured were for"),
        ("small", {"suspects": 3, "shared": True}, "not measured for this run"),
        ("small", {"variants": "vision"}, "less than the 480 CPU seconds"),
        ("small", {"seeds": 2}, "not measured for this run"),
    ],
)
def test_a_measured_time_is_quoted_only_for_the_run_it_was_measured_on_or_a_part_of_it(preset, options, said, tmp_path):
    text = expected_time(BenchmarkConfig.from_options(preset, out=str(tmp_path), **options))
    assert text.startswith(said), text


def test_the_committed_workload_covers_the_gpu_and_paper_presets():
    """The shipped counts: the gpu preset fits its 2 hours on one H100 by projection, the paper preset does not
    fit 24."""
    gpu, paper = project(PRESETS["gpu"]), project(PRESETS["paper"], mfu=0.45)
    assert gpu.total <= 2.0 and paper.total > 24
    states = estimate.workload()["training_states"]
    assert len(states["in"]) == len(states["ood"]) == 20
