"""``marple envs``: list the registered environments."""

from __future__ import annotations

import argparse


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("envs", help="list the registered Gymnasium environment ids")
    parser.add_argument(
        "--all",
        action="store_true",
        help="also list the RL ladder's levels (skills in one and two rooms, short missions)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from marple_gym.envs.registration import HOUSEHOLD_ID, mission_env_id
    from marple_gym.levels import LEVELS
    from marple_gym.missions import MISSIONS

    for name, mission in MISSIONS.items():
        print(f"{mission_env_id(name):34s} {mission.title}")
    print(f"{HOUSEHOLD_ID:34s} any mission(s) in any house config")
    if args.all:
        for env_id, level in LEVELS.items():
            print(f"{env_id:34s} {level.rung}: {level.description}")
    else:
        print(f"... and {len(LEVELS)} more: the RL ladder's levels (marple envs --all)")
    return 0
