"""The ``marple`` command line.

Subcommands come from the installed packages through the ``marple.commands``
entry-point group, so this dispatcher depends on no package above it: each
entry point names a function ``add_parser(subparsers)`` that adds one
subcommand and sets its ``run(args) -> int`` as the parser default ``run``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from importlib.metadata import entry_points

from marple_gym import __version__
from marple_gym.errors import MarpleError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="marple",
        description="MARPLE-Gym: household whodunit benchmark for long-horizon inference.",
    )
    parser.add_argument("--version", action="version", version=f"marple-gym {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for ep in sorted(entry_points(group="marple.commands"), key=lambda e: e.name):
        try:
            add = ep.load()
        except ModuleNotFoundError as exc:
            # A subcommand whose package is not installed (e.g. the agents extra): leave it out.
            logging.getLogger(__name__).debug("marple %s unavailable: %s", ep.name, exc)
            continue
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (MarpleError, ValueError, OSError) as exc:
        if args.verbose:
            raise
        print(f"marple {args.command}: error: {exc} (run with -v for details)", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug, not bad input: still no traceback unless asked for
        if args.verbose:
            raise
        print(
            f"marple {args.command}: internal error: {type(exc).__name__}: {exc} "
            "(run with -v for the traceback, and please report it)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
