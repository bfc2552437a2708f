"""The ``marple`` command line (also ``python -m marple``).

Each subcommand is a module of this package (:data:`COMMANDS`) with a function ``add_parser(subparsers)`` that
adds it and sets its ``run(args) -> int`` as the parser default ``run``; they are imported here directly, so a
source tree that was never installed has every command.
"""

from __future__ import annotations

import argparse
import logging
import sys
import traceback

from marple.cli import (
    benchmark,
    envs,
    evaluate,
    export,
    generate,
    play,
    replay,
    report,
    slices,
    stats,
    stopping,
    study,
    study_score,
    study_server,
    study_web,
    train,
)
from marple.cli.families import family_options
from marple_gym.errors import MarpleError
from marple_gym.extras import missing_module_hint
from marple_gym.version import __version__

COMMANDS = (
    benchmark,
    envs,
    evaluate,
    export,
    generate,
    play,
    replay,
    report,
    slices,
    stats,
    study,
    study_score,
    study_server,
    study_web,
    train,
)
"""The subcommands' modules, in the order ``marple --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """The ``marple`` parser with every subcommand (named in its ``commands``)."""
    parser = argparse.ArgumentParser(
        prog="marple",
        description="MARPLE-Gym: benchmarks of inferring other minds in household gridworlds: whodunits (MARPLE), "
        "belief and goal questions (MMToM-QA) and expectation trials (AGENT); `marple COMMAND --family NAME --help` "
        "lists a family's options.",
    )
    parser.add_argument("--version", action="version", version=f"marple-gym {__version__}")
    add_verbose(parser, default=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    for command in set(sub.choices.values()):  # aliases share one parser
        # Also after the subcommand (`marple evaluate ... -v`), where the error hint's reader puts it. Set only
        # when given there, so that it cannot reset the `marple -v evaluate ...` form to False.
        add_verbose(command, default=argparse.SUPPRESS)
    parser.commands = tuple(sub.choices)
    return parser


def add_verbose(parser: argparse.ArgumentParser, default) -> None:
    parser.add_argument(
        "-v", "--verbose", action="store_true", default=default, help="log progress details; show tracebacks of errors"
    )


def parse_command(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """The options of a command line: a family command's read in two steps (its family's parser reads the rest,
    :func:`marple.cli.families.family_options`), every other command's by its parser alone."""
    args, rest = parser.parse_known_args(argv)
    if getattr(args, "family_command", None):
        return family_options(args, rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    return args


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parse_command(parser, argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # what a run records as its command
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    stopping.install()
    try:
        return int(args.run(args) or 0)
    except (KeyboardInterrupt, stopping.Stopped, SystemExit) as exc:  # SystemExit: Lightning's, on a signal
        signum = stopping.stopped_by(exc)
        if signum is None:
            raise
        return stopping.report(args.command, signum)
    except ModuleNotFoundError as exc:  # an optional part not installed: name the extra, exit 2; else a bug
        hint = missing_module_hint(exc)
        _report(args, f"error: {hint}" if hint else f"internal error: {type(exc).__name__}: {exc}", bug=not hint)
        return 2 if hint else 1
    except (MarpleError, ValueError, OSError) as exc:  # bad input, or a model's own error (MethodError): exit 2
        _report(args, f"error: {exc}", bug=False)
        return 2
    except Exception as exc:  # a bug, not bad input: still no traceback unless asked for
        _report(args, f"internal error: {type(exc).__name__}: {exc}", bug=True)
        return 1


def _report(args: argparse.Namespace, what: str, bug: bool) -> None:
    """The error's line, with the traceback above it under -v (the exit status stays the documented one)."""
    if args.verbose:
        traceback.print_exc()
        hint = " (please report it)" if bug else ""
    else:
        hint = " (run with -v for the traceback, and please report it)" if bug else " (run with -v for details)"
    print(f"marple {args.command}: {what}{hint}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
