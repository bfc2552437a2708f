"""bench/bench_mcts.py, the compute-against-evidence curve, on a tiny benchmark folder built here."""

from __future__ import annotations

import importlib.util
import json

import pytest

torch = pytest.importorskip("torch")

from paths import ROOT  # noqa: E402

from marple.benchmark import BenchmarkConfig  # noqa: E402
from marple.benchmark.presets import PRESETS  # noqa: E402
from marple_agents.checkpoints import save_checkpoint  # noqa: E402
from marple_agents.config import ModelConfig  # noqa: E402
from marple_agents.networks import build_model  # noqa: E402
from marple_gym.datasets import DatasetSpec, Sizes, Unit, generate_dataset  # noqa: E402
from marple_gym.missions.scenarios import get_scenario  # noqa: E402

SCENARIO = "pillow"


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_mcts", ROOT / "bench" / "bench_mcts.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def tiny_benchmark(out) -> None:
    """What bench_mcts reads from a benchmark's folder: its data (a test split, and the train-in split the
    mission priors come from) and a vision-only policy per role in its place (untrained: the script's wiring is
    under test here, not the models)."""
    spec = DatasetSpec([Unit.scenario(SCENARIO)], Sizes(2, 1, 2, 1), seed=3, splits=("test", "train-in"))
    generate_dataset(spec, BenchmarkConfig(PRESETS["small"], out).data, workers=1, progress=False)
    config = ModelConfig(conditioning="vision", width=16, depth=1, heads=2, mlp_ratio=1, head_hidden=16, glimpse=0)
    torch.manual_seed(0)
    for role in get_scenario(SCENARIO).roles:
        cfg = BenchmarkConfig(PRESETS["small"], out)
        save_checkpoint(cfg.checkpoint(SCENARIO, "in", role, "vision", 0), build_model(config), config)


def test_bench_mcts_writes_the_k_curve_on_a_tiny_benchmark(tmp_path, capsys):
    bench = load_bench()
    tiny_benchmark(tmp_path / "bench")
    args = ["--bench", str(tmp_path / "bench"), "--out", str(tmp_path / "curve"), "--scenarios", SCENARIO]
    args += ["--trials", "1", "--simulations", "0,2", "--splits", "in", "--workers", "1", "--no-progress"]
    bench.main(args)
    rows = json.loads((tmp_path / "curve" / "kcurve.json").read_text())
    assert [(r["kind"], r["split"], r["K"]) for r in rows] == [
        ("planner", "-", None),
        ("policy", "in", None),
        ("mcts", "in", 0),
        ("mcts", "in", 2),
    ]
    assert all(r["trials"] == 1 and r["cpu_s"] is not None for r in rows)  # all scored here, on the one trial
    policy, k0 = rows[1], rows[2]
    # K = 0 is the policy exactly: the same answers, so the same evidence, interval and AUC.
    assert {f: k0[f] for f in ("value", "low", "high", "auc")} == {
        f: policy[f] for f in ("value", "low", "high", "auc")
    }
    table = (tmp_path / "curve" / "kcurve.md").read_text()
    assert table.count("| MCTS agent model (our extension) | in |") == 2 and "planner (perfect agent models)" in table
    assert (tmp_path / "curve" / "kcurve.png").read_bytes().startswith(b"\x89PNG")
    results = tmp_path / "bench" / "results"
    assert {p.name for p in results.glob("*.json")} == {
        "perfect-agent-models.json",
        "simulation-vision-in-seed0.json",
        "simulation-mcts0-in-seed0.json",
        "simulation-mcts2-in-seed0.json",
    }
    # A second call reuses every run scored on these trials: nothing is scored again.
    stamps = {p: p.stat().st_mtime_ns for p in results.glob("*.json")}
    bench.main([*args, "--scored-only"])
    assert stamps == {p: p.stat().st_mtime_ns for p in results.glob("*.json")}
    again = json.loads((tmp_path / "curve" / "kcurve.json").read_text())
    assert [r["cpu_s"] for r in again] == [None] * 4 and "reused" in capsys.readouterr().out
