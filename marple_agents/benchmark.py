"""``marple benchmark``: from nothing to a scored whodunit benchmark with one command.

Stages (each resumes: work whose output exists is skipped):

1. **data**: ``marple generate`` for the five scenarios (test pairs, train-in,
   and train-ood when out-of-distribution models are asked for);
2. **models**: a vision-only and a language-conditioned policy for each agent
   (two per scenario) and training split;
3. **inference**: simulation inference for each variant (vision, +audio,
   +language, all) and split, the perfect-agent-model upper bound (the planner
   itself as the agent model) and the two reference models;
4. **report**: a Table-2-style summary beside the paper's numbers
   (``summary.md``), Figure-4-style plots (``figure4.png``) and every run's
   results file.
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing as mp
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from marple_agents.simulation.inference import POLICY_OF_VARIANT, VARIANTS
from marple_gym.cli.options import devices, positive_int, seed
from marple_gym.datasets.generate import PAPER_SIZES, DatasetSpec, Sizes, Unit, generate_dataset
from marple_gym.missions.scenarios import SCENARIOS

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BenchmarkPreset:
    """Sizes of one benchmark run."""

    name: str
    sizes: Sizes
    trials: int  # test trials per scenario, spread over the test houses (the paper: 10, 50 in all)
    model: str  # the policy preset: "small" or "paper"
    rollouts: int  # Monte Carlo rollouts per agent and evidence point
    splits: tuple[str, ...]  # training splits of the agent models: "in", "ood"
    train: dict[str, Any] = field(default_factory=dict)  # extra train_policy arguments
    estimate: str = ""


PRESETS: dict[str, BenchmarkPreset] = {
    "small": BenchmarkPreset(
        "small",
        Sizes(test_houses=5, test_per_house=2, train_per_house=60, train_ood=300),
        trials=10,
        model="small",
        rollouts=20,
        splits=("in",),
        train={"max_minutes": 0.5},  # per model, two at a time on 2 cores (one thread each)
        estimate="under 10 minutes on 2 CPU cores",
    ),
    "paper": BenchmarkPreset(
        "paper",
        PAPER_SIZES,
        trials=10,  # 50 trials in all, as the paper (supplement D.2: 75 hours per variant at 1.5 h a trial)
        model="paper",
        rollouts=100,
        splits=("in", "ood"),
        # A FLOP estimate, not a measurement: 194 M parameters x 400 cell tokens is about 5e11 FLOPs per
        # training sample; at 1.6e14 FLOP/s (bf16 at 40% of an H100's peak) 20 epochs take about 30 min per
        # model, 40 models about 20 h; a trial (11 points x 2 agents x ~30 steps of 100 rollouts) about a
        # minute, 8 inference runs of 50 trials about 7 h. The paper: 1.5 GPU-hours per trial, 600 for these.
        estimate=(
            "about 1-1.5 days on one H100-class GPU by a FLOP estimate (40 paper-size policies, then 4 variants x "
            "2 splits x 50 trials of 100-rollout inference; the paper reports 1.5 GPU-hours per trial)"
        ),
    ),
}


@dataclass
class BenchmarkConfig:
    preset: BenchmarkPreset
    out: Path
    scenarios: tuple[str, ...] = tuple(SCENARIOS)
    variants: tuple[str, ...] = tuple(VARIANTS)
    seed: int = 0
    workers: int = max(1, os.cpu_count() or 1)
    accelerator: str = "auto"
    devices: str = "auto"
    progress: bool = True
    verbose: bool = False

    @property
    def data(self) -> Path:
        return self.out / "data"

    def checkpoint(self, scenario: str, split: str, role: str, model: str) -> Path:
        return self.out / "models" / scenario / split / f"{role}-{model}" / "policy.pt"

    def results(self, name: str) -> Path:
        return self.out / "results" / f"{name}.json"


# ---- stages -------------------------------------------------------------------------------------------------


def stage_data(cfg: BenchmarkConfig) -> None:
    # Every split, whichever models are asked for: the dataset then stays the same when a later run adds
    # the out-of-distribution models (--splits in,ood), and that run resumes instead of starting over.
    splits = ("test", "train-in", "train-ood")
    spec = DatasetSpec([Unit.scenario(s) for s in cfg.scenarios], cfg.preset.sizes, cfg.seed, splits=splits)
    report = generate_dataset(spec, cfg.data, workers=cfg.workers, progress=cfg.progress)
    log.info("data: %d trajectories (%d shards written)", report.episodes, report.shards_written)


class ModelJob(NamedTuple):
    """One agent model to train (in :meth:`BenchmarkConfig.checkpoint`'s argument order)."""

    scenario: str
    split: str  # "in" or "ood"
    role: str
    kind: str  # "vision" or "language"

    @property
    def key(self) -> str:
        return f"{self.scenario}/{self.split}/{self.role}-{self.kind}"


def model_jobs(cfg: BenchmarkConfig) -> list[ModelJob]:
    """Every agent model the variants need: one per split, scenario, role and kind of policy."""
    kinds = sorted({POLICY_OF_VARIANT[v] for v in cfg.variants})
    return [
        ModelJob(scenario, split, role, kind)
        for split in cfg.preset.splits
        for scenario in cfg.scenarios
        for role in ("A", "B")
        for kind in kinds
    ]


def train_job(cfg: BenchmarkConfig, job: ModelJob, progress: bool) -> None:
    """Train one agent model into its place (``policy.pt`` and ``metrics.json`` beside it)."""
    from marple_agents import train_policy

    result = train_policy(
        cfg.data,
        unit=job.scenario,
        split=f"train-{job.split}",
        role=job.role,
        model=job.kind,
        preset=cfg.preset.model,
        out_dir=cfg.checkpoint(*job).parent,
        seed=cfg.seed,
        accelerator=cfg.accelerator,
        devices=cfg.devices,
        progress=progress,
        # In-distribution models are rolled out in the houses they learn in: train in every
        # test house and validate on held-out episodes; ood models on held-out houses.
        holdout="episodes" if job.split == "in" else "houses",
        **cfg.preset.train,
    )
    log.info("trained %s: held-out accuracy %.3f in %.0f s", job.key, result.val_accuracy, result.train_seconds)


def _init_trainer(threads: int, verbose: bool) -> None:
    import torch

    from marple_agents.training.train import quiet_lightning

    torch.set_num_threads(threads)
    quiet_lightning(verbose)


def _parallel_training(cfg: BenchmarkConfig, jobs: int) -> int:
    """How many models to train at once: on CPUs, one per worker with the cores shared out (small models
    use one core better than two: two single-threaded runs do about 1.4 times the work of one on two
    threads); on an accelerator, one at a time."""
    import torch

    on_cpu = cfg.accelerator == "cpu" or (cfg.accelerator == "auto" and not torch.cuda.is_available())
    return max(1, min(cfg.workers, jobs)) if on_cpu else 1


def stage_models(cfg: BenchmarkConfig) -> dict[str, float]:
    """Train every agent model the variants need (those not trained yet); return their held-out accuracies."""
    from tqdm import tqdm

    jobs = model_jobs(cfg)
    todo = [job for job in jobs if not cfg.checkpoint(*job).is_file()]
    parallel = _parallel_training(cfg, len(todo))
    bar = tqdm(total=len(jobs), initial=len(jobs) - len(todo), desc="training agent models", disable=not cfg.progress)
    if parallel > 1:
        threads = max(1, (os.cpu_count() or 1) // parallel)
        context = mp.get_context("spawn")  # fresh interpreters: no inherited torch threads or locks
        with ProcessPoolExecutor(parallel, context, _init_trainer, (threads, cfg.verbose)) as pool:
            for done in as_completed([pool.submit(train_job, cfg, job, False) for job in todo]):
                done.result()
                bar.update(1)
    else:
        for job in todo:
            train_job(cfg, job, cfg.progress)
            bar.update(1)
    bar.close()
    accuracies = {}
    for job in jobs:
        metrics = cfg.checkpoint(*job).with_name("metrics.json")
        accuracies[job.key] = json.loads(metrics.read_text())["val_accuracy"] if metrics.is_file() else None
    return accuracies


def stage_inference(cfg: BenchmarkConfig) -> list[Path]:
    """Evaluate every variant, the upper bound and the reference models; return the results files."""
    from marple_eval.protocol import AgentResources, ProtocolSettings, dataset_episodes, evaluate, model_factory
    from marple_gym.datasets.dataset import MarpleDataset

    episodes = dataset_episodes(MarpleDataset(cfg.data), cfg.scenarios, cfg.preset.trials)
    settings = ProtocolSettings(seed=cfg.seed)
    common = {"dataset": str(cfg.data), "preset": cfg.preset.name}
    paths = []

    def run(name: str, factory, resources=None, method: str | None = None, **extra) -> None:
        out = cfg.results(name)
        paths.append(out)
        if out.is_file():
            return
        evaluate(
            factory,
            episodes,
            settings,
            method=method,
            run_settings={**common, **extra},
            resources=resources,
            workers=cfg.workers,
            out=out,
            progress=cfg.progress,
        )

    run("uniform", model_factory("uniform"))
    run("distance", model_factory("distance"))
    sim = {"rollouts": cfg.preset.rollouts, "seed": cfg.seed}
    run(
        "upper-bound",
        model_factory("simulation", variant="vision", **sim),
        resources=AgentResources({"A": "planner", "B": "planner"}),
        method="simulation: perfect agent models",
    )
    for split in cfg.preset.splits:
        for variant in cfg.variants:
            kind = POLICY_OF_VARIANT[variant]
            template = str(cfg.checkpoint("{scenario}", split, "{role}", kind))
            run(
                f"simulation-{variant}-{split}",
                model_factory("simulation", variant=variant, **sim),
                resources=AgentResources({"A": template, "B": template}),
                train_split=split,
            )
    return paths


def stage_report(cfg: BenchmarkConfig, paths: list[Path], timings: dict[str, float], accuracies: dict) -> str:
    from marple_eval.plots import plot_runs
    from marple_eval.report import comparison_table
    from marple_eval.results import RunResults

    runs = [RunResults.load(p) for p in paths]
    table = comparison_table(runs)
    plot = plot_runs(runs, cfg.out / "figure4.png", title=f"MARPLE-Gym benchmark ({cfg.preset.name} preset)")
    lines = [
        f"# MARPLE-Gym benchmark, {cfg.preset.name} preset",
        "",
        f"Evidence needed to reach 0.8 accuracy (lower is better), {cfg.preset.trials} trials per scenario, "
        f"{cfg.preset.rollouts} rollouts; the paper's Table 2 rows for reference.",
        "",
        table,
        "",
        "Stage times (s): " + ", ".join(f"{k} {v:.0f}" for k, v in timings.items()),
        "",
        "Agent-model held-out accuracy: "
        + ", ".join(f"{k} {v:.3f}" for k, v in sorted(accuracies.items()) if v is not None),
        "",
        f"![accuracy against evidence]({plot.name})",
    ]
    text = "\n".join(lines)
    (cfg.out / "summary.md").write_text(text + "\n")
    (cfg.out / "benchmark.json").write_text(
        json.dumps(
            {
                "preset": asdict(cfg.preset),
                "scenarios": list(cfg.scenarios),
                "seed": cfg.seed,
                "timings": timings,
                "accuracies": accuracies,
                "results": [str(p) for p in paths],
            },
            indent=1,
            default=str,
        )
    )
    return text


def run_benchmark(cfg: BenchmarkConfig) -> str:
    """All four stages; returns the summary (also written to ``cfg.out/summary.md``)."""
    cfg.out.mkdir(parents=True, exist_ok=True)
    timings: dict[str, float] = {}

    def timed(name: str, stage):
        start = time.perf_counter()
        out = stage(cfg)
        timings[name] = time.perf_counter() - start
        return out

    timed("data", stage_data)
    accuracies = timed("models", stage_models)
    paths = timed("inference", stage_inference)
    return stage_report(cfg, paths, timings, accuracies)


# ---- the command ------------------------------------------------------------------------------------------------


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "benchmark",
        help="the whole benchmark: generate data, train agent models, run inference, report",
        description=(
            "Generate the data, train the agent models, run simulation inference for the five scenarios (every "
            "variant), and write results, a Table-2-style summary and Figure-4-style plots. --preset small (the "
            f"default) finishes {PRESETS['small'].estimate}; --preset paper uses the paper's sizes and takes "
            f"{PRESETS['paper'].estimate}. A rerun resumes where it stopped."
        ),
    )
    parser.add_argument("--preset", choices=sorted(PRESETS), default="small", help="sizes (default: small)")
    parser.add_argument("--out", default=None, help="output directory (default: runs/benchmark-<preset>)")
    parser.add_argument("--scenario", action="append", default=[], metavar="NAME", help="scenario (default: all five)")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated: vision,audio,language,all")
    parser.add_argument(
        "--splits",
        default=None,
        help="agent models' training splits, comma-separated: in, ood (small: in; paper: both)",
    )
    parser.add_argument("--trials", type=positive_int, default=None, help="test trials per scenario (preset default)")
    parser.add_argument("--rollouts", type=positive_int, default=None, help="Monte Carlo rollouts (preset default)")
    parser.add_argument("--seed", type=seed, default=0, help="seed of data, models and inference (default: 0)")
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        help="processes for data, CPU training and inference (default: all cores)",
    )
    parser.add_argument("--accelerator", default="auto", help="training accelerator: auto, cpu, gpu (default: auto)")
    parser.add_argument("--devices", type=devices, default="auto", help="training devices (default: auto)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    parser.set_defaults(run=run_command)


def run_command(args: argparse.Namespace) -> int:
    from marple_agents.training.train import quiet_lightning
    from marple_gym.missions.scenarios import get_scenario

    preset = PRESETS[args.preset]
    if args.trials is not None:
        if args.trials < 1:
            raise ValueError(f"--trials must be at least 1, got {args.trials}")
        preset = replace(preset, trials=args.trials)
    if args.rollouts is not None:
        if args.rollouts < 1:
            raise ValueError(f"--rollouts must be at least 1, got {args.rollouts}")
        preset = replace(preset, rollouts=args.rollouts)
    if args.splits is not None:
        splits = tuple(dict.fromkeys(x.strip() for x in args.splits.split(",") if x.strip()))
        if not splits or set(splits) - {"in", "ood"}:
            raise ValueError(f"--splits: choose from in, ood (comma-separated), got {args.splits!r}")
        preset = replace(preset, splits=splits)
    variants = tuple(v.strip() for v in args.variants.split(",") if v.strip())
    bad = [v for v in variants if v not in VARIANTS]
    if bad or not variants:
        raise ValueError(f"--variants: unknown {bad}; choose from {', '.join(VARIANTS)}")
    scenarios = tuple(get_scenario(s).name for s in args.scenario) or tuple(SCENARIOS)
    cfg = BenchmarkConfig(
        preset=preset,
        out=Path(args.out or f"runs/benchmark-{preset.name}"),
        scenarios=scenarios,
        variants=variants,
        seed=args.seed,
        workers=args.workers or max(1, os.cpu_count() or 1),
        accelerator=args.accelerator,
        devices=args.devices,
        progress=not args.no_progress,
        verbose=getattr(args, "verbose", False),
    )
    quiet_lightning(getattr(args, "verbose", False))
    print(f"marple benchmark ({preset.name} preset, expected: {preset.estimate}) -> {cfg.out}")
    print(run_benchmark(cfg))
    return 0
