"""``marple evaluate``: score an inference method (or human-study responses) on whodunit test trials."""

from __future__ import annotations

import argparse
import sys

from marple.cli.options import add_device_argument, parse_agents, parse_model_args, positive_int, seed
from marple.cli.protocol_options import add_protocol_arguments, protocol_changes
from marple.cli.report import print_warnings
from marple.evaluation import ModelEvaluation, evaluate_model, score_responses
from marple.runner import available_methods
from marple_eval.lockstep import TRIALS_IN_FLIGHT
from marple_eval.report import comparison_table


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="score an inference model (or human-study responses) on whodunit test trials",
        description=(
            "Run the evaluation protocol: for every test pair of the chosen scenarios, ask the model at tau = 0, "
            "T/10, ..., T with the culprit shown as A or B at random (seeded), and write a results file. "
            "With --responses, score human-study answers instead."
        ),
    )
    parser.add_argument("--data", default="data/marple", help="dataset directory (default: data/marple)")
    parser.add_argument(
        "--scenario", action="append", default=[], metavar="NAME", help="scenario (default: all in the dataset)"
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--model",
        default="uniform",
        help="registered model name (default: uniform; see --list-models), or package.module:Class for a model "
        "of your own (importable from the current directory)",
    )
    what.add_argument("--responses", nargs="+", metavar="JSONL", help="human-study response files to score")
    parser.add_argument(
        "--csv", metavar="FILE", help="with --responses: also write every answer as one CSV row (scored or why not)"
    )
    parser.add_argument(
        "--exclude-inattentive",
        action="store_true",
        help="with --responses: leave out participants who failed an attention check (default: report them only)",
    )
    parser.add_argument(
        "--model-arg", action="append", default=[], metavar="KEY=VALUE", help="model constructor argument"
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
        help="for models that call a service (llm): write every request and a token estimate to "
        "<out>.prompts.jsonl and call nothing",
    )
    parser.add_argument("--list-models", action="store_true", help="list the registered models and exit")
    parser.add_argument(
        "--labelings", choices=("random", "both"), default="random", help="placements to score (default: random)"
    )
    parser.add_argument("--seed", type=seed, default=0, help="run seed: placements and agent identities (default: 0)")
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        help="processes (default: 1); for a model on a GPU, trials scored at a time in one process, their forward "
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
        help="the agent models' training split: recorded in the results (the report's split column); for ideal, "
        "bip and simulation with agent=mcts also the split whose episodes give each agent's mission prior (default: in)",
    )
    parser.add_argument("--out", default=None, help="results file (default: results/<model>.json)")
    parser.add_argument("--no-progress", action="store_true")
    add_protocol_arguments(parser)
    parser.set_defaults(run=run_evaluate)


def run_evaluate(args: argparse.Namespace) -> int:
    if args.list_models:
        for name in sorted(available_methods()):
            print(name)
        return 0
    if (args.csv or args.exclude_inattentive) and not args.responses:
        raise ValueError("--csv and --exclude-inattentive go with --responses")
    if args.responses:
        outcome = score_responses(
            args.responses, exclude_inattentive=args.exclude_inattentive, csv=args.csv, out=args.out
        )
    else:
        request = ModelEvaluation(
            model=args.model,
            data=args.data,
            scenarios=tuple(args.scenario),
            model_args=parse_model_args(args.model_arg),
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
            out=args.out,
            dry_run=args.dry_run,
            progress=not args.no_progress,
        )
        outcome = evaluate_model(request, tell=lambda note: print(f"note: {note}", file=sys.stderr))
    if outcome.summary:
        print(outcome.summary)
    if outcome.run is None:  # a dry run: nothing scored
        return 0
    print(comparison_table([outcome.run], markdown=False, with_paper=False, thresholds=args.threshold))
    print_warnings([outcome.run])
    print(f"\nresults: {outcome.out}")
    return 0
