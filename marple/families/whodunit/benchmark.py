"""``marple benchmark`` for whodunits: data, agent models, inference for every variant, results, the summary."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

from marple.benchmark.config import BenchmarkConfig
from marple.benchmark.executors import EXECUTORS
from marple.benchmark.pipeline import run_benchmark, write_train_commands
from marple.benchmark.presets import EVERY_RUN, PRESETS
from marple.benchmark.provenance import record_command
from marple.options import add_device_argument, devices, int_in, positive_float, positive_int, seed
from marple.protocol_options import add_protocol_arguments, protocol_settings
from marple_agents.device import PRECISIONS, devices_for, kind
from marple_agents.search.puct import MAX_SIMULATIONS
from marple_agents.simulation.inference import VARIANTS
from marple_gym.errors import MarpleError
from marple_gym.generation.original import HOUSE_SOURCES
from marple_gym.missions.suspects import MAX_SUSPECTS

DESCRIPTION = (
    "Generate the data, train the agent models, run simulation inference for the five scenarios (every "
    "variant), inverse planning (bip, and the ideal observer as the ceiling), and write results, a "
    "Table-2-style summary with intervals and Figure-4-style plots. "
    "Each run prints what it is expected to take when it starts: a preset's measured time where it is the "
    "measured run (--preset small, the default, about 640 CPU seconds on 2 cores of an Intel Xeon) or a part "
    "of it, a "
    "projection for --preset gpu (the paper's data, m = 100, a model sized for an afternoon on one GPU) and "
    "--preset paper (the paper's sizes) (docs/gpu.md). Budgets are steps, trials and rollouts, never time: "
    "the same command and seed give the same figures on a busy machine. A rerun resumes where it stopped."
)


def arguments(parser: argparse.ArgumentParser) -> None:
    """The whodunit options of ``marple benchmark``."""
    parser.add_argument("--preset", choices=sorted(PRESETS), default="small", help="sizes (default: small)")
    parser.add_argument("--out", default=None, help="output directory (default: runs/benchmark-<preset>)")
    parser.add_argument("--scenario", action="append", default=[], metavar="NAME", help="scenario (default: all five)")
    parser.add_argument(
        "--suspects",
        type=int_in(2, MAX_SUSPECTS),
        metavar="N",
        help="the N-suspect scenarios instead (sandwich, light, television, clothes; --scenario picks among them): "
        "N suspects whose query state several of them can produce (default with --shared: 3)",
    )
    parser.add_argument(
        "--shared", action="store_true", help="the N suspects act at once in one shared house (with --suspects)"
    )
    parser.add_argument(
        "--houses",
        choices=HOUSE_SOURCES,
        default="random",
        help="the five scenarios' test and train-in houses: random (the default) or original (the house the "
        "original benchmark published for each; docs/datasets.md compares their horizons with the paper's)",
    )
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated: vision,audio,language,all")
    parser.add_argument(
        "--splits",
        default=None,
        help="agent models' training splits, comma-separated: in, ood (small: in; paper: both)",
    )
    parser.add_argument(
        "--trials", type=positive_int, default=None, help="test trials per scenario (small: 30; paper: 10)"
    )
    parser.add_argument("--rollouts", type=positive_int, default=None, help="Monte Carlo rollouts (preset default)")
    parser.add_argument(
        "--mcts",
        type=int_in(0, MAX_SIMULATIONS),
        default=None,
        metavar="K",
        help="add the MCTS agent-model row (our extension, with the vision-only models as its prior) with K "
        "simulations per rollout step, e.g. --mcts 16 (about 330 CPU s more on the small preset; default: 0, no such "
        "row)",
    )
    parser.add_argument(
        "--train-steps", type=positive_int, default=None, help="optimizer steps per agent model (small: 500)"
    )
    parser.add_argument(
        "--train-minutes",
        type=positive_float,
        default=None,
        help="also cap each agent model's training at this wall-clock time (off by default; the figures then "
        "depend on the machine's load, and the results and summary say so)",
    )
    parser.add_argument(
        "--uncut",
        default=None,
        metavar="RUNS",
        help="runs scored without the cutoff (every cutoff then follows from them), comma-separated from "
        f"{', '.join(EVERY_RUN)} (small: uniform,distance,perfect-agent-models,ideal; paper and gpu: all of them; quick: "
        "uniform,distance); a run scored with the cutoff costs about 60 %% as much but cannot show the figures "
        "without it",
    )
    parser.add_argument(
        "--mission-priors",
        default=None,
        metavar="PRIORS",
        help="mission priors of the methods that take one (ideal, bip, the MCTS row), comma-separated: uniform "
        "(over the scenario's missions; the default), uniform-all (over the ten), labels (PRIVILEGED: each agent's "
        "training split's mission labels, in the paper's setting its test mission); each prior its own results "
        "file, labels runs marked in every table",
    )
    parser.add_argument("--seed", type=seed, default=0, help="seed of data, models and inference (default: 0)")
    parser.add_argument(
        "--seeds",
        type=positive_int,
        default=1,
        help="train every agent model with this many seeds (seed, seed+1, ...) and report the spread (default: 1)",
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        help="processes for data, CPU training and inference (default: all cores)",
    )
    add_device_argument(parser, "where the jobs run (agent models and inference runs, one job per GPU)")
    parser.add_argument(
        "--precision",
        choices=PRECISIONS,
        default="auto",
        help="of the learned models' forward passes at inference: auto (bf16 autocast on a GPU, fp32 on the CPU; "
        "the default), fp32, bf16",
    )
    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default="local",
        help="local: this machine's GPUs, one job each (or its cores); ray: a Ray cluster (RAY_ADDRESS, else one "
        "started here; the ray extra). The figures do not depend on it (default: local)",
    )
    parser.add_argument(
        "--train-commands",
        metavar="FILE",
        default=None,
        help="generate the data, write the 'marple train' command of every agent model not trained yet to FILE "
        "(one a line, e.g. for a SLURM array), and stop; run the same benchmark command again afterwards",
    )
    training = parser.add_argument_group(
        "training only (Lightning's spelling; --device says where every job runs, training included)"
    )
    training.add_argument(
        "--accelerator",
        default="auto",
        help="cpu trains the agent models on the CPU whatever --device says (default: auto)",
    )
    training.add_argument(
        "--devices",
        type=devices,
        default="auto",
        help="N > 1 trains each agent model on N GPUs with DDP, one model at a time (default: auto, one model per GPU)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    parser.add_argument(
        "--yes",
        action="store_true",
        help="start a GPU preset (gpu, paper) whose jobs would run on the CPU without asking first",
    )
    add_protocol_arguments(parser)


def confirm_cpu_run(cfg: BenchmarkConfig, args: argparse.Namespace, expected: str) -> bool:
    """Whether to start: a GPU preset whose jobs would run on this machine's CPU (it has no GPU, or --device cpu)
    is said so and asked about first, unless --yes; without a terminal to ask on, it is refused (exit 2) with the
    hint. Jobs sent to a Ray cluster run where its GPUs are: nothing to ask."""
    if not cfg.preset.gpu or cfg.executor == "ray" or any(kind(d) == "cuda" for d in devices_for(cfg.device)):
        return True
    why = "--device cpu" if str(cfg.device).strip().lower() == "cpu" else "this machine has no GPU that torch can use"
    warning = (
        f"--preset {cfg.preset.name} is sized for a GPU (expected there: {expected}), and its jobs would run on "
        f"the CPU ({why}): days, not hours"
    )
    if args.yes:
        print(f"warning: {warning}; starting anyway (--yes)", file=sys.stderr)
        return True
    small = PRESETS["small"].measured
    hint = "pass --yes to start it on the CPU anyway, or run --preset small" + (
        f" ({small.time} {small.conditions})" if small else ""
    )
    if not sys.stdin.isatty():
        raise MarpleError(f"{warning}. Not started: {hint}")
    print(f"warning: {warning}.", file=sys.stderr)
    answer = input(f"Start --preset {cfg.preset.name} on the CPU anyway? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def benchmark(args: argparse.Namespace) -> int:
    """Run the benchmark the options ask for and print its summary."""
    from marple_agents.training.train import quiet_lightning  # Lightning: only once a run starts

    cfg = BenchmarkConfig.from_options(
        args.preset,
        out=args.out,
        scenarios=args.scenario,
        suspects=args.suspects,
        shared=args.shared,
        houses=args.houses,
        variants=args.variants,
        splits=args.splits,
        trials=args.trials,
        rollouts=args.rollouts,
        mcts=args.mcts,
        train_steps=args.train_steps,
        uncut=args.uncut,
        workers=args.workers,
        mission_priors=args.mission_priors,
        seed=args.seed,
        seeds=args.seeds,
        protocol=protocol_settings(args, seed=args.seed),
        thresholds=args.threshold,
        train_minutes=args.train_minutes,
        accelerator=args.accelerator,
        devices=args.devices,
        device=args.device,
        precision=args.precision,
        executor=args.executor,
        progress=not args.no_progress,
        verbose=getattr(args, "verbose", False),
    )
    quiet_lightning(getattr(args, "verbose", False))
    if args.train_commands:
        print(write_train_commands(cfg, Path(args.train_commands)))
        return 0

    # The estimate counts the models' FLOPs with torch, which the command line loads only when a run starts.
    from marple.benchmark.estimate import expected_time

    expected = expected_time(cfg)
    if not confirm_cpu_run(cfg, args, expected):
        print("not started", file=sys.stderr)
        return 1
    print(f"marple benchmark ({cfg.preset.name} preset, expected: {expected}) -> {cfg.out}")
    started = datetime.now(timezone.utc)
    summary = run_benchmark(cfg)
    record_command(cfg.report_dir, getattr(args, "argv", ["benchmark"]), started)
    print(summary)
    return 0
