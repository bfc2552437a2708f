"""``marple export``: a dataset split as a Minari dataset or a Parquet file."""

from __future__ import annotations

import argparse

from marple_gym.datasets.export import FORMATS, export_dataset


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write a dataset split as a Minari dataset or a Parquet file",
        description=(
            "Decode one unit's split of a dataset written by `marple generate` and write it where offline-RL and "
            "analysis tools read it: a Minari dataset (minari.load_dataset) or Parquet, one row per step. "
            'Needs the export extra: pip install "marple-gym[export]".'
        ),
    )
    parser.add_argument("data", metavar="DIR", help="dataset directory (from `marple generate`)")
    parser.add_argument("--unit", required=True, help="scenario or mission unit, e.g. laundry or get_snack")
    parser.add_argument("--split", default="train-in", help="test, train-in or train-ood (default: train-in)")
    parser.add_argument("--role", choices=["A", "B"], help="only this agent's trajectories (default: both)")
    parser.add_argument("--format", choices=FORMATS, required=True, help="minari or parquet")
    parser.add_argument(
        "--out", help="parquet: the file to write; minari: the dataset id (default: marple/UNIT/SPLIT-v0)"
    )
    parser.add_argument("--minari-root", metavar="DIR", help="Minari's datasets folder (default: ~/.minari/datasets)")
    parser.set_defaults(run=run_export)


def run_export(args: argparse.Namespace) -> int:
    exported = export_dataset(
        args.data, args.unit, args.split, args.format, args.out, role=args.role, minari_root=args.minari_root
    )
    print(f"wrote {exported}")
    return 0
