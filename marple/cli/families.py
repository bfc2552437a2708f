"""The ``--family`` option the commands share, and ``marple evaluate --family beliefs|expectations``."""

from __future__ import annotations

import argparse
import sys

from marple.cli.options import parse_model_args

FAMILIES = ("whodunit", "beliefs", "expectations")


def add_family_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--family",
        choices=FAMILIES,
        default="whodunit",
        help="whodunit (MARPLE, the default), beliefs (MMToM-QA's questions: docs/beliefs.md) or expectations "
        "(AGENT's trials: docs/expectations.md)",
    )


def refuse_whodunit_options(args: argparse.Namespace, names: dict[str, object]) -> None:
    """A whodunit-only option given with ``--family`` is an error naming it (it would be silently ignored)."""
    given = [
        option
        for option, default in names.items()
        if getattr(args, option.lstrip("-").replace("-", "_"), default) != default
    ]
    if given:
        raise ValueError(f"{', '.join(given)}: only for whodunits, not with --family {args.family}")


def run_family(args: argparse.Namespace) -> int:
    """``marple evaluate --family ...``: score, save, print the table."""
    from marple.families.report import family_report

    refuse_whodunit_options(
        args,
        {"--responses": None, "--agent": [], "--scenario": [], "--csv": None, "--train-split": None,
         "--list-models": False, "--allow-incomplete": False, "--labelings": "random", "--exclude-inattentive": False},
    )  # fmt: skip
    tell = lambda note: print(f"note: {note}", file=sys.stderr)  # noqa: E731
    options = parse_model_args(args.model_arg)
    if args.family == "beliefs":
        from marple.families.beliefs import DEFAULT_DATA, BeliefEvaluation, evaluate_beliefs

        if args.generalisation:
            raise ValueError("--generalisation: only for --family expectations (tomnet)")
        request = BeliefEvaluation(
            method=args.model, data=args.data or DEFAULT_DATA, policy=args.checkpoint, model_args=options,
            device=args.device, dry_run=args.dry_run, limit=args.limit, out=args.out, progress=not args.no_progress,
        )  # fmt: skip
        evaluate_beliefs(request, tell)
    else:
        from marple.families.expectations import DEFAULT_DATA, ExpectationEvaluation, evaluate_expectations

        request = ExpectationEvaluation(
            method=args.model, data=args.data or DEFAULT_DATA, checkpoint=args.checkpoint, model_args=options,
            device=args.device, seed=args.seed, dry_run=args.dry_run, limit=args.limit, out=args.out,
            progress=not args.no_progress,
            generalisation=tuple(t for t in (args.generalisation or "").split(",") if t),
        )  # fmt: skip
        evaluate_expectations(request, tell)
    print(family_report([request.results_path]))
    print(f"\nresults: {request.results_path}")
    return 0
