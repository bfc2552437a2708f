"""``marple stats``: horizon and mission similarity per scenario, next to the paper's Table A.1."""

from __future__ import annotations

import argparse

from marple_gym.cli.options import positive_int, seed
from marple_gym.errors import MarpleError
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


def scenario_horizons(name: str, episodes: int, config, seed: int) -> list[int]:
    """T for ``episodes`` runs of agent A's mission in fresh houses that serve both missions."""
    import numpy as np

    from marple_gym.generation.generator import generate_world
    from marple_gym.missions.scenarios import get_scenario
    from marple_gym.planner.planner import HierarchicalPlanner

    scenario = get_scenario(name)
    query = scenario.query
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(episodes):
        world = generate_world(config, rng, [scenario.mission_a, scenario.mission_b])
        agent = HierarchicalPlanner(world, mission=scenario.mission_a, rng=rng)
        steps = 0
        while not agent.done:
            outcome = agent.step()
            steps += 1
            if query.matches(outcome, world.house):
                out.append(steps)
                break
    return out


def run_stats(args: argparse.Namespace) -> int:
    import numpy as np

    from marple_gym.generation.original import original_house
    from marple_gym.missions.scenarios import SCENARIOS, get_scenario, similarity
    from marple_gym.missions.suspects import SuspectScenario

    names = args.scenario or list(SCENARIOS)
    data = None
    if args.data:
        from marple_gym.datasets.dataset import MarpleDataset

        data = MarpleDataset(args.data)
        if not data.complete:
            missing, total = len(data.missing_shards()), len(data.spec.tasks())
            print(f"note: {args.data} is incomplete ({missing} of {total} shards missing); figures cover what is there")
        # By default, the dataset's own scenarios (as `marple evaluate` does), not all five.
        names = args.scenario or [u.name for u in data.spec.units if len(u.roles) == 2]
        if not names:
            raise ValueError(f"{args.data} has no whodunit scenarios; generate one with `marple generate --scenario`")
    else:
        from marple_gym.generation.config import HouseConfig

        config = HouseConfig.load(args.config)  # checked once, before any simulation
    for s in map(get_scenario, names):
        if isinstance(s, SuspectScenario):
            raise MarpleError(
                f"{s.name}: marple stats compares two-agent scenarios with the paper's Table A.1; the horizons of "
                "N-suspect scenarios are in `marple evaluate`'s results (each trial's horizon)"
            )
    header = (
        f"{'scenario':<10} {'question':<28} {'T ours':>14} {'T paper':>8} {'ratio':>6} {'sim ours':>9} {'sim paper':>9}"
    )
    print(header)
    print("-" * len(header))
    counts = []
    for name in names:
        s = get_scenario(name)
        if data is not None:
            horizons = [ep.horizon for ep in data.whodunit(s.name)]
        else:
            houses = original_house((s.mission_a, s.mission_b)) if args.houses == "original" else config
            horizons = scenario_horizons(name, args.episodes, houses, args.seed)
        if not horizons:
            raise MarpleError(f"no episode of {s.name!r} reached its query state; no horizon to report")
        counts.append(len(horizons))
        mean, sd = float(np.mean(horizons)), float(np.std(horizons))
        paper_t = f"{s.paper_horizon:.1f}" if s.paper_horizon else "-"
        ratio = f"{mean / s.paper_horizon:.2f}" if s.paper_horizon else "-"
        paper_sim = f"{s.paper_similarity:.2f}" if s.paper_similarity is not None else "-"
        ours = f"{mean:.1f} +- {sd:.1f}"
        print(
            f"{s.name:<10} {s.question:<28} {ours:>14} {paper_t:>8} {ratio:>6} "
            f"{similarity(s.mission_a, s.mission_b):>9.2f} {paper_sim:>9}"
        )
    source = f"the test split of {args.data}" if data is not None else f"{args.houses} houses"
    print(
        f"\n(T over {min(counts)}-{max(counts)} episodes per scenario in {source}; "
        "similarity = (J(actions) + 0.5 J(rooms)) / 1.5, supplement A.3)"
    )
    return 0
