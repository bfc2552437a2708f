"""``marple envs``: list the registered environments."""

from __future__ import annotations

import argparse

from marple_gym.levels.catalog import env_catalog


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("envs", help="list the registered Gymnasium environment ids")
    parser.add_argument(
        "--all",
        action="store_true",
        help="also list the RL ladder's levels (skills in one and two rooms, short missions)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    catalog = env_catalog(levels=args.all)
    width = max(len(env_id) for env_id, _ in catalog.rows)  # one column, however long the longest id
    for env_id, what in catalog.rows:
        print(f"{env_id:{width}s}   {what}")
    if catalog.more_levels:
        print(f"... and {catalog.more_levels} more: the RL ladder's levels (marple envs --all)")
    return 0
