"""``marple report``: results files side by side, each family's by its family (whodunit results: a Table-2-style
table and Figure-4-style plots; belief and expectation results: per-type tables and a plot)."""

from __future__ import annotations

import argparse

from marple.families import DEFAULT, family, family_names, results_families


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "report",
        help="compare results files: Table-2-style table and Figure-4-style plots (belief and expectation results "
        "files: per-type tables and plot)",
        description="Set runs side by side, each family's results in its family's tables: whodunit runs with the "
        "paper's Table 2 as reference rows and accuracy curves; belief and expectation runs per type with "
        "intervals. The options after --plot are those of a family's results (docs/evaluation.md).",
    )
    parser.add_argument("results", nargs="*", help="results files written by marple evaluate / marple benchmark")
    parser.add_argument("--plot", metavar="PNG", help="save a plot here (one per family, named after it when several)")
    owners = {}  # an option's dest -> the family whose results take it, and its default
    for name in family_names():
        before = len(parser._actions)
        family(name).report_arguments(parser)
        owners |= {action.dest: (name, action.default) for action in parser._actions[before:]}
    parser.set_defaults(run=run_report, report_options=owners)


def run_report(args: argparse.Namespace) -> int:
    if getattr(args, "slices", None) is not None:  # the default family's Table 2 at paper scale: no results files
        print(family(DEFAULT).report(args.results, args))
        return 0
    if not args.results:
        raise ValueError("name results files to report, or --slices for Table 2 at paper scale")
    groups = results_families(args.results)
    given = [
        dest
        for dest, (owner, default) in args.report_options.items()
        if owner not in groups and vars(args).get(dest, default) != default
    ]
    if given:
        names = ", ".join("--" + dest.replace("_", "-") for dest in given)
        raise ValueError(f"{names}: not an option of the results of {', '.join(groups)}")
    parts = []
    for name, paths in groups.items():
        plot = args.plot and (_suffixed(args.plot, name) if len(groups) > 1 else args.plot)
        parts.append(family(name).report(paths, argparse.Namespace(**{**vars(args), "plot": plot})))
    print("\n\n".join(parts))
    return 0


def _suffixed(path: str, tag: str) -> str:
    """``accuracy.png`` as ``accuracy-TAG.png``."""
    stem, dot, suffix = path.rpartition(".")
    return f"{stem}-{tag}.{suffix}" if dot else f"{path}-{tag}"
