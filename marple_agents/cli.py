"""``marple train``: train an agent model on a generated dataset.

torch and Lightning are imported only when the command runs, so ``marple
--help`` stays fast. When the data directory holds no dataset (or not the
split asked for), the command stops and prints the exact ``marple generate``
command that creates a suitable one: generating data is a separate, explicit
step, so training never writes surprise gigabytes.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from marple_agents.config import HOLDOUTS, PRESETS
from marple_agents.loggers import LOGGERS
from marple_gym.cli.options import devices, positive_float, positive_int, seed
from marple_gym.errors import MarpleError
from marple_gym.missions.suspects import MAX_SUSPECTS, suspect_labels

ACCELERATORS = ("auto", "cpu", "gpu", "cuda", "mps")

SPLITS = {"in": "train-in", "ood": "train-ood"}
ROLES = suspect_labels(MAX_SUSPECTS)


def add_train_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train an agent model (vision-only or language-conditioned policy) with Lightning",
        description=(
            "Behaviour cloning of one agent's next action from its vision array (and, for --model language, its "
            "current subgoal), validated on held-out houses (or, with --holdout episodes, on held-out episodes of "
            "every house). --preset small trains on 2 CPU cores in about "
            "8 minutes; --preset paper is the paper's ViT (depth 15, width 1024, 16 heads) for GPUs. Writes "
            "OUT/policy.pt (weights and config, safe to load), OUT/metrics.json and Lightning logs."
        ),
    )
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
    what.add_argument("--split", choices=tuple(SPLITS), default="in", help="training split: in or ood (default: in)")
    what.add_argument("--model", choices=("vision", "language"), default="vision", help="policy (default: vision)")
    what.add_argument("--preset", choices=tuple(PRESETS), default="small", help="model size (default: small)")
    what.add_argument("--data", default="data/marple", help="dataset directory (default: data/marple)")
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
    parser.set_defaults(run=run_train)


def generate_hint(data: str, unit: str, kind: str, split: str) -> str:
    """The ``marple generate`` command that writes a dataset this training run can use."""
    sizes = "--test-houses 10 --train-per-house 100" if split == "train-in" else "--train-ood 1000"
    return f"marple generate --{kind} {unit} --splits {split} {sizes} --out {data}"


def _unit(args: argparse.Namespace) -> tuple[str, str]:
    from marple_gym.missions.mission import get_mission
    from marple_gym.missions.scenarios import get_scenario

    if args.mission:
        if args.role != "A":
            raise MarpleError("a single mission's dataset has role A only")
        return get_mission(args.mission).name, "mission"
    return get_scenario(args.scenario or "laundry").name, "scenario"


def _check_data(args: argparse.Namespace, unit: str, kind: str, split: str) -> None:
    from marple_gym.datasets import MarpleDataset
    from marple_gym.datasets.generate import load_manifest

    hint = generate_hint(args.data, unit, kind, split)
    if load_manifest(Path(args.data)) is None:
        raise MarpleError(f"{args.data}: no dataset here; create one with\n  {hint}")
    data = MarpleDataset(args.data)
    data.check_complete(args.allow_incomplete)
    if unit not in data.units or not data.shards(unit, split, args.role):
        raise MarpleError(f"{args.data} has no {split} data for {unit!r} role {args.role}; create it with\n  {hint}")


def _check_devices(accelerator: str, count: int | str) -> None:
    """A GPU run needs GPUs: say so before anything is written (Lightning would fail later)."""
    import torch

    if accelerator in ("gpu", "cuda"):
        have = torch.cuda.device_count()
        if have == 0 or (isinstance(count, int) and count > have):
            raise MarpleError(f"--accelerator {accelerator} --devices {count}: this machine has {have} GPU(s)")


def run_train(args: argparse.Namespace) -> int:
    unit, kind = _unit(args)
    split = SPLITS[args.split]
    _check_data(args, unit, kind, split)
    _check_devices(args.accelerator, args.devices)
    from marple_agents.training.train import quiet_lightning

    quiet_lightning(getattr(args, "verbose", False))

    overrides = {
        k: getattr(args, k) for k in ("batch_size", "accumulate", "lr", "holdout") if getattr(args, k) is not None
    }
    out = Path(args.out or f"runs/{unit}-{args.split}-{args.role}-{args.model}")
    created = not out.exists()
    try:
        result = _train(args, unit, split, out, overrides)
    except Exception:
        if created and not (out / "policy.pt").exists():  # a failed run leaves no half-written folder
            shutil.rmtree(out, ignore_errors=True)
        raise
    held_out = result.data["holdout"].removesuffix("s")  # "house" or "episode"
    print(
        f"{result.checkpoint}: held-out-{held_out} accuracy {result.val_accuracy:.3f} "
        f"({result.steps} steps in {result.train_seconds:.0f} s, {result.samples_per_second:.0f} samples/s)"
    )
    return 0


def _train(args: argparse.Namespace, unit: str, split: str, out: Path, overrides: dict):
    from marple_agents.training.train import train_policy

    return train_policy(
        args.data,
        unit=unit,
        split=split,
        role=args.role,
        model=args.model,
        preset=args.preset,
        out_dir=out,
        seed=args.seed,
        max_epochs=args.max_epochs,
        max_steps=args.max_steps,
        max_minutes=args.max_minutes,
        accelerator=args.accelerator,
        devices=args.devices,
        strategy=args.strategy,
        progress=not args.no_progress,
        record={"dataset_incomplete": True} if args.allow_incomplete and not _complete(args.data) else None,
        logger=args.logger,
        **overrides,
    )


def _complete(root: str) -> bool:
    from marple_gym.datasets import MarpleDataset

    return MarpleDataset(root).complete
