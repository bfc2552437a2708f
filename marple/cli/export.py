"""``marple export``: a dataset split as a Minari dataset or a Parquet file; a family's items as a ``datasets``
folder, with lm-evaluation-harness and Inspect tasks."""

from __future__ import annotations

import argparse

from marple.cli.families import add_family_argument
from marple_gym.datasets.export import FORMATS, export_dataset

ITEM_FORMATS = ("datasets", "harness")
"""A family's items (marple_eval.harness): every family, a set as `marple generate` wrote it."""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write a dataset split as Minari or Parquet, or a family's items for datasets, lm-eval and Inspect",
        description=(
            "Decode one unit's split of a dataset written by `marple generate` and write it where offline-RL and "
            "analysis tools read it: a Minari dataset (minari.load_dataset) or Parquet, one row per step. "
            'Needs the export extra (pip install "marple-gym[export]", or pip install -e ".[export]" in a clone). '
            "Or write a family's test items (--format datasets: a Hugging Face datasets folder with the frames and "
            "a dataset card; --format harness: the same with lm-evaluation-harness and Inspect tasks beside it; "
            "the harness extra runs them): docs/harness.md."
        ),
    )
    parser.add_argument("data", metavar="DIR", help="dataset or set directory (from `marple generate`)")
    add_family_argument(parser)
    parser.add_argument("--unit", help="minari, parquet: scenario or mission unit, e.g. laundry or get_snack")
    parser.add_argument("--split", default="train-in", help="minari, parquet: test, train-in or train-ood")
    parser.add_argument("--role", choices=["A", "B"], help="minari, parquet: only this agent's trajectories")
    parser.add_argument(
        "--format", choices=FORMATS + ITEM_FORMATS, required=True, help="minari, parquet, datasets or harness"
    )
    parser.add_argument(
        "--out",
        help="parquet: the file to write; minari: the dataset id (default: marple/UNIT/SPLIT-v0); datasets, "
        "harness: the folder to write",
    )
    parser.add_argument("--minari-root", metavar="DIR", help="Minari's datasets folder (default: ~/.minari/datasets)")
    parser.add_argument(
        "--per-type", type=int, metavar="N", help="datasets, harness: the first N items of each type (whodunit: trials)"
    )
    parser.set_defaults(run=run_export)


def run_export(args: argparse.Namespace) -> int:
    if args.format in ITEM_FORMATS:
        from marple_eval.harness.export import export_family

        if not args.out:
            raise ValueError(f"--format {args.format} needs --out DIR, the folder to write")
        written = export_family(args.family, args.data, args.out, args.format, per_type=args.per_type)
        print(f"wrote {len(written)} files into {args.out}")
        return 0
    if not args.unit or args.family != "whodunit":
        raise ValueError(f"--format {args.format} exports a whodunit dataset's unit: give --unit (and no --family)")
    exported = export_dataset(
        args.data, args.unit, args.split, args.format, args.out, role=args.role, minari_root=args.minari_root
    )
    print(f"wrote {exported}")
    return 0
