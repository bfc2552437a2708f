"""The commands every family answers, dispatched through the family (:class:`~marple.families.base.Family`).

A family command parses in two steps. Its subcommand's parser reads only which family (``--family NAME``, or the
family of the set an option names) and leaves the rest; then the family builds the command's parser with its own
options (:meth:`~marple.families.base.Family.arguments`) and reads the whole command line strictly, so an option the
family does not take is refused by that parser, naming the option and the family (exit 2), and ``--help`` lists
that family's options.
"""

from __future__ import annotations

import argparse
from functools import partial

from marple.families import DEFAULT, Family, family, family_names, family_of


class FamilyParser(argparse.ArgumentParser):
    """A family's parser of one command: an option it does not know is an error naming the family."""

    def __init__(self, *args, family_name: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.family_name = family_name

    def error(self, message: str) -> None:  # type: ignore[override]
        if message.startswith("unrecognized arguments: "):
            given = message.removeprefix("unrecognized arguments: ")
            message = f"{given}: not an option of --family {self.family_name} (see --help)"
        super().error(message)


def add_family_command(
    subparsers,
    command: str,
    help: str,
    description: str,
    of_set: str | None = None,
) -> argparse.ArgumentParser:
    """Add ``command`` (one of :data:`~marple.families.base.COMMANDS`) as a family command: ``--family NAME``
    (default: whodunit) chooses the family, or with ``of_set`` (an option's name, e.g. ``--data``) the family of
    the set that option names."""
    parser = subparsers.add_parser(command, help=help, description=description, add_help=False)
    if of_set is None:
        parser.add_argument("--family", default=DEFAULT, metavar="NAME", help=f"one of {', '.join(family_names())}")
    else:
        parser.add_argument(of_set, dest="of_set", default=None)
        parser.set_defaults(of_set_option=of_set)
    parser.add_argument("-h", "--help", action="store_true")
    parser.set_defaults(family_command=command)
    return parser


def family_parser(command: str, chosen: Family, of_set: bool = False) -> FamilyParser:
    """The parser of ``command`` with ``chosen``'s options."""
    parser = FamilyParser(
        prog=f"marple {command}" + ("" if of_set else f" --family {chosen.name}"),
        description=chosen.describe(command),
        family_name=chosen.name,
    )
    if not of_set:
        parser.add_argument(
            "--family", choices=family_names(), default=DEFAULT, help=f"the family (this help: {chosen.name}'s)"
        )
    parser.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    chosen.arguments(command, parser)
    return parser


def chosen_family(args: argparse.Namespace) -> Family:
    """The family a command's first step chose: named, or the family of the set named."""
    if "of_set" in vars(args):
        return family_of(args.of_set) if args.of_set else family(DEFAULT)
    return family(args.family)


def family_options(args: argparse.Namespace, rest: list[str]) -> argparse.Namespace:
    """The whole command line of a family command (its first step read ``args``; ``rest`` is what that step left)
    read by the chosen family's parser of the command, with ``run`` set to the family's command: a refused option
    exits as argparse does (status 2, the message naming the option and the family)."""
    command, chosen = args.family_command, chosen_family(args)
    if "of_set" not in vars(args):
        rest = ["--family", chosen.name, *rest]
    elif args.of_set:  # the family's parser reads the set's option too
        rest = [args.of_set_option, args.of_set, *rest]
    options = family_parser(command, chosen, "of_set" in vars(args)).parse_args(
        [*rest, *(["--help"] if args.help else [])]
    )
    options.command = args.command
    options.verbose = args.verbose or getattr(options, "verbose", False)
    options.run = partial(chosen.run, command)
    return options
