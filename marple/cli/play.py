"""``marple play``: drive an agent with the keyboard."""

from __future__ import annotations

import argparse

from marple.options import env_id, seed, tile_size
from marple.viewers.play import KEYS, QUIT_KEYS, RESET_KEYS, play


def _keys_epilog() -> str:
    lines = [f"  {', '.join(names):<22} {action.name}" for names, action, _ in KEYS]
    lines += [f"  {', '.join(RESET_KEYS):<22} new house (reset)", f"  {', '.join(QUIT_KEYS):<22} quit"]
    return "keys:\n" + "\n".join(lines)


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "play",
        help="drive an agent with the keyboard in a window",
        description="Play a MARPLE environment yourself: the house, your mission, intent and the last sound are "
        "shown in a window; the keys below act. Needs a display: without one it says so and exits 2.",
        epilog=_keys_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "env_id",
        nargs="?",
        type=env_id,
        default="Marple-DoLaundry-v0",
        help="environment id (default: Marple-DoLaundry-v0; `marple envs` lists them)",
    )
    parser.add_argument("--mission", help="mission for Marple-Household-v0 (e.g. do_laundry)")
    parser.add_argument("--seed", type=seed, default=None, help="seed of the first house")
    parser.add_argument("--tile-size", type=tile_size, default=32, help="pixels per cell (default: 32)")
    parser.add_argument("--record", metavar="PATH", help="save the session as an animation (.gif, or .mp4)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, events=None, max_frames: int | None = None) -> int:
    """Play (:func:`marple.viewers.play.play`); ``events`` (scripted pygame events, one list per frame) and
    ``max_frames`` are for tests."""
    result = play(args.env_id, args.mission, args.seed, args.tile_size, args.record, events, max_frames)
    print(f"{result.steps} steps, {result.completed} mission(s) completed, reward {result.total_reward:g}")
    if args.record:
        print(f"recording: {args.record}")
    return 0
