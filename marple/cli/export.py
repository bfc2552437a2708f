"""``marple export``: a family's set written in another format (every family: a ``datasets`` folder and harness
tasks; whodunit datasets: Minari or Parquet; belief questions: MMToM-QA's)."""

from __future__ import annotations

from marple.cli.families import add_family_command


def add_parser(subparsers) -> None:
    add_family_command(
        subparsers,
        "export",
        help="write a set in another format: any family's items as a datasets folder with lm-evaluation-harness "
        "and Inspect tasks, a whodunit split as a Minari dataset or a Parquet file, belief questions in MMToM-QA's",
        description=(
            "Write a family's set where other tools read it. --family whodunit (the default) decodes one unit's "
            "split and writes a Minari dataset (minari.load_dataset) or Parquet, one row per step (the export "
            'extra: pip install "marple-gym[export]"). Every family: --format datasets writes its test items as a '
            "Hugging Face datasets folder (the frames, a dataset card), --format harness the same with "
            "lm-evaluation-harness and Inspect tasks beside it (the harness extra; docs/harness.md). "
            "`marple export --family NAME --help` lists a family's formats and options."
        ),
    )
