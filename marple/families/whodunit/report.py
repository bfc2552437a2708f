"""``marple report`` for whodunit results: a Table-2-style table with the paper's rows, the protocols side by side,
model seeds, Figure-4-style plots, and Table 2 at paper scale from a series' slices."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from marple.benchmark.ledger import landed, series_dir, table2
from marple.options import float_in
from marple.protocol_options import add_cutoff_argument, add_threshold_argument, protocol_changes
from marple_eval.report import (
    comparison_table,
    detail_table,
    paper_protocols_table,
    protocols_table,
    report_runs,
    seeds_table,
    small_group_warnings,
)
from marple_eval.results import NotRescorable, RunResults
from marple_eval.settings import PROTOCOLS

OPTIONS = ("slices", "band", "detail", "text", "no_paper", "threshold", "cutoff", "protocol", "combine", "eta",
           "last_point")  # fmt: skip
"""The ``marple report`` options that only whodunit results take."""


def arguments(parser: argparse.ArgumentParser) -> None:
    """The whodunit options of ``marple report``."""
    parser.add_argument(
        "--slices",
        nargs="?",
        const="",
        metavar="DIR",
        help="instead: Table 2 at paper scale from the landed slices of a series folder (default: the package's "
        "paper-seed0), every missing cell marked (docs/gpu.md)",
    )
    parser.add_argument(
        "--band",
        choices=("paper", "bootstrap"),
        default="paper",
        help="plot bands: the paper's mean +/- sigma/sqrt(n), or the 95%% bootstrap interval (default: paper)",
    )
    parser.add_argument(
        "--detail",
        action="store_true",
        help="also list per scenario and evidence point the mean accuracy with both intervals",
    )
    parser.add_argument("--text", action="store_true", help="plain-text table instead of Markdown")
    parser.add_argument("--no-paper", action="store_true", help="leave out the paper's reference rows")
    add_threshold_argument(parser)
    add_cutoff_argument(
        parser,
        None,
        "also show each run under this cutoff (exact from runs scored with --cutoff none), and use it in the "
        "protocols-side-by-side table (default there: 40)",
    )
    shown = parser.add_argument_group(
        "protocol shown: every run rescored from what it stored, without new rollouts (see docs/evaluation.md)"
    )
    shown.add_argument(
        "--protocol",
        choices=tuple(PROTOCOLS),
        default=None,
        help="show every run under this bundle's combination, eta, cutoff and last point; each keeps its own "
        "margin (another margin means other rollouts), and the protocol column names what is shown",
    )
    shown.add_argument("--combine", choices=("softmax", "ratio"), default=argparse.SUPPRESS, help="change the rule")
    shown.add_argument("--eta", type=float_in(0.0), default=argparse.SUPPRESS, help="change the softmax temperature")
    shown.add_argument("--last-point", choices=("T", "T-1"), default=argparse.SUPPRESS, help="change the last point")


def print_warnings(runs: list[RunResults]) -> None:
    """The report's warnings about groups too small to read much into, on standard error."""
    for warning in small_group_warnings(runs):
        print(f"warning: {warning}", file=sys.stderr)


def report(paths: Sequence[str | Path], args: argparse.Namespace) -> str:
    """The whodunit report of ``paths`` (or, with ``--slices``, Table 2 from a series' slices); its warnings go
    to standard error."""
    from marple_eval.plots import plot_runs  # matplotlib (the eval extra): only when a plot is asked for

    if args.slices is not None:
        return report_slices(paths, args)
    view = report_runs(
        paths,
        protocol=args.protocol,
        changes=protocol_changes(args, ("combine", "eta", "last_point")),
        cutoff=args.cutoff,
    )
    out = []
    if view.mixed_trials:  # loud: on both streams, above the table it concerns
        out.append(f"WARNING: {view.mixed_trials}\n")
        print(f"warning: {view.mixed_trials}", file=sys.stderr)
    for why in view.left_out:
        print(f"warning: left out: {why}", file=sys.stderr)
    if not view.runs:
        raise NotRescorable("no run can show the protocol asked for (see the warnings above)", "none")
    runs = view.runs
    threshold = args.threshold[0]
    out.append(comparison_table(runs, markdown=not args.text, with_paper=not args.no_paper, thresholds=args.threshold))
    side_cutoff = 40 if args.cutoff is None else args.cutoff
    out.append(f"\nEvidence needed for {threshold:g}, protocols side by side (each run's one scoring):\n")
    out.append(protocols_table(runs, threshold, side_cutoff, markdown=not args.text))
    if threshold == 0.8:
        out.append(
            "\nThe paper's Table 2 beside each protocol bundle (each from a run scored at its margin and success "
            "rule):\n"
        )
        as_scored = report_runs(paths).runs  # each bundle from the runs as they were scored
        out.append(paper_protocols_table(as_scored, 0.8, markdown=not args.text))
    seeds = seeds_table(runs, threshold, markdown=not args.text)
    if seeds:
        out.append(f"\nAcross model seeds (evidence for {threshold:g}; intervals over seeds and trials):\n")
        out.append(seeds)
    print_warnings(runs)
    if args.detail:
        out.append("\n" + detail_table(runs, markdown=not args.text))
    if args.plot:
        out.append(f"\nplot: {plot_runs(runs, args.plot, band=args.band)}")
    return "\n".join(out)


def report_slices(paths: Sequence[str | Path], args: argparse.Namespace) -> str:
    """Table 2 at paper scale from a series' landed slices (:func:`marple.benchmark.ledger.table2`)."""
    if paths:
        raise ValueError("--slices reads a series folder's slices; name no results files with it")
    folder = args.slices or series_dir()
    if not Path(folder).is_dir():
        raise ValueError(f"--slices {folder}: no such series folder (marple slice list shows the package's)")
    return table2(landed(folder), args.threshold[0])
