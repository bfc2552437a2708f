"""``marple export``: a family's set written in another format (whodunit datasets: Minari or Parquet)."""

from __future__ import annotations

from marple.cli.families import add_family_command


def add_parser(subparsers) -> None:
    add_family_command(
        subparsers,
        "export",
        help="write a set in another format: a whodunit split as a Minari dataset or a Parquet file, belief "
        "questions in MMToM-QA's format",
        description=(
            "Write a family's set where other tools read it. --family whodunit (the default) decodes one unit's "
            "split and writes a Minari dataset (minari.load_dataset) or Parquet, one row per step (the export "
            'extra: pip install "marple-gym[export]"). `marple export --family NAME --help` lists a family\'s '
            "formats and options."
        ),
    )
