"""``marple slice``: the in-distribution benchmark one agent model at a time (run, add, list, merge, manifest)."""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

from marple.benchmark.config import preset_with
from marple.benchmark.ledger import LEDGER, REFERENCE, add_slice, landed, ledger_table, series_dir
from marple.benchmark.merge import merge_slices
from marple.benchmark.presets import PRESETS
from marple.benchmark.slices import SLICE_SPLITS, SliceKey, read_slice, run_slice, slice_config
from marple.options import add_device_argument, positive_int, seed
from marple_agents.device import PRECISIONS, resolve_device
from marple_gym.datasets.generate import generate_dataset
from marple_gym.datasets.manifest import MANIFEST
from marple_gym.datasets.spec import DatasetSpec, Unit
from marple_gym.missions.scenarios import SCENARIOS


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "slice",
        help="the in-distribution benchmark one agent model at a time, for short loans of a GPU",
        description=(
            "A slice regenerates one scenario's in-distribution data from the seed (checked against a reference "
            "manifest), trains one agent model as 'marple benchmark' trains it, and scores that agent on every test "
            "trial of its scenario for the variants the model serves; the slice files of a scenario's agents merge "
            "into the benchmark's results files exactly (docs/gpu.md)."
        ),
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    run = sub.add_parser("run", help="run one slice: SCENARIO/ROLE-KIND, e.g. laundry/A-vision")
    run.add_argument("slice", help="SCENARIO/ROLE-KIND: laundry/A-vision, snack/B-language, ...")
    add_series_arguments(run)
    run.add_argument(
        "--manifest",
        default=None,
        help="the reference dataset manifest the regenerated data must match (default: the series folder's)",
    )
    run.add_argument("--ledger", default=None, help="the series folder (default: the package's, by preset and seed)")
    run.add_argument("--work", default=None, help="data and model go here (default: runs/slice-<slice>)")
    run.add_argument("--out", default=".", help="folder for the slice file (default: the current one)")
    run.add_argument("--trials", type=positive_int, default=None, help="test trials of the scenario (preset's)")
    run.add_argument("--rollouts", type=positive_int, default=None, help="Monte Carlo rollouts (preset's)")
    run.add_argument("--train-steps", type=positive_int, default=None, help="optimizer steps (preset's budget)")
    run.add_argument("--workers", type=positive_int, default=None, help="processes for data and CPU inference")
    add_device_argument(run, "where the model trains and runs")
    run.add_argument("--precision", choices=PRECISIONS, default="auto", help="of inference's forward passes")
    run.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    run.set_defaults(run=run_one)

    add = sub.add_parser("add", help="check slice files and enter them in their series' ledger")
    add.add_argument("files", nargs="+", help="slice files written by 'marple slice run'")
    add.add_argument("--ledger", default=None, help="the series folder (default: the package's, by preset and seed)")
    add.add_argument("--replace", action="store_true", help="replace a slice the ledger already holds")
    add.set_defaults(run=run_add)

    listing = sub.add_parser("list", help="every slice of the series: where and when it ran, or missing")
    add_series_arguments(listing)
    listing.add_argument("--ledger", default=None, help="the series folder (default: the package's)")
    listing.set_defaults(run=run_list)

    merge = sub.add_parser("merge", help="assemble the landed slices into the benchmark's results files")
    add_series_arguments(merge)
    merge.add_argument("files", nargs="*", help="slice files (default: those the series' ledger lists)")
    merge.add_argument("--ledger", default=None, help="the series folder (default: the package's)")
    merge.add_argument("--out", required=True, help="benchmark folder: its results/ gets one file per run")
    merge.set_defaults(run=run_merge)

    manifest = sub.add_parser(
        "manifest", help="generate the series' in-distribution data here and keep its manifest as the reference"
    )
    add_series_arguments(manifest)
    manifest.add_argument("--work", default=None, help="where the data is generated (default: runs/slice-data)")
    manifest.add_argument("--ledger", default=None, help="the series folder (default: the package's)")
    manifest.add_argument("--workers", type=positive_int, default=None, help="processes (default: all cores)")
    manifest.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    manifest.set_defaults(run=run_manifest)


def add_series_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", choices=sorted(PRESETS), default="paper", help="benchmark preset (default: paper)")
    parser.add_argument("--seed", type=seed, default=0, help="seed of data, model and inference (default: 0)")


def ledger_folder(args: argparse.Namespace) -> Path:
    return Path(args.ledger) if args.ledger else series_dir(args.preset, args.seed)


def run_one(args: argparse.Namespace) -> int:
    from marple_agents.training.train import quiet_lightning  # Lightning: only once a slice starts

    key = SliceKey.parse(args.slice)
    preset = preset_with(PRESETS[args.preset], trials=args.trials, rollouts=args.rollouts, train_steps=args.train_steps)
    manifest = Path(args.manifest) if args.manifest else ledger_folder(args) / REFERENCE
    if not manifest.is_file():
        raise FileNotFoundError(
            f"no reference manifest {manifest}: give one with --manifest, or make it with 'marple slice manifest "
            f"--preset {args.preset} --seed {args.seed}'"
        )
    quiet_lightning(getattr(args, "verbose", False))
    cfg = slice_config(
        key,
        preset,
        args.work or f"runs/slice-{key.file_name.removesuffix('.json')}",
        seed=args.seed,
        device=args.device,
        precision=args.precision,
        workers=args.workers or os.cpu_count() or 1,
        progress=not args.no_progress,
        verbose=getattr(args, "verbose", False),
    )
    print(f"marple slice {key.name} ({preset.name} preset, seed {args.seed}; variants {', '.join(key.variants)})")
    if preset.model != "small" and str(resolve_device(args.device)) == "cpu":
        print(f"note: no GPU here; a {preset.model}-size model trains for hours on the CPU")
    path = run_slice(cfg, key, manifest, args.out)

    done = read_slice(path)
    seconds = ", ".join(f"{part} {s:.0f} s" for part, s in done.seconds.items())
    print(f"{path}: on {done.card}, held-out accuracy {done.model['val_accuracy']:.3f}; {seconds}")
    return 0


def run_add(args: argparse.Namespace) -> int:
    for file in args.files:
        piece = read_slice(file)
        folder = Path(args.ledger) if args.ledger else series_dir(piece.preset["name"], piece.seed)
        entry = add_slice(folder, file, replace=args.replace)
        print(f"{entry['slice']}: entered in {folder / LEDGER} ({entry['card']}, {entry['date']})")
    return 0


def run_list(args: argparse.Namespace) -> int:
    print(ledger_table(ledger_folder(args)))
    return 0


def run_merge(args: argparse.Namespace) -> int:
    slices = [read_slice(f) for f in args.files] if args.files else landed(ledger_folder(args))
    if not slices:
        raise ValueError(f"no slices to merge in {ledger_folder(args)}")
    for found in merge_slices(slices, args.out):
        lacking = ", ".join(k.name for keys in found.missing.values() for k in keys)
        if found.run is None:
            print(f"{found.variant}: nothing to write (lacking {lacking})")
            continue
        note = f"; scenarios left out, lacking {lacking}" if lacking else ""
        print(f"{found.variant}: {len(found.run.trials)} trials of {', '.join(found.scenarios)}{note}")
    print(f"results: {Path(args.out) / 'results'} (marple report {Path(args.out) / 'results'}/*.json)")
    return 0


def run_manifest(args: argparse.Namespace) -> int:
    preset = PRESETS[args.preset]
    work = Path(args.work or "runs/slice-data")
    spec = DatasetSpec([Unit.scenario(s) for s in SCENARIOS], preset.sizes, args.seed, splits=SLICE_SPLITS)
    report = generate_dataset(spec, work, workers=args.workers, progress=not args.no_progress)
    folder = ledger_folder(args)
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(work / MANIFEST, folder / REFERENCE)
    print(f"{folder / REFERENCE}: the checksums of {len(report.manifest['shards'])} shards ({work} may be removed)")
    return 0
