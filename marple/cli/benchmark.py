"""``marple benchmark``: a family from nothing to its table (whodunits by default)."""

from __future__ import annotations

from marple.cli.families import add_family_command


def add_parser(subparsers) -> None:
    add_family_command(
        subparsers,
        "benchmark",
        help="the whole benchmark: generate data, train models, score every method, report",
        description=(
            "A family's benchmark from nothing to the table: generate the set, train the learned methods, score "
            "every method, write the tables and plots; a rerun resumes where it stopped. --family whodunit (the "
            "default) runs the paper's pipeline (docs/gpu.md for its presets); --family beliefs or expectations "
            "their own (docs/beliefs.md, docs/expectations.md). `marple benchmark --family NAME --help` lists a "
            "family's options."
        ),
    )
