"""``marple study``: run the human-study interface on a dataset's whodunit trials."""

from __future__ import annotations

import argparse
from pathlib import Path

from marple_gym.cli.options import positive_int, seed, tile_size


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
    parser.add_argument("--data", required=True, help="dataset directory written by `marple generate`")
    parser.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="NAME",
        help="scenario to draw trials from (repeatable; default: every scenario in the dataset)",
    )
    parser.add_argument("--limit", type=positive_int, help="at most this many trials per scenario (paper: 50 in all)")
    parser.add_argument("--participant", required=True, help="participant id, written with every answer")
    parser.add_argument("--out", required=True, help="responses file (.jsonl); an existing one is resumed")
    parser.add_argument(
        "--modality",
        choices=("vision", "vision+language+audio"),
        default="vision",
        help="what the participant gets: the houses only, or also intents and sounds (default: vision)",
    )
    parser.add_argument("--seed", type=seed, help="seed for trial order and sides (default: a fresh one, recorded)")
    parser.add_argument("--tile-size", type=tile_size, default=24, help="pixels per cell (default: 24)")
    parser.add_argument("--no-sound", action="store_true", help="show sounds as text only, play nothing")
    parser.set_defaults(run=run)


def open_session(args: argparse.Namespace):
    """The session's state: trials in order with sides, and the responses file (new or resumed)."""
    import numpy as np

    from marple_gym.datasets.dataset import MarpleDataset
    from marple_gym.study import ResponseLog, StudyError, StudyState, load_episodes, make_trials, trial_order

    data = MarpleDataset(args.data)
    episodes = load_episodes(data, args.scenario, args.limit)
    ids = [e.episode_id for e in episodes]
    out = Path(args.out)
    resuming = out.exists() and out.stat().st_size > 0
    seed = args.seed
    if seed is None and not resuming:  # a fresh seed, recorded in the session line
        seed = int(np.random.SeedSequence().entropy % 2**31)
    wanted = {
        "participant": args.participant,
        "seed": seed,
        "dataset": str(Path(args.data).resolve()),
        "scenario": args.scenario[0] if len(args.scenario) == 1 else None,
        "modality": args.modality,
        "trials": None if seed is None else trial_order(ids, seed),
    }
    log = ResponseLog.open(out, wanted)  # resuming, the file's seed and trial order win
    session = log.session
    if session["trials"] is None:
        raise StudyError(f"{args.out}: the session line lists no trials")
    return StudyState(make_trials(episodes, session["trials"], session["seed"]), log)


def run(args: argparse.Namespace, events=None, max_frames: int | None = None) -> int:
    """Run the study. For tests: ``events`` scripts the pygame events (one list per frame), or is a function
    of the app returning such a script (a participant that reacts to the screen); ``max_frames`` bounds the loop."""
    from marple_gym.study.app import StudyApp

    out = Path(args.out)
    created = not (out.exists() and out.stat().st_size > 0)
    state = open_session(args)
    session = state.log.session
    try:
        app = StudyApp(state, session["modality"], tile_size=args.tile_size, sound=not args.no_sound)
        try:
            app.run(events(app) if callable(events) else events, max_frames)
        finally:
            app.close()
    except Exception:
        if created and not state.log.answers:  # failed before the first answer: leave no file behind
            out.unlink(missing_ok=True)
        raise
    done = len(state.trials) - len(state.remaining)
    print(
        f"{args.out}: {len(state.log.answers)} answers, {done} of {len(state.trials)} trials complete "
        f"(participant {session['participant']}, seed {session['seed']})"
    )
    if done:
        print(f"score with: marple evaluate --responses {args.out}")
    return 0
