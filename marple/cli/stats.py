"""``marple stats``: horizon and mission similarity per scenario, next to the paper's Table A.1."""

from __future__ import annotations

import argparse

from marple.options import positive_int, seed
from marple_gym.datasets.horizons import horizon_stats, horizon_table
from marple_gym.generation.original import HOUSE_SOURCES


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "stats",
        help="mean horizon T and mission similarity per scenario, beside the paper's Table A.1",
        description=(
            "For each scenario, run agent A's mission in fresh houses or the original benchmark's (or read a dataset's "
            "test split) and report "
            "the mean horizon T (actions until the query state), and the mission similarity of supplement A.3."
        ),
    )
    parser.add_argument("--scenario", action="append", default=[], metavar="NAME", help="scenario (default: all five)")
    parser.add_argument(
        "--episodes", type=positive_int, default=200, help="episodes per scenario when simulating (default: 200)"
    )
    parser.add_argument("--config", metavar="JSON", help="house config to simulate in (default: 20 x 20, 4 rooms)")
    parser.add_argument(
        "--houses",
        choices=HOUSE_SOURCES,
        default="random",
        help="simulate in new random houses (from --config; the default) or in each scenario's original house",
    )
    parser.add_argument("--data", metavar="DIR", help="read horizons from this dataset's test split instead")
    parser.add_argument("--seed", type=seed, default=0, help="seed of the simulated houses (default: 0)")
    parser.set_defaults(run=run_stats)


def run_stats(args: argparse.Namespace) -> int:
    stats = horizon_stats(
        args.scenario, episodes=args.episodes, config=args.config, seed=args.seed, data=args.data, houses=args.houses
    )
    print(horizon_table(stats, f"the test split of {args.data}" if args.data else f"{args.houses} houses"))
    return 0
