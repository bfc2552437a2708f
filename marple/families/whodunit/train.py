"""``marple train`` for whodunits: an agent model (vision-only or language-conditioned policy) trained with
Lightning on a generated dataset.

torch and Lightning are imported only when the command runs, so ``marple --help`` stays fast. The command parses
its options into a :class:`~marple_agents.training.request.TrainingRequest` and runs it with
:func:`~marple_agents.training.request.run_training`, which checks the data (naming the ``marple generate``
command that writes what is missing) first.
"""

from __future__ import annotations

import argparse

from marple.options import devices, positive_float, positive_int, seed
from marple_agents.config import HOLDOUTS, PRESETS, TRAINING_SPLITS
from marple_agents.loggers import LOGGERS
from marple_gym.missions.suspects import MAX_SUSPECTS, suspect_labels

ACCELERATORS = ("auto", "cpu", "gpu", "cuda", "mps")
ROLES = suspect_labels(MAX_SUSPECTS)
DESCRIPTION = (
    "Behaviour cloning of one agent's next action from its vision array (and, for --model language, its "
    "current subgoal), validated on held-out houses (or, with --holdout episodes, on held-out episodes of "
    "every house). --preset small trains on 2 CPU cores in about "
    "8 minutes; --preset paper is the paper's ViT (depth 15, width 1024, 16 heads) for GPUs. Writes "
    "OUT/policy.pt (weights and config, safe to load), OUT/metrics.json and Lightning logs."
)


def arguments(parser: argparse.ArgumentParser) -> None:
    """The whodunit options of ``marple train``."""
    what = parser.add_argument_group("what to train")
    unit = what.add_mutually_exclusive_group()
    unit.add_argument(
        "--scenario",
        default=None,
        help="scenario: pillow, shower, snack, plant, laundry (default), or an N-suspect one such as sandwich-3",
    )
    unit.add_argument("--mission", default=None, help="a single mission's dataset (role A)")
    what.add_argument(
        "--role",
        choices=ROLES,
        default="A",
        help="agent role: A, B (C, D, ... in N-suspect scenarios; default: A)",
    )
    what.add_argument(
        "--split", choices=tuple(TRAINING_SPLITS), default="in", help="training split: in or ood (default: in)"
    )
    what.add_argument("--model", choices=("vision", "language"), default="vision", help="policy (default: vision)")
    what.add_argument("--preset", choices=tuple(PRESETS), default="small", help="model size (default: small)")
    what.add_argument("--data", default=None, help="dataset directory (default: data/marple)")
    what.add_argument("--out", default=None, help="output directory (default: runs/<unit>-<split>-<role>-<model>)")
    run = parser.add_argument_group("running")
    run.add_argument("--seed", type=seed, default=0, help="seed of weights, split and batches (default: 0)")
    run.add_argument(
        "--max-steps",
        type=positive_int,
        default=None,
        help="optimizer steps (small preset: 6000; reproducible with --seed)",
    )
    run.add_argument(
        "--max-epochs", type=positive_int, default=None, help="epochs (alone, replaces the preset's step budget)"
    )
    run.add_argument(
        "--max-minutes",
        type=positive_float,
        default=None,
        help="also stop after this much wall-clock time (off by default: results then depend on the machine's load)",
    )
    run.add_argument("--batch-size", type=positive_int, default=None, help="batch size (preset default)")
    run.add_argument(
        "--accumulate", type=positive_int, default=None, help="gradient accumulation steps (preset default)"
    )
    run.add_argument("--lr", type=positive_float, default=None, help="peak learning rate (preset default)")
    run.add_argument(
        "--holdout",
        choices=HOLDOUTS,
        default=None,
        help="validate on held-out houses (generalisation; the default) or on held-out episodes of every house",
    )
    run.add_argument("--accelerator", choices=ACCELERATORS, default="auto", help="cpu, gpu, auto (default: auto)")
    run.add_argument("--devices", type=devices, default="auto", help="number of devices or auto (default: auto)")
    run.add_argument("--strategy", default="auto", help="auto, ddp, ... (default: auto)")
    run.add_argument(
        "--logger",
        choices=LOGGERS,
        default="csv",
        help="experiment logger: csv, tensorboard (logging extra) or wandb (wandb extra; WANDB_MODE=offline works) "
        "(default: csv)",
    )
    run.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    run.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="train on a dataset whose generation was interrupted (recorded in metrics.json and the checkpoint)",
    )


def train(args: argparse.Namespace) -> int:
    """Train the agent model the options ask for."""
    # torch and Lightning (the agents extra): only when the command runs
    from marple_agents.training.request import TrainingRequest, run_training
    from marple_agents.training.train import quiet_lightning

    args.data = args.data or "data/marple"
    overrides = {
        k: getattr(args, k) for k in ("batch_size", "accumulate", "lr", "holdout") if getattr(args, k) is not None
    }
    request = TrainingRequest(
        data=args.data,
        scenario=args.scenario,
        mission=args.mission,
        role=args.role,
        split=args.split,
        model=args.model,
        preset=args.preset,
        out=args.out,
        seed=args.seed,
        max_steps=args.max_steps,
        max_epochs=args.max_epochs,
        max_minutes=args.max_minutes,
        overrides=overrides,
        accelerator=args.accelerator,
        devices=args.devices,
        strategy=args.strategy,
        logger=args.logger,
        progress=not args.no_progress,
        allow_incomplete=args.allow_incomplete,
    )
    quiet_lightning(getattr(args, "verbose", False))
    result = run_training(request)
    held_out = result.data["holdout"].removesuffix("s")  # "house" or "episode"
    print(
        f"{result.checkpoint}: held-out-{held_out} accuracy {result.val_accuracy:.3f} "
        f"({result.steps} steps in {result.train_seconds:.0f} s, {result.samples_per_second:.0f} samples/s)"
    )
    return 0
