"""The two export formats every family offers for language-model researchers' tools (``marple export --format
datasets|harness``): a Hugging Face ``datasets`` folder of the family's items, and the same with
lm-evaluation-harness and Inspect tasks beside it (:mod:`marple_eval.harness`; docs/harness.md).

A family offers them by adding :func:`harness_exporters` of its items' source (a function of the set's folder and
``per_type`` to the items and the card's source, e.g. :func:`marple_eval.harness.belief_export`) to its
``exporters``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from marple.families.base import Exporter
from marple.options import positive_int
from marple_eval.harness.datasets_export import Source
from marple_eval.harness.export import export_items
from marple_eval.harness.items import Item

ItemSource = Callable[[str, int | None], tuple[Sequence[Item], Source]]
"""What a family's items are for the harnesses: ``source(data, per_type)`` reads the set in ``data`` (the first
``per_type`` items of each type, all with None) as items, with what its dataset card says of them."""


def harness_exporters(source: ItemSource) -> dict[str, Exporter]:
    """The ``datasets`` and ``harness`` exporters of a family whose items ``source`` reads."""

    def writer(fmt: str) -> Callable[[argparse.Namespace], str]:
        def write(args: argparse.Namespace) -> str:
            if not args.out:
                raise ValueError(f"--format {fmt} needs --out FOLDER, the folder to write")
            written = export_items(*source(args.data, args.per_type), Path(args.out), fmt)
            return f"{len(written)} files into {args.out}"

        return write

    return {
        "datasets": Exporter(
            "a Hugging Face datasets folder of the test items (Parquet, the frames, a dataset card)",
            writer("datasets"),
            _per_type_argument,
        ),
        "harness": Exporter("the datasets folder with lm-evaluation-harness and Inspect tasks", writer("harness")),
    }


def _per_type_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--per-type", type=positive_int, metavar="N",
        help="datasets, harness: the first N items of each type, a stratified subsample (whodunit: trials)",
    )  # fmt: skip
