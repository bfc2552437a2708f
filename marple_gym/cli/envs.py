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

    rows = [(mission_env_id(name), mission.title) for name, mission in MISSIONS.items()]
    rows.append((HOUSEHOLD_ID, "any mission(s) in any house config"))
    if args.all:
        rows += [(env_id, f"{level.rung}: {level.description}") for env_id, level in LEVELS.items()]
    width = max(len(env_id) for env_id, _ in rows)  # one column, however long the longest id
    for env_id, description in rows:
        print(f"{env_id:{width}s}   {description}")
    if not args.all:
        print(f"... and {len(LEVELS)} more: the RL ladder's levels (marple envs --all)")
    return 0
