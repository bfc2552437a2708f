"""``marple generate``: write a family's set (``--family``: whodunit datasets by default, belief questions,
expectation trials, or an outside family's items)."""

from __future__ import annotations

from marple.cli.families import add_family_command


def add_parser(subparsers) -> None:
    add_family_command(
        subparsers,
        "generate",
        help="generate a family's set: whodunit datasets (test, train-in, train-ood splits), belief questions or "
        "expectation trials",
        description=(
            "Generate a family's set into a folder, in shards under a manifest: a rerun with the same settings "
            "resumes where it stopped. --family whodunit (the default) writes the paper's dataset splits, --family "
            "beliefs a question set (docs/beliefs.md), --family expectations a trial set (docs/expectations.md). "
            "`marple generate --family NAME --help` lists a family's options."
        ),
    )
