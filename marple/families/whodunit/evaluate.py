"""``marple evaluate`` for whodunits: a method (or human-study responses) scored on a dataset's test trials under
the protocol (:mod:`marple.evaluation`)."""

from __future__ import annotations

import argparse
import sys

from marple.evaluation import MethodEvaluation, evaluate_method, score_responses
from marple.families.base import add_method_arguments
from marple.families.whodunit.report import print_warnings
from marple.options import add_device_argument, parse_agents, parse_method_args, positive_int, seed
from marple.protocol_options import add_protocol_arguments, protocol_changes
from marple_eval.inverse.priors import DEFAULT_MISSION_PRIOR, MISSION_PRIORS
from marple_eval.lockstep import TRIALS_IN_FLIGHT
from marple_eval.report import comparison_table

DESCRIPTION = (
    "Run the evaluation protocol: for every test pair of the chosen scenarios, ask the method at tau = 0, "
    "T/10, ..., T with the culprit shown as A or B at random (seeded), and write a results file. "
    "With --responses, score human-study answers instead."
)


def arguments(parser: argparse.ArgumentParser, family) -> None:
    """The whodunit options of ``marple evaluate``."""
    parser.add_argument("--data", default=None, help="dataset directory (default: data/marple)")
    parser.add_argument(
        "--scenario", action="append", default=[], metavar="NAME", help="scenario (default: all in the dataset)"
    )
    add_method_arguments(parser, family, "uniform")
    parser.add_argument("--responses", nargs="+", metavar="JSONL", help="human-study response files to score")
    parser.add_argument(
        "--csv", metavar="FILE", help="with --responses: also write every answer as one CSV row (scored or why not)"
    )
    parser.add_argument(
        "--exclude-inattentive",
        action="store_true",
        help="with --responses: leave out participants who failed an attention check (default: report them only)",
    )
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="ROLE=MODEL",
        help="agent model for a role, for methods that use one: a checkpoint path ({scenario} is filled in) "
        "or 'planner' (the true planner: a perfect agent model); e.g. --agent A=runs/{scenario}/in/A-vision/policy.pt",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="for methods that call a service (llm): write every request and a token estimate to "
        "<out>.prompts.jsonl and call nothing",
    )
    parser.add_argument(
        "--labelings", choices=("random", "both"), default="random", help="placements to score (default: random)"
    )
    parser.add_argument("--seed", type=seed, default=0, help="run seed: placements and agent identities (default: 0)")
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        help="processes (default: 1); for a method on a GPU, trials scored at a time in one process, their forward "
        f"passes batched (default: {TRIALS_IN_FLIGHT})",
    )
    add_device_argument(parser)
    parser.add_argument("--limit", type=positive_int, default=None, help="at most this many trials per scenario")
    parser.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="use a dataset whose generation was interrupted (recorded in the results)",
    )
    parser.add_argument(
        "--train-split",
        choices=("in", "ood"),
        default=None,
        help="the agent models' training split: recorded in the results (the report's split column); with "
        "--mission-prior labels also the split whose episodes' missions give each agent's prior (default: in)",
    )
    parser.add_argument(
        "--mission-prior",
        choices=MISSION_PRIORS,
        default=DEFAULT_MISSION_PRIOR,
        help="for ideal, bip and simulation with agent=mcts, each agent's prior over its missions: uniform over the "
        "scenario's missions (the default), uniform-all over the ten, or labels: PRIVILEGED, the mission labels of "
        "the agent's training split (in the paper's setting, its test mission); recorded in the results",
    )
    parser.add_argument("--out", default=None, help="results file (default: results/<method>.json)")
    parser.add_argument("--no-progress", action="store_true")
    add_protocol_arguments(parser)


def evaluate(args: argparse.Namespace) -> int:
    """Score the method (or the responses) the options ask for and print the table."""
    if (args.csv or args.exclude_inattentive) and not args.responses:
        raise ValueError("--csv and --exclude-inattentive go with --responses")
    if args.responses:
        outcome = score_responses(
            args.responses, exclude_inattentive=args.exclude_inattentive, csv=args.csv, out=args.out
        )
    else:
        request = MethodEvaluation(
            method=args.method,
            data=args.data or "data/marple",
            scenarios=tuple(args.scenario),
            method_args=parse_method_args(args.method_arg),
            agents=parse_agents(args.agent) if args.agent else None,
            device=args.device,
            protocol=args.protocol,
            protocol_changes=protocol_changes(args),
            seed=args.seed,
            labelings=args.labelings,
            workers=args.workers,
            limit=args.limit,
            allow_incomplete=args.allow_incomplete,
            train_split=args.train_split,
            mission_prior=args.mission_prior,
            out=args.out,
            dry_run=args.dry_run,
            progress=not args.no_progress,
        )
        outcome = evaluate_method(request, tell=lambda note: print(f"note: {note}", file=sys.stderr))
    if outcome.summary:
        print(outcome.summary)
    if outcome.run is None:  # a dry run: nothing scored
        return 0
    print(comparison_table([outcome.run], markdown=False, with_paper=False, thresholds=args.threshold))
    print_warnings([outcome.run])
    print(f"\nresults: {outcome.out}")
    return 0
