"""The stages of ``marple benchmark``; each resumes (work whose output exists is skipped).

1. **data**: ``marple generate`` for the scenarios (test pairs, train-in and
   train-ood, so a later run that adds out-of-distribution models resumes);
2. **models**: a vision-only and a language-conditioned policy for each agent
   (two per scenario, N with N suspects), training split and model seed, each for a fixed number
   of optimizer steps;
3. **inference**: simulation inference for each variant, split and model seed,
   inverse planning with the language-conditioned models as likelihood
   (``bip``) for each split and model seed, the perfect-agent-model row (the
   planner with the scenario's preferences), the ideal observer (the ceiling)
   and the two reference models. Runs the preset names in ``uncut`` are
   scored without the cutoff, and the summary shows them with it exactly
   (:meth:`marple_eval.results.RunResults.with_cutoff`) and without it; the
   others under the protocol's cutoff only (scoring without it costs about
   four times as much);
4. **report**: :mod:`marple_benchmark.summary`.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import NamedTuple

from marple_agents.simulation.inference import POLICY_OF_VARIANT, VARIANTS
from marple_benchmark.presets import BenchmarkPreset
from marple_eval.protocol import ProtocolSettings
from marple_gym.datasets.generate import DatasetSpec, Unit, generate_dataset
from marple_gym.missions.scenarios import SCENARIOS, get_scenario

log = logging.getLogger(__name__)

BIP_POLICY = "language"
"""The kind of agent model whose action probabilities are ``bip``'s likelihood (given each hypothesis's subgoal)."""
MCTS_POLICY = "vision"
"""The kind of agent model the MCTS row's search takes as its prior (as the paper's vision-only variant rolls out)."""


@dataclass
class BenchmarkConfig:
    """One benchmark run: a preset, where it writes, and what it covers."""

    preset: BenchmarkPreset
    out: Path
    scenarios: tuple[str, ...] = tuple(SCENARIOS)
    variants: tuple[str, ...] = tuple(VARIANTS)
    seed: int = 0  # data, inference and the first model seed
    seeds: int = 1  # agent models trained with seeds seed, seed + 1, ...
    protocol: ProtocolSettings = ProtocolSettings()  # the headline view; runs are scored without a cutoff
    thresholds: tuple[float, ...] = (0.8, 0.6)
    train_minutes: float | None = None  # an explicit wall-clock budget per model (not reproducible)
    workers: int = max(1, os.cpu_count() or 1)
    accelerator: str = "auto"
    devices: int | str = "auto"
    progress: bool = True
    verbose: bool = False

    @property
    def data(self) -> Path:
        return self.out / "data"

    @property
    def roles(self) -> list[str]:
        """Every agent role of the scenarios: A and B, and C, D, ... with N suspects."""
        return list(dict.fromkeys(r for s in self.scenarios for r in get_scenario(s).roles))

    @property
    def model_seeds(self) -> list[int]:
        return list(range(self.seed, self.seed + self.seeds))

    def scoring(self, run_key: str) -> ProtocolSettings:
        """The settings a run is scored under: the protocol's, without the cutoff for the preset's ``uncut``
        runs (the summary then shows them both ways)."""
        cutoff = None if run_key in self.preset.uncut else self.protocol.cutoff
        return replace(self.protocol, seed=self.seed, cutoff=cutoff)

    def checkpoint(self, scenario: str, split: str, role: str, kind: str, model_seed: int) -> Path:
        return self.out / "models" / f"seed-{model_seed}" / scenario / split / f"{role}-{kind}" / "policy.pt"

    def results(self, name: str) -> Path:
        return self.out / "results" / f"{name}.json"


# ---- data -----------------------------------------------------------------------------------------------------


def stage_data(cfg: BenchmarkConfig) -> None:
    splits = ("test", "train-in", "train-ood")
    spec = DatasetSpec([Unit.scenario(s) for s in cfg.scenarios], cfg.preset.sizes, cfg.seed, splits=splits)
    report = generate_dataset(spec, cfg.data, workers=cfg.workers, progress=cfg.progress)
    log.info("data: %d trajectories (%d shards written)", report.episodes, report.shards_written)


# ---- agent models -----------------------------------------------------------------------------------------------


class ModelJob(NamedTuple):
    """One agent model to train (in :meth:`BenchmarkConfig.checkpoint`'s argument order)."""

    scenario: str
    split: str  # "in" or "ood"
    role: str
    kind: str  # "vision" or "language"
    seed: int

    @property
    def key(self) -> str:
        return f"seed-{self.seed}/{self.scenario}/{self.split}/{self.role}-{self.kind}"


def model_jobs(cfg: BenchmarkConfig) -> list[ModelJob]:
    """Every agent model the variants need (``bip`` uses the language-conditioned ones): one per model seed,
    split, scenario, role and kind of policy."""
    kinds = sorted({POLICY_OF_VARIANT[v] for v in cfg.variants})
    return [
        ModelJob(scenario, split, role, kind, seed)
        for seed in cfg.model_seeds
        for split in cfg.preset.splits
        for scenario in cfg.scenarios
        for role in get_scenario(scenario).roles
        for kind in kinds
    ]


def train_job(cfg: BenchmarkConfig, job: ModelJob, progress: bool) -> None:
    """Train one agent model into its place (``policy.pt`` and ``metrics.json`` beside it)."""
    from marple_agents import train_policy

    budget = dict(cfg.preset.train)
    if cfg.train_minutes is not None:
        budget["max_minutes"] = cfg.train_minutes
    result = train_policy(
        cfg.data,
        unit=job.scenario,
        split=f"train-{job.split}",
        role=job.role,
        model=job.kind,
        preset=cfg.preset.model,
        out_dir=cfg.checkpoint(*job).parent,
        seed=job.seed,
        accelerator=cfg.accelerator,
        devices=cfg.devices,
        progress=progress,
        # In-distribution models are rolled out in the houses they learn in: train in every
        # test house and validate on held-out episodes; ood models on held-out houses.
        holdout="episodes" if job.split == "in" else "houses",
        **budget,
    )
    log.info("trained %s: held-out accuracy %.3f in %d steps", job.key, result.val_accuracy, result.steps)


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


def stage_models(cfg: BenchmarkConfig) -> dict[str, float | None]:
    """Train every agent model the variants need (those not trained yet); return their held-out accuracies."""
    from tqdm import tqdm

    from marple_agents.training.train import read_val_accuracy

    jobs = model_jobs(cfg)
    todo = [job for job in jobs if not cfg.checkpoint(*job).is_file()]
    parallel = _parallel_training(cfg, len(todo))
    bar = tqdm(total=len(jobs), initial=len(jobs) - len(todo), desc="training agent models", disable=not cfg.progress)
    if parallel > 1:
        # One thread per process, whatever the machine is doing: the weights must not depend on the load.
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
    accuracies: dict[str, float | None] = {}
    for job in jobs:
        metrics = cfg.checkpoint(*job).with_name("metrics.json")
        accuracies[job.key] = read_val_accuracy(metrics) if metrics.is_file() else None
    return accuracies


# ---- inference ------------------------------------------------------------------------------------------------


class InferenceRun(NamedTuple):
    """One results file of the benchmark."""

    name: str  # file stem
    key: str  # what the preset's ``uncut`` names: the reference model, "perfect-agent-models" or the variant
    model: str  # registered model name
    kwargs: dict
    agents: dict[str, str] | None  # role -> checkpoint template or "planner"
    method: str | None = None  # how tables name it (default: the model's name)
    split: str | None = None  # the agent models' training split
    model_seed: int | None = None


def inference_runs(cfg: BenchmarkConfig) -> list[InferenceRun]:
    """Every run of the inference stage, in report order."""
    sim = {"rollouts": cfg.preset.rollouts, "seed": cfg.seed}
    # The planner with the scenario's preferences is a perfect agent model only when each agent always does
    # its own mission (preference 1.0); otherwise it ignores what the evidence says about the mission.
    mixed = any(get_scenario(s).preference < 1.0 for s in cfg.scenarios)
    planner_row = "simulation: planner agents (mission from the prior)" if mixed else "simulation: perfect agent models"
    runs = [
        InferenceRun("uniform", "uniform", "uniform", {}, None),
        InferenceRun("distance", "distance", "distance", {}, None),
        InferenceRun(
            "perfect-agent-models",
            "perfect-agent-models",
            "simulation",
            {"variant": "vision", **sim},
            dict.fromkeys(cfg.roles, "planner"),
            method=planner_row,
        ),
        # The ceiling: exact Bayesian inverse planning with the true planner (docs/evaluation.md).
        InferenceRun(
            "ideal",
            "ideal",
            "ideal",
            {"rollouts": cfg.preset.ideal_rollouts, "seed": cfg.seed},
            None,
            "ideal observer",
        ),
    ]
    for model_seed in cfg.model_seeds:
        for split in cfg.preset.splits:
            for variant in cfg.variants:
                kind = POLICY_OF_VARIANT[variant]
                template = str(cfg.checkpoint("{scenario}", split, "{role}", kind, model_seed))
                runs.append(
                    InferenceRun(
                        f"simulation-{variant}-{split}-seed{model_seed}",
                        variant,
                        "simulation",
                        {"variant": variant, **sim},
                        dict.fromkeys(cfg.roles, template),
                        split=split,
                        model_seed=model_seed,
                    )
                )
            if cfg.preset.mcts and MCTS_POLICY in {POLICY_OF_VARIANT[v] for v in cfg.variants}:
                runs.append(mcts_run(cfg, split, model_seed, cfg.preset.mcts))
            # Inverse planning with the same split's language-conditioned models as likelihood, and that split's
            # mission priors: in and out of distribution like the variants, wherever those models are trained.
            if BIP_POLICY not in {POLICY_OF_VARIANT[v] for v in cfg.variants}:
                continue
            template = str(cfg.checkpoint("{scenario}", split, "{role}", BIP_POLICY, model_seed))
            runs.append(
                InferenceRun(
                    f"bip-{split}-seed{model_seed}",
                    "bip",
                    "bip",
                    sim,
                    dict.fromkeys(cfg.roles, template),
                    split=split,
                    model_seed=model_seed,
                )
            )
    return runs


def mcts_run(cfg: BenchmarkConfig, split: str, model_seed: int, simulations: int) -> InferenceRun:
    """Simulation inference with the MCTS agent model (our extension): the split's vision-only policies as the
    search's prior, ``simulations`` steps of search per rollout step, each agent's mission prior from that split."""
    template = str(cfg.checkpoint("{scenario}", split, "{role}", MCTS_POLICY, model_seed))
    return InferenceRun(
        f"simulation-mcts{simulations}-{split}-seed{model_seed}",
        "mcts",
        "simulation",
        {
            "variant": "vision",
            "agent": "mcts",
            "simulations": simulations,
            "rollouts": cfg.preset.rollouts,
            "seed": cfg.seed,
        },
        dict.fromkeys(cfg.roles, template),
        method=f"simulation + MCTS, K = {simulations} (our extension)",
        split=split,
        model_seed=model_seed,
    )


def stage_inference(cfg: BenchmarkConfig) -> list[Path]:
    """Score every run (those without a results file yet); return the results files."""
    from marple_eval.protocol import dataset_episodes
    from marple_gym.datasets.dataset import MarpleDataset

    episodes = dataset_episodes(MarpleDataset(cfg.data), cfg.scenarios, cfg.preset.trials)
    paths = []
    for run in inference_runs(cfg):
        paths.append(cfg.results(run.name))
        if not reusable(cfg, run):
            score_run(cfg, run, episodes)
    return paths


def reusable(cfg: BenchmarkConfig, run: InferenceRun) -> bool:
    """Whether ``run``'s results file serves this configuration: scored under the settings it needs, or under
    the same settings without a cutoff (every cutoff follows exactly from that). A file scored with a cutoff
    where the run is now wanted without one (``--uncut``) is scored again."""
    from marple_eval.results import RunResults

    path = cfg.results(run.name)
    if not path.is_file():
        return False
    made = RunResults.load(path).protocol
    wanted = asdict(cfg.scoring(run.key))
    if made == wanted or made == {**wanted, "cutoff": None}:
        return True
    log.info("%s was scored with protocol %s; scoring it again with %s", path, made, wanted)
    return False


def score_run(cfg: BenchmarkConfig, run: InferenceRun, episodes: list) -> Path:
    """Score one run of the inference stage on ``episodes`` into its results file."""
    from marple_eval.protocol import evaluate, model_factory
    from marple_eval.resources import model_resources

    out = cfg.results(run.name)
    extra = {"dataset": str(cfg.data), "preset": cfg.preset.name}
    if run.split is not None:
        extra.update(train_split=run.split, model_seed=run.model_seed, training_budget=training_budget(cfg))
    resources, recorded = model_resources(run.model, run.kwargs, run.agents, cfg.data, run.split, list(cfg.scenarios))
    extra.update(recorded)
    evaluate(
        model_factory(run.model, **run.kwargs),
        episodes,
        cfg.scoring(run.key),
        method=run.method,
        run_settings=extra,
        resources=resources,
        workers=cfg.workers,
        out=out,
        progress=cfg.progress,
    )
    return out


def training_budget(cfg: BenchmarkConfig) -> str:
    """The agent models' budget in words, as recorded in results files and the summary."""
    budget = ", ".join(f"{k.removeprefix('max_')} {v}" for k, v in cfg.preset.train.items()) or "the model preset's"
    if cfg.train_minutes is not None:
        budget += f", and {cfg.train_minutes:g} minutes of wall-clock time (not reproducible)"
    return budget


# ---- the whole run ------------------------------------------------------------------------------------------------


def run_benchmark(cfg: BenchmarkConfig) -> str:
    """All stages; returns the summary (also written to ``cfg.out/summary.md``)."""
    from marple_benchmark.summary import write_summary

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
    return write_summary(cfg, paths, timings, accuracies)
