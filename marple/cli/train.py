"""``marple train``: train a family's learned model (whodunit agent models by default; bip's belief policy; the
ToMnet rater)."""

from __future__ import annotations

from marple.cli.families import add_family_command


def add_parser(subparsers) -> None:
    add_family_command(
        subparsers,
        "train",
        help="train a learned model: a whodunit agent model (vision-only or language-conditioned policy), bip's "
        "belief policy or the ToMnet rater",
        description=(
            "Train a family's learned model on its set's training split. --family whodunit (the default) trains "
            "an agent model with Lightning; --family beliefs bip's goal- and belief-conditioned policy; --family "
            "expectations the ToMnet rater. `marple train --family NAME --help` lists a family's options."
        ),
    )
