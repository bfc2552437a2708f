"""``marple replay``: an episode as an animation (GIF/MP4) and a soundtrack (WAV)."""

from __future__ import annotations

import argparse

from marple_gym.cli.options import float_in, nonnegative_int, seed, tile_size


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


def select(args: argparse.Namespace):
    """(frames, tracks): a function yielding the animation's frames, and the sound tokens per channel."""
    from functools import partial

    from marple_gym.datasets.replay_sources import planner_trajectory, whodunit_pair
    from marple_gym.viewers.replays import trajectory_frames, whodunit_frames

    captions = not args.no_captions
    if args.data is None:
        trajectory = planner_trajectory(args.mission, args.seed)
    else:
        episode = whodunit_pair(args.data, args.episode, args.scenario, args.index)
        if args.agent == "both":
            left, right = episode.trajectories[::-1] if args.swap else episode.trajectories
            steps = episode.horizon + 1
            frames = partial(whodunit_frames, episode, args.tile_size, args.swap, captions)
            return frames, [_padded(left.audio.tolist(), steps), _padded(right.audio.tolist(), steps)]
        trajectory = episode.trajectories[0 if args.agent == "A" else 1]
    return partial(trajectory_frames, trajectory, args.tile_size, captions), [trajectory.audio.tolist()]


def run(args: argparse.Namespace) -> int:
    from marple_gym.rendering.export import check_path, save_animation
    from marple_gym.sound import SoundBank, SoundError, write_soundtrack

    if not args.out and not args.audio:
        raise ValueError("nothing to write: give --out PATH (.gif/.mp4) and/or --audio PATH (.wav)")
    if args.fps <= 0 or args.tile_size < 4:
        raise ValueError("--fps must be positive and --tile-size at least 4")
    if args.data is None and args.mission is None:
        raise ValueError("give --data (a dataset's test pairs) or --mission (a fresh planner episode)")
    for path in args.out:  # fail before the work, not after it
        check_path(path)
    if args.audio and not args.audio.lower().endswith(".wav"):
        raise SoundError(f"{args.audio}: the soundtrack is written as WAV; name it *.wav")
    frames, tracks = select(args)
    for path in args.out:
        save_animation(frames(), path, fps=args.fps)
        print(f"wrote {path}")
    if args.audio:
        write_soundtrack(args.audio, tracks, SoundBank(duration=1.0 / args.fps))
        print(f"wrote {args.audio} ({len(tracks[0])} steps of {1.0 / args.fps:g} s)")
    return 0


def _padded(tokens: list[int], steps: int) -> list[int]:
    """Cut or pad a token track to ``steps`` (silence after an agent has finished)."""
    return (tokens + [0] * steps)[:steps]
