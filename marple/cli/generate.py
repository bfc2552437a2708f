"""``marple generate``: write the benchmark's datasets."""

from __future__ import annotations

import argparse
import logging
import time

from marple.cli.families import add_family_argument
from marple.cli.options import float_in, int_in, positive_int, seed
from marple_gym.datasets.generate import generate_dataset
from marple_gym.datasets.manifest import MAX_SIZE, SPLITS
from marple_gym.datasets.units import requested_spec, requested_units
from marple_gym.expectations.sets import DEFAULT_SIZES
from marple_gym.generation.original import HOUSE_SOURCES
from marple_gym.missions.suspects import MAX_SUSPECTS

log = logging.getLogger(__name__)

size = int_in(1, MAX_SIZE)


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "generate",
        help="generate whodunit datasets (test, train-in, train-ood splits), belief questions or expectation trials",
        description=(
            "Generate the paper's dataset splits for scenarios or single missions: test = houses x episodes "
            "(pairs for scenarios), train-in = episodes in each test house, train-ood = one episode per new house. "
            "Sizes default to the paper's (10 houses x 50; 500 per house; 5000); --scale shrinks them (the test split "
            "keeps at least 20 trials a unit, the fewest whose figures the evaluation compares). "
            "Shards are written atomically and a rerun with the same settings resumes where it stopped. "
            "--family beliefs writes a question set (test questions in MMToM-QA's format, training episodes; "
            "docs/beliefs.md), --family expectations a trial set (AGENT's JSON tree; docs/expectations.md)."
        ),
    )
    add_family_argument(parser)
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
    beliefs = parser.add_argument_group("belief questions (--family beliefs; --test-houses: test houses, default 10)")
    beliefs.add_argument("--episodes-per-house", type=size, help="episodes per test house (default: 20)")
    beliefs.add_argument("--train-episodes", type=int_in(0, MAX_SIZE), help="training episodes (default: 500)")
    beliefs.add_argument("--false-belief", type=float_in(0.0, 1.0), help="share of Sally-Anne episodes (default: 0.25)")
    beliefs.add_argument("--perception", choices=("room", "view"), help="what agents see (default: room)")
    beliefs.add_argument("--per-type", type=size, help="questions of a type an episode may give (default: 2)")
    trials = parser.add_argument_group("expectation trials (--family expectations)")
    for split, default in DEFAULT_SIZES.items():
        trials.add_argument(
            f"--{split}-per-type", type=int_in(0, MAX_SIZE), help=f"{split} trials of each type (default: {default})"
        )
    trials.add_argument("--types", help="comma-separated trial types (default: all twelve)")
    run = parser.add_argument_group("running")
    run.add_argument(
        "--out",
        default=None,
        help="output directory (default: data/marple; data/beliefs or data/expectations with --family)",
    )
    run.add_argument("--seed", type=seed, default=0, help="master seed (default: 0)")
    run.add_argument("--workers", type=positive_int, default=None, help="processes (default: all cores)")
    run.add_argument("--shard-size", type=size, default=250, help="episodes per shard (default: 250)")
    run.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(run=run_generate)


def build_spec(args: argparse.Namespace):
    """The :class:`~marple_gym.datasets.generate.DatasetSpec` the options ask for."""
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


FAMILY_OPTIONS = {
    "beliefs": ("episodes_per_house", "train_episodes", "false_belief", "perception", "per_type"),
    "expectations": ("train_per_type", "validation_per_type", "test_per_type", "types"),
}
WHODUNIT_SIZES = ("test_per_house", "train_per_house", "train_ood")


def run_generate(args: argparse.Namespace) -> int:
    wrong = [
        option
        for family, options in FAMILY_OPTIONS.items()
        if family != args.family
        for option in options
        if getattr(args, option) is not None
    ]
    if args.family != "whodunit":
        wrong += [o for o in WHODUNIT_SIZES if getattr(args, o) is not None]
        wrong += [o for o in ("scenario", "mission") if getattr(args, o)]
        wrong += [o for o in ("suspects", "config") if getattr(args, o) is not None]
    if wrong:
        names = ", ".join("--" + o.replace("_", "-") for o in wrong)
        raise ValueError(f"{names}: not options of --family {args.family}")
    if args.family == "beliefs":
        return generate_beliefs(args)
    if args.family == "expectations":
        return generate_expectations(args)
    args.out = args.out or "data/marple"
    spec = build_spec(args)
    start = time.perf_counter()
    report = generate_dataset(spec, args.out, workers=args.workers, progress=not args.no_progress)
    print(
        f"{report.root}: {report.episodes} trajectories ({report.shards_written} shards written, "
        f"{report.shards_skipped} already there) in {time.perf_counter() - start:.1f} s"
    )
    return 0


def generate_beliefs(args: argparse.Namespace) -> int:
    from marple_gym.beliefs.questions import QuestionSpec, generate_question_set

    sizes = {"test_houses": args.test_houses, "episodes_per_house": args.episodes_per_house}
    sizes |= {k: getattr(args, k) for k in FAMILY_OPTIONS["beliefs"][1:]}
    spec = QuestionSpec(seed=args.seed, **{k: v for k, v in sizes.items() if v is not None})
    start = time.perf_counter()
    report = generate_question_set(
        spec, args.out or "data/beliefs", workers=args.workers, progress=not args.no_progress
    )
    tests = sum(e["items"] for e in report.manifest["shards"].values() if e["split"] == "test")
    print(
        f"{report.root}: {tests} test episodes ({spec.test_houses} houses) and {spec.train_episodes} training "
        f"episodes ({report.written} shards written, {report.skipped} already there) in "
        f"{time.perf_counter() - start:.1f} s; MMToM-QA's format: {report.root / 'mmtom' / 'questions.jsonl'}"
    )
    return 0


def generate_expectations(args: argparse.Namespace) -> int:
    from marple_gym.expectations import TrialSetSpec, all_types, generate_trial_set

    sizes = {s: getattr(args, f"{s}_per_type") for s in DEFAULT_SIZES}
    types = tuple(t.strip() for t in args.types.split(",") if t.strip()) if args.types else all_types()
    spec = TrialSetSpec(args.seed, {s: DEFAULT_SIZES[s] if n is None else n for s, n in sizes.items()}, types)
    start = time.perf_counter()
    report = generate_trial_set(
        spec, args.out or "data/expectations", workers=args.workers, progress=not args.no_progress
    )
    print(
        f"{report.root}: {report.items} trials ({', '.join(f'{n} {s}' for s, n in spec.to_json()['sizes'].items())} "
        f"per type, {len(types)} types; {report.written} shards written, {report.skipped} already there) in "
        f"{time.perf_counter() - start:.1f} s"
    )
    return 0
