"""``marple study``: run the human-study interface on a dataset's whodunit trials."""

from __future__ import annotations

import argparse

from marple.families import DEFAULT, family, family_of
from marple.families.whodunit.study import add_session_arguments, session_plan
from marple.study.session import open_session


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "study",
        help="human study: watch whodunit trials side by side and answer on a 0-100 slider",
        description=(
            "Show whodunit test pairs side by side (Agent A left, Agent B right), one step at a time at the "
            "participant's pace, and ask at the 11 evidence points which agent caused the query state "
            "(0 = definitely Agent A, 100 = definitely Agent B). Trial order and sides are randomised with a "
            "recorded seed. Each answer is written to --out (JSON Lines) and forced to disk at once; running "
            "again with the same --out resumes the session. Score with `marple evaluate --responses OUT`."
        ),
        epilog="keys: space or right arrow: next step; left/right arrows (shift: by 10) or drag: slider; "
        "enter: submit; esc: quit (answers are already saved)",
    )
    parser.add_argument(
        "--data", help="dataset directory written by `marple generate` (with --web: the one it was built from)"
    )
    add_session_arguments(parser)
    parser.add_argument("--participant", help="participant id, written with every answer (required unless --simulate)")
    parser.add_argument("--out", required=True, help="responses file (.jsonl); an existing one is resumed")
    parser.add_argument("--no-sound", action="store_true", help="show sounds as text only, play nothing")
    pilot = parser.add_argument_group("headless pilot (a simulated participant, no window)")
    pilot.add_argument(
        "--simulate",
        metavar="METHOD",
        help="answer with this registered whodunit method (see `marple evaluate --list-methods`) instead of a person",
    )
    pilot.add_argument(
        "--simulate-noise",
        type=float,
        default=0.0,
        metavar="SD",
        help="add Gaussian noise of this many slider points to each answer, seeded by --seed (default: 0)",
    )
    pilot.add_argument(
        "--simulate-arg", action="append", default=[], metavar="KEY=VALUE", help="an argument of the method"
    )
    pilot.add_argument(
        "--simulate-agent",
        action="append",
        default=[],
        metavar="ROLE=MODEL",
        help="agent model for a role, as `marple evaluate --agent` (for methods that need one)",
    )
    pilot.add_argument(
        "--web",
        metavar="FOLDER",
        help="take the trial sequence (seed, order, sides, modality) from a study built by `marple study-web`",
    )
    parser.set_defaults(run=run)


def session_of(args: argparse.Namespace):
    """The session the options ask for (:func:`marple.study.session.open_session`)."""
    return open_session(args.data, args.out, args.participant, session_plan(args), web=args.web)


def run(args: argparse.Namespace, events=None, max_frames: int | None = None) -> int:
    """Run the desktop study of the dataset's family (whodunit trials: the default family's, also without
    ``--data``, from a web study or a session resumed); ``events`` and ``max_frames`` are for tests."""
    chosen = family_of(args.data) if args.data else family(DEFAULT)
    return chosen.desktop_study(args, events, max_frames)
