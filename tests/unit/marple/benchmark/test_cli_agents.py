"""The `marple train` and `marple benchmark` commands, as a user runs them."""

from __future__ import annotations

import contextlib
import importlib.util
import json
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("lightning")

from tiny_models import TINY_BENCHMARK as TINY  # noqa: E402

from marple.benchmark import BenchmarkConfig, run_benchmark  # noqa: E402
from marple.benchmark.executors import LOOPBACK, start_local_ray  # noqa: E402
from marple.cli.main import main  # noqa: E402
from marple_agents import load_policy  # noqa: E402
from marple_eval import ProtocolSettings, RunResults  # noqa: E402
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
        (["benchmark", "--trials", "0"], "argument --trials: expected an integer >= 1"),
        (["benchmark", "--seeds", "-1"], "argument --seeds: expected an integer >= 1"),
        (["benchmark", "--cutoff", "soon"], "argument --cutoff: expected a number of steps or 'none'"),
        (["benchmark", "--threshold", "0.3"], "argument --threshold: each threshold must be in (0.5, 1]"),
        (["benchmark", "--train-minutes", "nan"], "argument --train-minutes: expected a finite number > 0.0"),
        (["benchmark", "--splits", "in,outer"], "--splits: choose from in, ood"),
    ],
)
def test_bad_arguments_fail_with_a_clear_message(args, message, capsys):
    try:
        assert main(args) == 2
    except SystemExit as exc:  # refused by the parser itself
        assert exc.code == 2
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
    cfg = BenchmarkConfig(
        TINY, tmp_path / "bench", scenarios=("pillow",), variants=("vision",), seeds=2, workers=1, progress=False
    )
    summary = run_benchmark(cfg)
    assert "simulation-vision" in summary and "simulation: perfect agent models" in summary
    assert "ideal observer" in summary  # the ceiling row
    assert "## cutoff 40" in summary and "## no cutoff" in summary and "Across model seeds" in summary
    assert "fewer than 20 trials, too uncertain to compare: all scenarios pooled (2)" in summary
    assert "0.48" in summary  # the paper's human row for reference
    assert (cfg.out / "figure4.png").stat().st_size > 0
    results = sorted(p.name for p in (cfg.out / "results").glob("*.json"))
    sims = [f"simulation-vision-in-seed{s}.json" for s in (0, 1)]  # no language models: no bip
    assert results == sorted(["distance.json", "ideal.json", "perfect-agent-models.json", "uniform.json", *sims])
    stamps = {p: p.stat().st_mtime_ns for p in (cfg.out / "results").glob("*.json")}
    run_benchmark(cfg)  # everything exists: nothing is recomputed
    assert stamps == {p: p.stat().st_mtime_ns for p in (cfg.out / "results").glob("*.json")}
    record = json.loads((cfg.out / "benchmark.json").read_text())
    assert record["protocol"]["cutoff"] == 40 and record["training_budget"] == "steps 4"
    cut = {row["method"] for row in record["views"]["cutoff 40"]}
    uncut = [row["method"] for row in record["views"]["no cutoff"]]
    assert len(record["views"]["cutoff 40"]) == 6 and {"distance", "ideal observer"} <= cut
    assert uncut == ["uniform", "simulation-vision", "simulation-vision"]  # one per model seed
    # Asked without the cutoff now, the run scored with it is scored again; the rest are reused.
    run_benchmark(replace(cfg, preset=replace(TINY, uncut=(*TINY.uncut, "distance"))))
    again = {p.name for p, t in stamps.items() if p.stat().st_mtime_ns != t}
    assert again == {"distance.json"}
    assert "## Protocols side by side (evidence for 0.8)" in summary and "| ratio, no cutoff |" in summary
    # Another protocol: its own results and report beside the default's, on the same data and agent models.
    models = {p: p.stat().st_mtime_ns for p in (cfg.out / "models").rglob("policy.pt")}
    original = replace(cfg, protocol=ProtocolSettings.named("original"))
    assert original.report_dir == cfg.out / "protocol-original"
    text = run_benchmark(original)
    assert "Protocol: original: horizon T + 5" in text and (original.report_dir / "summary.md").is_file()
    assert RunResults.load(original.results("uniform")).protocol["name"] == "original-cutoff-none"  # TINY's uncut
    assert RunResults.load(original.results("ideal")).protocol["name"] == "original"
    assert models == {p: p.stat().st_mtime_ns for p in (cfg.out / "models").rglob("policy.pt")}


def benchmark_json(out: Path, executor: str, workers: int) -> str:
    """The benchmark.json of a one-scenario TINY benchmark run with this executor and number of processes."""
    cfg = BenchmarkConfig(
        TINY, out, scenarios=("pillow",), variants=("language",), workers=workers, executor=executor, progress=False
    )
    run_benchmark(cfg)
    return (cfg.out / "benchmark.json").read_text()


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory) -> str:
    """benchmark.json of the run with the local executor and two processes: the peer of the other runs."""
    return benchmark_json(tmp_path_factory.mktemp("two-processes"), "local", 2)


@pytest.fixture
def ray_cluster():
    """A Ray cluster on this machine, as the Ray executor starts one (two CPUs, on 127.0.0.1 only)."""
    if importlib.util.find_spec("ray") is None:  # not importorskip: Ray must first be imported by the executor
        pytest.skip("the ray extra is not installed: pip install 'marple-gym[ray]'")
    ray = start_local_ray(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def listening_addresses() -> set[str]:
    """The addresses every process this one started (Ray's daemons and workers among them) listens on."""
    psutil = pytest.importorskip("psutil")  # Ray ships it
    found = set()
    for process in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            found |= {c.laddr.ip for c in process.net_connections("inet") if c.status == psutil.CONN_LISTEN}
    return found


def test_the_same_benchmark_twice_gives_identical_figures(tmp_path, two_processes):
    """Nor do the figures depend on the processes used: one process writes the same benchmark.json, byte for
    byte, as two."""
    assert benchmark_json(tmp_path, "local", 1) == two_processes
    assert json.loads(two_processes)["inference"] == {"device": ["cpu"], "precision": ["fp32"]}


def test_ray_tasks_write_the_same_benchmark_json_as_local_processes(tmp_path, two_processes, ray_cluster):
    """Nor on the executor: with every job a Ray task (one job per CPU, models and inference runs side by side)
    the benchmark.json is the local executor's, byte for byte. Ray's processes listen on 127.0.0.1 only."""
    assert benchmark_json(tmp_path, "ray", 1) == two_processes
    assert ray_cluster.get_runtime_context().gcs_address.startswith(f"{LOOPBACK}:")
    assert {node["NodeManagerAddress"] for node in ray_cluster.nodes()} == {LOOPBACK}
    listening = listening_addresses()
    assert listening and listening <= {LOOPBACK, f"::ffff:{LOOPBACK}"}, listening


def test_train_commands_reproduce_the_benchmarks_agent_models(tmp_path, monkeypatch, capsys):
    """For a SLURM array: the command of each agent model, run as it is, writes the checkpoint the benchmark
    would have trained; the benchmark then trains nothing."""
    import shlex

    from marple.benchmark import presets
    from marple.benchmark.pipeline import model_jobs, train_job
    from marple_agents.checkpoints import read_checkpoint

    monkeypatch.setitem(presets.PRESETS, "small", TINY)
    cfg = BenchmarkConfig(TINY, tmp_path / "b", scenarios=("pillow",), variants=("vision",), progress=False)
    jobs = tmp_path / "jobs.txt"
    args = ["benchmark", "--scenario", "pillow", "--variants", "vision", "--out", str(cfg.out), "--no-progress"]
    assert main([*args, "--train-commands", str(jobs)]) == 0
    assert "2 'marple train' commands" in capsys.readouterr().out
    lines = jobs.read_text().splitlines()
    assert len(lines) == 2 and all(line.startswith("marple train --scenario pillow") for line in lines)
    for line in lines:
        assert main(shlex.split(line)[1:]) == 0
    first = model_jobs(cfg)[0]
    again = replace(cfg, out=tmp_path / "again")
    again.out.mkdir()
    again.data.symlink_to(cfg.data)
    train_job(again, first)
    digests = [read_checkpoint(c.checkpoint(*first))["weights_sha256"] for c in (cfg, again)]
    assert digests[0] == digests[1]
    assert main([*args, "--train-commands", str(jobs)]) == 0 and jobs.read_text() == ""  # all trained


def test_a_preference_scenario_end_to_end(tmp_path, monkeypatch, capsys):
    """Section 6.4 in one command: `marple benchmark --scenario feed_dog-vs-do_laundry@0.6` (tiny sizes)."""
    from marple.benchmark import presets

    monkeypatch.setitem(presets.PRESETS, "small", TINY)
    out = tmp_path / "pref"
    args = ["benchmark", "--scenario", "feed_dog-vs-do_laundry@0.6", "--variants", "language", "--out", str(out)]
    fast = ["--rollouts", "1", "--uncut", "uniform", "--workers", "1", "--no-progress", "--accelerator", "cpu"]
    assert main([*args, *fast]) == 0
    summary = (out / "summary.md").read_text()
    assert "evidence for 0.8 [95% CI] | evidence for 0.6 [95% CI]" in summary
    assert "| feed_dog-vs-do_laundry@0.6 |" in summary
    assert "| ideal observer |" in summary and "| bip | in |" in summary
    # At preference 0.6 the planner with sampled missions is no perfect agent model: the row says what it is.
    assert "simulation: planner agents (mission from the prior)" in summary and "perfect agent models" not in summary
    bip = json.loads((out / "results" / "bip-in-seed0.json").read_text())
    assert bip["settings"]["train_split"] == "in" and bip["settings"]["mission_priors"]
    ideal = json.loads((out / "results" / "ideal.json").read_text())
    prior = ideal["settings"]["mission_priors"]["feed_dog-vs-do_laundry@0.6"]["A"]
    assert set(prior["probabilities"]) <= {"feed_dog", "do_laundry"} and prior["source"].endswith("train-in/A")
