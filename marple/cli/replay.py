"""``marple replay``: an episode as an animation (GIF/MP4) and a soundtrack (WAV)."""

from __future__ import annotations

import argparse

from marple.options import float_in, nonnegative_int, seed, tile_size
from marple.viewers.replay_files import ReplayRequest, write_replay


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="export an episode or a whodunit pair as GIF/MP4 and its sounds as WAV",
        description=(
            "Replay a recorded episode: a whodunit test pair from a dataset side by side (Agent A left, B right), "
            "one agent of it, or a fresh planner episode of one mission. Writes an animation (--out, .gif or "
            ".mp4) with intents and sounds under the houses, and/or the soundtrack (--audio, .wav): one clip per "
            "step, lasting one frame, so sound and picture line up; a pair is stereo, Agent A left."
        ),
        epilog="examples:\n"
        "  marple replay --data data/marple --episode laundry/h00/003 --out pair.gif --audio pair.wav\n"
        "  marple replay --data data/marple --scenario laundry --index 2 --agent A --out a.mp4\n"
        "  marple replay --mission do_laundry --seed 0 --out laundry.gif",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    what = parser.add_argument_group("which episode")
    what.add_argument("--data", help="dataset directory (test pairs); without it, --mission runs the planner")
    what.add_argument("--episode", metavar="ID", help="episode id, e.g. laundry/h00/003")
    what.add_argument("--scenario", help="scenario of the dataset (default: its first); with --index")
    what.add_argument("--index", type=nonnegative_int, default=0, help="which test pair of the scenario (default: 0)")
    what.add_argument(
        "--agent",
        choices=("A", "B", "both"),
        default="both",
        help="both agents side by side (default) or one (A is the culprit)",
    )
    what.add_argument("--swap", action="store_true", help="show agent B's trajectory on the left")
    what.add_argument("--mission", help="without --data: record a planner episode of this mission")
    what.add_argument("--seed", type=seed, default=0, help="without --data: seed of house and planner (default: 0)")
    out = parser.add_argument_group("output")
    out.add_argument(
        "--out", action="append", default=[], metavar="PATH", help="animation to write, .gif or .mp4 (repeatable)"
    )
    out.add_argument("--audio", metavar="PATH", help="soundtrack to write (.wav)")
    out.add_argument(
        "--fps", type=float_in(0.0, 120.0, low_open=True), default=2.0, help="steps per second (default: 2)"
    )
    out.add_argument("--tile-size", type=tile_size, default=24, help="pixels per cell (default: 24)")
    out.add_argument("--no-captions", action="store_true", help="houses only: no intents, sounds or titles")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    request = ReplayRequest(
        data=args.data,
        episode=args.episode,
        scenario=args.scenario,
        index=args.index,
        agent=args.agent,
        swap=args.swap,
        mission=args.mission,
        seed=args.seed,
        out=tuple(args.out),
        audio=args.audio,
        fps=args.fps,
        tile_size=args.tile_size,
        captions=not args.no_captions,
    )
    write_replay(request, written=print)
    return 0
