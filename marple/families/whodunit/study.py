"""The whodunit studies: the desktop study (``marple study``: a participant watches test pairs and answers on a
slider; or a simulated participant), and the web study (``marple study-web``), scored with ``marple evaluate
--responses``."""

from __future__ import annotations

import argparse
import sys

from marple.families.studies import add_web_study_arguments, rendering, tell_built, web_options
from marple.options import nonnegative_int, parse_agents, parse_method_args, positive_int, seed, tile_size
from marple.study.desk import run_study
from marple.study.session import SessionPlan
from marple.study.simulate import simulate_session
from marple.study.web import build_web_study
from marple_gym.datasets.dataset import MarpleDataset

MODALITIES = ("vision", "vision+language+audio")


def add_session_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that fix a desktop session's trials and what they show."""
    add_scenario_argument(parser)
    parser.add_argument(
        "--limit",
        type=positive_int,
        help="at most this many trials per scenario, spread over the test houses: the trials "
        "`marple evaluate --limit` scores (paper: 10 per scenario, 50 in all)",
    )
    parser.add_argument("--seed", type=seed, help="seed for trial order and sides (default: a fresh one, recorded)")
    parser.add_argument(
        "--tile-size", type=tile_size, default=24, help="pixels per cell of the house pictures (default: 24)"
    )
    add_shown_arguments(parser)


def add_scenario_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="NAME",
        help="scenario to draw trials from (repeatable; default: every scenario in the dataset)",
    )


def add_shown_arguments(parser: argparse.ArgumentParser) -> None:
    """What a whodunit study shows besides its trials: the modality and the practice trials."""
    parser.add_argument(
        "--modality",
        choices=MODALITIES,
        default="vision",
        help="what the participant gets: the houses only, or also intents and sounds (default: vision)",
    )
    parser.add_argument(
        "--practice",
        type=nonnegative_int,
        default=1,
        metavar="N",
        help="practice trials before the scored ones (habituation, as in the paper; recorded, not scored), each "
        "from a house of its own drawn from the dataset's settings (default: 1)",
    )


def session_plan(args: argparse.Namespace) -> SessionPlan:
    """The :class:`~marple.study.session.SessionPlan` the options ask for."""
    return SessionPlan(tuple(args.scenario), args.limit, args.seed, args.modality, args.practice)


def desktop_study(args: argparse.Namespace, events=None, max_frames: int | None = None) -> int:
    """``marple study``: a participant's session (:func:`marple.study.desk.run_study`), or with ``--simulate`` a
    headless pilot; ``events`` and ``max_frames`` are for tests."""
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
        method_args=parse_method_args(args.simulate_arg),
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


def web_arguments(parser: argparse.ArgumentParser) -> None:
    """The whodunit options of ``marple study-web``."""
    add_web_study_arguments(
        parser,
        "build K trial sequences (seeds SEED..SEED+K-1); each participant gets one by id, or by ?order=k in the URL "
        "(default: 1, everyone sees one order)",
    )
    add_scenario_argument(parser)
    add_shown_arguments(parser)
    parser.add_argument(
        "--attention-checks",
        type=nonnegative_int,
        default=0,
        metavar="N",
        help="N pages between scored trials asking to move the slider to a given end (recorded, not scored; "
        "each participant's checks passed are reported by `marple evaluate --responses`; default: 0)",
    )


def study_web(args: argparse.Namespace) -> int:
    """Build the whodunit web study the options ask for."""
    options = web_options(args, modality=args.modality, practice=args.practice, attention_checks=args.attention_checks)
    data = MarpleDataset(args.data)  # before the progress bar: a missing dataset is said alone
    bar, progress = rendering("trial")
    with bar:
        built = build_web_study(
            data, args.out, args.seed, args.scenario, args.limit, options, progress, args.orders or 1
        )
    if not args.contact and not args.consent:
        print("note: no --contact: the consent page names no one participants can ask about the study", file=sys.stderr)
    tell_built(built, "marple evaluate --responses responses.jsonl")
    return 0
