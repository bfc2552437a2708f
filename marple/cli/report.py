"""``marple report``: results files side by side (a Table-2-style table, Figure-4-style plots)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from marple.benchmark.ledger import landed, series_dir, table2
from marple.cli.options import float_in
from marple.cli.protocol_options import add_cutoff_argument, add_threshold_argument, protocol_changes
from marple.families.report import family_report, results_family
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


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "report",
        help="compare results files: Table-2-style table and Figure-4-style plots (belief and expectation results "
        "files: per-type tables and plot)",
        description="Set runs side by side with the paper's Table 2 as reference rows, and plot accuracy curves.",
    )
    parser.add_argument("results", nargs="*", help="results files written by marple evaluate / marple benchmark")
    parser.add_argument(
        "--slices",
        nargs="?",
        const="",
        metavar="DIR",
        help="instead: Table 2 at paper scale from the landed slices of a series folder (default: the package's "
        "paper-seed0), every missing cell marked (docs/gpu.md)",
    )
    parser.add_argument("--plot", metavar="PNG", help="save a Figure-4-style plot here")
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
    parser.set_defaults(run=run_report)


def print_warnings(runs: list[RunResults]) -> None:
    """The report's warnings about groups too small to read much into, on standard error."""
    for warning in small_group_warnings(runs):
        print(f"warning: {warning}", file=sys.stderr)


def run_report(args: argparse.Namespace) -> int:
    from marple_eval.plots import plot_runs  # matplotlib (the eval extra): only when a plot is asked for

    if args.slices is not None:
        return report_slices(args)
    if not args.results:
        raise ValueError("name results files to report, or --slices for Table 2 at paper scale")
    families = [path for path in args.results if results_family(path)]
    if families:  # the belief and expectation families' files: their own tables and plot
        print(family_report(families, args.plot))
        args.results = [path for path in args.results if path not in families]
        if not args.results:
            return 0
        args.plot = None  # drawn for the families' files; name another report for the whodunits' plot
        print()

    view = report_runs(
        args.results,
        protocol=args.protocol,
        changes=protocol_changes(args, ("combine", "eta", "last_point")),
        cutoff=args.cutoff,
    )
    if view.mixed_trials:  # loud: on both streams, above the table it concerns
        print(f"WARNING: {view.mixed_trials}\n")
        print(f"warning: {view.mixed_trials}", file=sys.stderr)
    for why in view.left_out:
        print(f"warning: left out: {why}", file=sys.stderr)
    if not view.runs:
        raise NotRescorable("no run can show the protocol asked for (see the warnings above)", "none")
    runs = view.runs
    print(comparison_table(runs, markdown=not args.text, with_paper=not args.no_paper, thresholds=args.threshold))
    side_cutoff = 40 if args.cutoff is None else args.cutoff
    print(f"\nEvidence needed for {args.threshold[0]:g}, protocols side by side (each run's one scoring):\n")
    print(protocols_table(runs, args.threshold[0], side_cutoff, markdown=not args.text))
    if args.threshold[0] == 0.8:
        print(
            "\nThe paper's Table 2 beside each protocol bundle (each from a run scored at its margin and success rule):\n"
        )
        as_scored = report_runs(args.results).runs  # each bundle from the runs as they were scored
        print(paper_protocols_table(as_scored, 0.8, markdown=not args.text))
    seeds = seeds_table(runs, args.threshold[0], markdown=not args.text)
    if seeds:
        print(f"\nAcross model seeds (evidence for {args.threshold[0]:g}; intervals over seeds and trials):\n")
        print(seeds)
    print_warnings(runs)
    if args.detail:
        print()
        print(detail_table(runs, markdown=not args.text))
    if args.plot:
        print(f"\nplot: {plot_runs(runs, args.plot, band=args.band)}")
    return 0


def report_slices(args: argparse.Namespace) -> int:
    """Table 2 at paper scale from a series' landed slices (:func:`marple.benchmark.ledger.table2`)."""
    if args.results:
        raise ValueError("--slices reads a series folder's slices; name no results files with it")
    folder = args.slices or series_dir()
    if not Path(folder).is_dir():
        raise ValueError(f"--slices {folder}: no such series folder (marple slice list shows the package's)")
    print(table2(landed(folder), args.threshold[0]))
    return 0
