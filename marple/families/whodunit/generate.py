"""``marple generate`` for whodunits: the paper's dataset splits of scenarios or single missions."""

from __future__ import annotations

import argparse
import time

from marple.options import float_in, int_in, positive_int, seed
from marple_gym.datasets.generate import generate_dataset
from marple_gym.datasets.manifest import MAX_SIZE, SPLITS
from marple_gym.datasets.units import requested_spec, requested_units
from marple_gym.generation.original import HOUSE_SOURCES
from marple_gym.missions.suspects import MAX_SUSPECTS

DEFAULT_DATA = "data/marple"
size = int_in(1, MAX_SIZE)
DESCRIPTION = (
    "Generate the paper's dataset splits for scenarios or single missions: test = houses x episodes "
    "(pairs for scenarios), train-in = episodes in each test house, train-ood = one episode per new house. "
    "Sizes default to the paper's (10 houses x 50; 500 per house; 5000); --scale shrinks them (the test split "
    "keeps at least 20 trials a unit, the fewest whose figures the evaluation compares). "
    "Shards are written atomically and a rerun with the same settings resumes where it stopped."
)


def arguments(parser: argparse.ArgumentParser) -> None:
    """The whodunit options of ``marple generate``."""
    what = parser.add_argument_group("what to generate")
    what.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="NAME",
        help="scenario: pillow, shower, snack, plant, laundry, NAME@0.8 for a preference variant, "
        "or missionA-vs-missionB (repeatable; default: all five paper scenarios)",
    )
    what.add_argument("--mission", action="append", default=[], metavar="NAME", help="single mission (repeatable)")
    what.add_argument(
        "--suspects",
        type=int_in(2, MAX_SUSPECTS),
        metavar="N",
        help="N-suspect scenarios (sandwich, light, television, clothes; --scenario picks among them) with N "
        f"suspects, 2 to {MAX_SUSPECTS}, whose query state several suspects' missions produce; the culprit is "
        "whoever produced it first (default with --shared: 3)",
    )
    what.add_argument(
        "--shared",
        action="store_true",
        help="the N suspects act at once in one shared house (default: each in its own copy of the house)",
    )
    what.add_argument(
        "--config", metavar="JSON", help="house config (the paper's format or ours); default: 20 x 20, 4 rooms"
    )
    what.add_argument(
        "--houses",
        choices=HOUSE_SOURCES,
        default="random",
        help="the scenarios' test and train-in houses: random (new houses from --config, the default) or original "
        "(the house the original benchmark published for each paper scenario; train-ood houses stay random)",
    )
    what.add_argument("--splits", default=",".join(SPLITS), help="comma-separated splits (default: all three)")
    sizes = parser.add_argument_group("sizes")
    sizes.add_argument(
        "--scale",
        type=float_in(0.0, 1000.0, low_open=True),
        default=1.0,
        help="multiply every size by this (e.g. 0.01 for a quick run)",
    )
    sizes.add_argument("--test-houses", type=size, help="test houses per unit (paper: 10)")
    sizes.add_argument("--test-per-house", type=size, help="test episodes per house (paper: 50)")
    sizes.add_argument("--train-per-house", type=size, help="train-in episodes per test house and agent (paper: 500)")
    sizes.add_argument("--train-ood", type=size, help="train-ood episodes per agent, each in a new house (paper: 5000)")
    run = parser.add_argument_group("running")
    run.add_argument("--out", default=None, help=f"output directory (default: {DEFAULT_DATA})")
    run.add_argument("--seed", type=seed, default=0, help="master seed (default: 0)")
    run.add_argument("--workers", type=positive_int, default=None, help="processes (default: all cores)")
    run.add_argument("--shard-size", type=size, default=250, help="episodes per shard (default: 250)")
    run.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def build_spec(args: argparse.Namespace):
    """The :class:`~marple_gym.datasets.spec.DatasetSpec` the options ask for."""
    splits = tuple(s.strip() for s in args.splits.split(",") if s.strip())
    bad = [s for s in splits if s not in SPLITS]
    if bad or not splits:
        raise ValueError(f"--splits: unknown split(s) {bad}; choose from {', '.join(SPLITS)}")
    units = requested_units(args.scenario, args.mission, args.suspects, args.shared, getattr(args, "houses", "random"))
    sizes = {k: getattr(args, k) for k in ("test_houses", "test_per_house", "train_per_house", "train_ood")}
    return requested_spec(
        units,
        splits=splits,
        scale=args.scale,
        sizes=sizes,
        config=args.config,
        seed=args.seed,
        shard_size=args.shard_size,
    )


def generate(args: argparse.Namespace) -> int:
    """Write the dataset the options ask for (resuming one already there) and say what was written."""
    spec = build_spec(args)
    start = time.perf_counter()
    report = generate_dataset(spec, args.out or DEFAULT_DATA, workers=args.workers, progress=not args.no_progress)
    print(
        f"{report.root}: {report.episodes} trajectories ({report.shards_written} shards written, "
        f"{report.shards_skipped} already there) in {time.perf_counter() - start:.1f} s"
    )
    return 0
