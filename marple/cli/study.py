"""``marple study``: run the human-study interface on a dataset's whodunit trials."""

from __future__ import annotations

import argparse

from marple.cli.options import nonnegative_int, parse_agents, parse_model_args, positive_int, seed, tile_size
from marple.study.desk import run_study
from marple.study.session import SessionPlan, open_session
from marple.study.simulate import simulate_session


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
        metavar="MODEL",
        help="answer with this registered inference model (see `marple evaluate --list-models`) instead of a person",
    )
    pilot.add_argument(
        "--simulate-noise",
        type=float,
        default=0.0,
        metavar="SD",
        help="add Gaussian noise of this many slider points to each answer, seeded by --seed (default: 0)",
    )
    pilot.add_argument(
        "--simulate-arg", action="append", default=[], metavar="KEY=VALUE", help="model constructor argument"
    )
    pilot.add_argument(
        "--simulate-agent",
        action="append",
        default=[],
        metavar="ROLE=MODEL",
        help="agent model for a role, as `marple evaluate --agent` (for models that need one)",
    )
    pilot.add_argument(
        "--web",
        metavar="FOLDER",
        help="take the trial sequence (seed, order, sides, modality) from a study built by `marple study-web`",
    )
    parser.set_defaults(run=run)


def add_session_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that fix a session's trials and what they show, alike for the desktop and the web study."""
    parser.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="NAME",
        help="scenario to draw trials from (repeatable; default: every scenario in the dataset)",
    )
    parser.add_argument(
        "--limit",
        type=positive_int,
        help="at most this many trials per scenario, spread over the test houses: the trials "
        "`marple evaluate --limit` scores (paper: 10 per scenario, 50 in all)",
    )
    parser.add_argument(
        "--modality",
        choices=("vision", "vision+language+audio"),
        default="vision",
        help="what the participant gets: the houses only, or also intents and sounds (default: vision)",
    )
    parser.add_argument("--seed", type=seed, help="seed for trial order and sides (default: a fresh one, recorded)")
    parser.add_argument(
        "--tile-size", type=tile_size, default=24, help="pixels per cell of the house pictures (default: 24)"
    )
    parser.add_argument(
        "--practice",
        type=nonnegative_int,
        default=1,
        metavar="N",
        help="practice trials before the scored ones (habituation, as in the paper; recorded, not scored), each "
        "from a house of its own drawn from the dataset's settings (default: 1)",
    )


def session_plan(args: argparse.Namespace):
    """The :class:`~marple.study.session.SessionPlan` the options ask for."""
    return SessionPlan(tuple(args.scenario), args.limit, args.seed, args.modality, args.practice)


def session_of(args: argparse.Namespace):
    """The session the options ask for (:func:`marple.study.session.open_session`)."""
    return open_session(args.data, args.out, args.participant, session_plan(args), web=args.web)


def run(args: argparse.Namespace, events=None, max_frames: int | None = None) -> int:
    """Run the study (:func:`marple.study.desk.run_study`); ``events`` and ``max_frames`` are for tests."""
    if args.simulate:
        return simulate(args)
    if not args.participant:
        raise ValueError("--participant is required (the participant's id, written with every answer)")

    state = run_study(
        args.data,
        args.out,
        args.participant,
        session_plan(args),
        web=args.web,
        tile_size=args.tile_size,
        sound=not args.no_sound,
        events=events,
        max_frames=max_frames,
    )
    session = state.log.session
    done = len(state.trials) - len(state.remaining)
    print(
        f"{args.out}: {_answers(state)}, {done} of {len(state.trials)} trials complete "
        f"(participant {session['participant']}, seed {session['seed']})"
    )
    if done:
        print(f"score with: marple evaluate --responses {args.out}")
    return 0


def simulate(args: argparse.Namespace) -> int:
    """A headless pilot (:func:`marple.study.simulate.simulate_session`)."""
    state = simulate_session(
        args.data,
        args.out,
        args.simulate,
        session_plan(args),
        participant=args.participant,
        web=args.web,
        noise=args.simulate_noise,
        model_args=parse_model_args(args.simulate_arg),
        agents=parse_agents(args.simulate_agent),
    )
    session = state.log.session
    print(
        f"{args.out}: {_answers(state)} to {len(state.trials)} trials by {session['participant']} "
        f"(seed {session['seed']}); score with: marple evaluate --responses {args.out}"
    )
    return 0


def _answers(state) -> str:
    """'33 answers (and 11 to practice trials)': scored and practice answers counted apart."""
    practice = sum(1 for a in state.log.answers if a.get("block") == "practice")
    scored = len(state.log.answers) - practice
    return f"{scored} answers" + (f" (and {practice} to practice trials)" if practice else "")
