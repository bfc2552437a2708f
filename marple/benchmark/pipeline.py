"""The stages of ``marple benchmark``; each resumes (work whose output exists is skipped).

1. **data**: ``marple generate`` for the scenarios: the test pairs and the
   training splits of the preset's agent models (a later run that adds
   out-of-distribution models adds train-ood to the same dataset);
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
4. **report**: :mod:`marple.benchmark.summary`.

The models and inference runs are independent jobs: an executor
(:mod:`marple.benchmark.executors`) spreads them over this machine's GPUs, one
job per device, or over a Ray cluster; on the CPU, models train a few at a time
and the inference runs, one after another, spread their trials over one set of
worker processes kept for the whole stage (:class:`~marple_eval.workers.TrialWorkers`:
started once, and what a worker loaded for one run serves the next).
"""

from __future__ import annotations

import functools
import logging
import multiprocessing as mp
import shlex
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from tqdm import tqdm

from marple.benchmark.config import PLANNER_ROWS, BenchmarkConfig, training_budget
from marple.benchmark.executors import Executor, LocalExecutor, make_executor
from marple.benchmark.summary import write_summary
from marple.benchmark.timings import Timings
from marple.runner import MethodRun, run_method, uses_priors
from marple_agents.device import resolve_precision
from marple_agents.simulation.inference import POLICY_OF_VARIANT
from marple_eval.inverse.priors import DEFAULT_MISSION_PRIOR
from marple_eval.protocol import dataset_episodes
from marple_eval.results import RunResults
from marple_eval.settings import ProtocolSettings
from marple_eval.workers import TrialWorkers
from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.datasets.generate import generate_dataset
from marple_gym.datasets.spec import DatasetSpec, Unit
from marple_gym.missions.scenarios import get_scenario

if TYPE_CHECKING:
    import torch

    from marple_agents.training.train import TrainResult

log = logging.getLogger(__name__)

BIP_POLICY = "language"
"""The kind of agent model whose action probabilities are ``bip``'s likelihood (given each hypothesis's subgoal)."""
MCTS_POLICY = "vision"
"""The kind of agent model the MCTS row's search takes as its prior (as the paper's vision-only variant rolls out)."""


# ---- data -----------------------------------------------------------------------------------------------------


def stage_data(cfg: BenchmarkConfig) -> None:
    splits = ("test", *(f"train-{split}" for split in cfg.preset.splits))
    units = [Unit.scenario(s, cfg.houses) for s in cfg.scenarios]
    spec = DatasetSpec(units, cfg.preset.sizes, cfg.seed, splits=splits)
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


def budget_arguments(cfg: BenchmarkConfig) -> dict:
    """Each agent model's budget, as ``train_policy`` arguments: the preset's, and the wall-clock cap if set."""
    budget = dict(cfg.preset.train)
    if cfg.train_minutes is not None:
        budget["max_minutes"] = cfg.train_minutes
    return budget


def train_job(cfg: BenchmarkConfig, job: ModelJob, device: str = "cpu") -> TrainResult:
    """Train one agent model into its place (``policy.pt`` and ``metrics.json`` beside it) on ``device``: "cpu",
    "cuda:N", or "cuda" for the GPUs ``cfg.devices`` asks Lightning for (DDP)."""
    from marple_agents import train_policy  # Lightning: loaded by the jobs that train

    if device == "cpu":
        accelerator, devices = "cpu", 1
    else:
        accelerator, devices = "gpu", cfg.devices if device == "cuda" else [int(device.split(":")[1])]
    result = train_policy(
        cfg.data,
        unit=job.scenario,
        split=f"train-{job.split}",
        role=job.role,
        model=job.kind,
        preset=cfg.preset.model,
        out_dir=cfg.checkpoint(*job).parent,
        seed=job.seed,
        accelerator=accelerator,
        devices=devices,
        progress=cfg.progress and mp.parent_process() is None,  # bars only from the main process
        # In-distribution models are rolled out in the houses they learn in: train in every
        # test house and validate on held-out episodes; ood models on held-out houses.
        holdout="episodes" if job.split == "in" else "houses",
        **budget_arguments(cfg),
    )
    log.info("trained %s: held-out accuracy %.3f in %d steps", job.key, result.val_accuracy, result.steps)
    return result


def training_executor(cfg: BenchmarkConfig) -> Executor | None:
    """The executor of the models stage; None: each model on all the GPUs ``--devices`` names (DDP), in turn."""
    if isinstance(cfg.devices, int) and cfg.devices > 1 and cfg.accelerator != "cpu":
        return None
    return make_executor(cfg.executor, "cpu" if cfg.accelerator == "cpu" else cfg.device, cfg.verbose)


def stage_models(cfg: BenchmarkConfig) -> dict[str, float | None]:
    """Train every agent model the variants need (those not trained yet); return their held-out accuracies."""
    from marple_agents.training.train import read_val_accuracy  # Lightning: loaded once there are models

    jobs = model_jobs(cfg)
    todo = [job for job in jobs if not cfg.checkpoint(*job).is_file()]
    bar = tqdm(total=len(jobs), initial=len(jobs) - len(todo), desc="training agent models", disable=not cfg.progress)
    executor = training_executor(cfg)
    if todo and executor is None:
        for job in todo:
            train_job(cfg, job, "cuda")
            bar.update(1)
    elif todo:
        # On CPUs, one model per worker with the cores shared out (small models use one core better than two:
        # two single-threaded runs do about 1.4 times the work of one on two threads).
        for _ in executor.run(functools.partial(train_job, cfg), todo, parallel=cfg.workers):
            bar.update(1)
    bar.close()
    accuracies: dict[str, float | None] = {}
    for job in jobs:
        metrics = cfg.checkpoint(*job).with_name("metrics.json")
        accuracies[job.key] = read_val_accuracy(metrics) if metrics.is_file() else None
    return accuracies


TRAIN_FLAGS = {"max_steps": "--max-steps", "max_epochs": "--max-epochs", "max_minutes": "--max-minutes"}
"""The preset budgets ``marple train`` takes as options."""


def train_command(cfg: BenchmarkConfig, job: ModelJob) -> list[str]:
    """The ``marple train`` command that writes exactly the checkpoint :func:`train_job` writes for ``job``."""
    budget = budget_arguments(cfg)
    unknown = sorted(set(budget) - set(TRAIN_FLAGS))
    if unknown:
        raise ValueError(f"preset {cfg.preset.name!r}: no 'marple train' option for {', '.join(unknown)}")
    command = ["marple", "train", "--scenario", job.scenario, "--split", job.split, "--role", job.role]
    command += ["--model", job.kind, "--preset", cfg.preset.model, "--data", str(cfg.data)]
    command += ["--out", str(cfg.checkpoint(*job).parent), "--seed", str(job.seed)]
    command += ["--holdout", "episodes" if job.split == "in" else "houses", "--devices", "1", "--no-progress"]
    for key, value in budget.items():
        command += [TRAIN_FLAGS[key], str(value)]
    return command


def write_train_commands(cfg: BenchmarkConfig, path: Path) -> str:
    """Generate the data and write the ``marple train`` command of every agent model not trained yet to
    ``path``, one a line (for a SLURM array or any batch system); returns what to do next."""
    stage_data(cfg)
    todo = [job for job in model_jobs(cfg) if not cfg.checkpoint(*job).is_file()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(shlex.join(train_command(cfg, job)) + "\n" for job in todo))
    return (
        f"{path}: {len(todo)} 'marple train' commands, one a line (e.g. sbatch --array=1-{len(todo)}, each task "
        f"running line $SLURM_ARRAY_TASK_ID); then run this benchmark command again without --train-commands"
    )


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
    mission_prior: str = DEFAULT_MISSION_PRIOR  # for the methods that take one (ideal, bip, the MCTS row)


def inference_runs(cfg: BenchmarkConfig) -> list[InferenceRun]:
    """Every run of the inference stage, in report order."""
    sim = {"rollouts": cfg.preset.rollouts, "seed": cfg.seed}
    # The planner with the scenario's preferences is a perfect agent model only when each agent always does
    # its own mission (preference 1.0); otherwise it ignores what the evidence says about the mission.
    mixed = any(get_scenario(s).preference < 1.0 for s in cfg.scenarios)
    planner_row = PLANNER_ROWS[1] if mixed else PLANNER_ROWS[0]
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
    return [with_prior for run in runs for with_prior in prior_runs(cfg, run)]


def prior_runs(cfg: BenchmarkConfig, run: InferenceRun) -> list[InferenceRun]:
    """``run`` once per mission prior of ``cfg`` if its method takes one (the default prior under the run's own
    name, any other under ``<name>-prior-<prior>``), else as it is."""
    if not takes_prior(run):
        return [run]
    return [
        run._replace(
            name=run.name if prior == DEFAULT_MISSION_PRIOR else f"{run.name}-prior-{prior}", mission_prior=prior
        )
        for prior in cfg.mission_priors
    ]


def takes_prior(run: InferenceRun) -> bool:
    """Whether ``run``'s method takes a prior over each agent's missions (ideal, bip, the MCTS row)."""
    return uses_priors(MethodRun(run.model, run.kwargs))


def mcts_run(cfg: BenchmarkConfig, split: str, model_seed: int, simulations: int) -> InferenceRun:
    """Simulation inference with the MCTS agent model (our extension): the split's vision-only policies as the
    search's prior, ``simulations`` steps of search per rollout step, the default mission prior (uniform over the
    scenario's missions; :func:`prior_runs` adds the others)."""
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


def stage_inference(cfg: BenchmarkConfig, timings: Timings | None = None) -> list[Path]:
    """Score every run (those without a results file yet); return the results files. ``timings``: where each
    run's time is recorded when the runs are scored one after the other in this process."""
    episodes = dataset_episodes(MarpleDataset(cfg.data), cfg.scenarios, cfg.preset.trials)
    runs = inference_runs(cfg)
    executor = make_executor(cfg.executor, cfg.device, cfg.verbose)
    todo = [run for run in runs if not reusable(cfg, run, executor.kind)]
    here = isinstance(executor, LocalExecutor) and len(executor.slots(len(todo), 1)) == 1
    # On the CPU one run at a time, its trials over every core, the same worker processes for every run (what
    # they load serves the next run); on GPUs one run per device.
    with TrialWorkers(cfg.workers) if here and cfg.workers > 1 and todo else nullcontext() as pool:
        score = functools.partial(score_run, cfg, episodes=episodes, pool=pool)
        if timings is not None and here:
            score = functools.partial(timings.timed_run, score)
        for _ in executor.run(score, todo):
            pass
    return [cfg.results(run.name) for run in runs]


def reusable(cfg: BenchmarkConfig, run: InferenceRun, device_kind: str = "cpu") -> bool:
    """Whether ``run``'s results file serves this configuration: scored under the settings it needs, or under
    the same settings without a cutoff (every cutoff follows exactly from that), in the precision it needs on
    devices of ``device_kind``. A file scored with a cutoff where the run is now wanted without one (``--uncut``),
    in fp32 where bf16 is wanted, or written before results stored the query probabilities (results version 1),
    is scored again."""
    path = cfg.results(run.name)
    if not path.is_file():
        return False
    scored = RunResults.load(path)
    made = ProtocolSettings.from_record(scored.protocol)
    wanted = cfg.scoring(run.key)
    if takes_prior(run) and scored.mission_prior != run.mission_prior:
        log.info(
            "%s was scored with the %s mission prior; scoring it again with %s",
            path,
            scored.mission_prior,
            run.mission_prior,
        )
        return False
    if scored.stores_query_probabilities is None:
        log.info("%s predates stored query probabilities; scoring it again", path)
        return False
    precision = scored.settings.get("precision")
    if precision is not None and precision != resolve_precision(device_kind, cfg.precision):
        log.info("%s was scored in %s; scoring it again in %s", path, precision, cfg.precision)
        return False
    if made in (wanted, replace(wanted, cutoff=None)):
        return True
    log.info("%s was scored with protocol %s; scoring it again with %s", path, scored.protocol, wanted.record())
    return False


def score_run(
    cfg: BenchmarkConfig, run: InferenceRun, device: str = "cpu", *, episodes: list, pool: TrialWorkers | None = None
) -> Path:
    """Score one run of the inference stage on ``episodes`` into its results file, its learned models (if any)
    on ``device`` (the job's, "cpu" or "cuda:N"), through the model runner: on a GPU,
    :data:`~marple_eval.lockstep.TRIALS_IN_FLIGHT` trials at a time in this process; on the CPU, its trials
    spread over ``pool`` (or ``cfg.workers`` processes started for it)."""
    out = cfg.results(run.name)
    method = MethodRun(
        run.model,
        run.kwargs,
        run.agents,
        cfg.data,
        run.split,
        tuple(cfg.scenarios),
        job_device(device),
        cfg.precision,
        run.mission_prior,
    )
    run_method(
        method,
        episodes,
        cfg.scoring(run.key),
        label=run.method,
        run_settings=run_settings(cfg, run),
        processes=cfg.workers,
        pool=pool,
        out=out,
        progress=cfg.progress and mp.parent_process() is None,
    )
    return out


def run_settings(cfg: BenchmarkConfig, run: InferenceRun) -> dict:
    """What the benchmark records in a run's results besides the method's own settings: the data, the preset and,
    for learned agent models, their split, seed and budget; the true planner as every agent's model, by name."""
    recorded: dict = {"dataset": str(cfg.data), "preset": cfg.preset.name}
    if run.agents and all(agent == "planner" for agent in run.agents.values()):
        recorded["agents"] = run.agents  # the true planner as every agent's model: told the missions
    if run.split is not None:
        recorded.update(train_split=run.split, model_seed=run.model_seed, training_budget=training_budget(cfg))
    return recorded


def job_device(device: str) -> torch.device:
    """The device an executor gave a job, by name ("cpu", "cuda:N"): chosen already, so handed to the runner as the
    :class:`torch.device` it is, not resolved again."""
    import torch  # heavy, and imported by a job only: the benchmark's command line loads without it

    return torch.device(device)


# ---- the whole run ------------------------------------------------------------------------------------------------


def run_benchmark(cfg: BenchmarkConfig) -> str:
    """All stages; returns the summary (also written to ``summary.md`` in :attr:`BenchmarkConfig.report_dir`)."""
    cfg.report_dir.mkdir(parents=True, exist_ok=True)
    timings = Timings()
    timings.stage("data", lambda: stage_data(cfg))
    accuracies = timings.stage("models", lambda: stage_models(cfg))
    paths = timings.stage("inference", lambda: stage_inference(cfg, timings))
    return write_summary(cfg, paths, timings, accuracies)
