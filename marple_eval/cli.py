"""``marple evaluate`` (score a model or human responses) and ``marple report`` (compare runs)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from marple_eval.lockstep import TRIALS_IN_FLIGHT
from marple_eval.settings import PROTOCOLS
from marple_gym.cli.options import DEVICE_SPECS, device_spec, float_in, nonnegative_int, positive_int, seed

if TYPE_CHECKING:
    from marple_eval.protocol import ProtocolSettings


def cutoff_value(text: str) -> int | None:
    """``--cutoff``: a number of steps, or ``none``."""
    if text.strip().lower() == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of steps or 'none', got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def thresholds_value(text: str) -> tuple[float, ...]:
    """``--threshold``: accuracies in (0.5, 1], comma-separated; the first is the headline."""
    try:
        values = tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected accuracies such as 0.8,0.6, got {text!r}") from None
    if not values or not all(0.5 < v <= 1.0 for v in values):
        raise argparse.ArgumentTypeError(f"each threshold must be in (0.5, 1], got {text!r}")
    return values


def add_cutoff_argument(parser, default: int | None, help: str) -> None:
    parser.add_argument("--cutoff", type=cutoff_value, default=default, metavar="STEPS|none", help=help)


def add_threshold_argument(parser) -> None:
    parser.add_argument(
        "--threshold",
        type=thresholds_value,
        default=(0.8, 0.6),
        metavar="ACC[,ACC]",
        help="accuracies whose evidence needed is reported (default: 0.8,0.6; the first is the headline)",
    )


def add_device_argument(parser: argparse.ArgumentParser, what: str = "where learned models run") -> None:
    parser.add_argument(
        "--device",
        type=device_spec,
        default="auto",
        metavar=DEVICE_SPECS,
        help=f"{what}, for every model that takes a device: auto (default: a GPU when there is one), cpu, cuda, "
        "cuda:N; recorded in the results (see docs/gpu.md)",
    )


def add_protocol_arguments(parser: argparse.ArgumentParser) -> None:
    """The protocol's settings (docs/evaluation.md): a named bundle, each of whose fields its own option changes."""
    from marple_eval.settings import DEFAULT_PROTOCOL, PROTOCOLS

    group = parser.add_argument_group("protocol (recorded in every results file; see docs/evaluation.md)")
    group.add_argument(
        "--protocol",
        choices=tuple(PROTOCOLS),
        default=DEFAULT_PROTOCOL,
        help="a named bundle of the settings below: paper (the paper's text: softmax, eta 5, margin 0, no cutoff, "
        "last point T), original (the released code: ratio, margin 5, cutoff 40, last point T-1) or ours "
        f"({_bundle_words(PROTOCOLS['ours'])}; the default). Each option below changes one of its settings",
    )
    # Unset options leave the bundle's value (SUPPRESS: the attribute is absent unless given).
    add_cutoff_argument(
        group, argparse.SUPPRESS, "answer 0.5 for both agents where T + margin - tau > STEPS; none: never"
    )
    group.add_argument(
        "--margin",
        type=nonnegative_int,
        default=argparse.SUPPRESS,
        help="look for the query state up to T + margin (a new run: it changes the rollouts)",
    )
    group.add_argument("--eta", type=float_in(0.0), default=argparse.SUPPRESS, help="softmax temperature")
    group.add_argument(
        "--combine",
        choices=("softmax", "ratio"),
        default=argparse.SUPPRESS,
        help="combine the agents' query probabilities: softmax (paper's text) or ratio (original code)",
    )
    group.add_argument(
        "--last-point",
        choices=("T", "T-1"),
        default=argparse.SUPPRESS,
        help="the last evidence point: T (paper's text) or T-1 (original code)",
    )
    add_threshold_argument(group)


def _bundle_words(bundle: dict) -> str:
    cutoff = "no cutoff" if bundle["cutoff"] is None else f"cutoff {bundle['cutoff']}"
    return f"{bundle['combine']}, eta {bundle['eta']:g}, margin {bundle['margin']}, {cutoff}, last point {bundle['last_point']}"


def protocol_changes(args: argparse.Namespace, keys: tuple[str, ...] | None = None) -> dict:
    """The protocol fields (of ``keys``, default all) given on the command line, by their own options."""
    from marple_eval.settings import BUNDLE

    return {key: getattr(args, key) for key in keys or BUNDLE if hasattr(args, key)}


def protocol_settings(args: argparse.Namespace, **extra) -> ProtocolSettings:
    """``--protocol``'s bundle with the fields its own options change."""
    from marple_eval.settings import ProtocolSettings

    return ProtocolSettings.named(args.protocol, **protocol_changes(args), **extra)


def add_evaluate_parser(subparsers) -> None:
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


def add_report_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "report",
        help="compare results files: Table-2-style table and Figure-4-style plots",
        description="Set runs side by side with the paper's Table 2 as reference rows, and plot accuracy curves.",
    )
    parser.add_argument("results", nargs="+", help="results files written by marple evaluate / marple benchmark")
    parser.add_argument("--plot", metavar="PNG", help="save a Figure-4-style plot here")
    parser.add_argument(
        "--band",
        choices=("paper", "bootstrap"),
        default="paper",
        help="plot bands: the paper's mean +/- sigma/sqrt(n), or the 95%% bootstrap interval (default: paper)",
    )
    parser.add_argument(
        "--detail",
        action="store_true",
        help="also list per scenario and evidence point the mean accuracy with both intervals",
    )
    parser.add_argument("--text", action="store_true", help="plain-text table instead of Markdown")
    parser.add_argument("--no-paper", action="store_true", help="leave out the paper's reference rows")
    add_threshold_argument(parser)
    add_cutoff_argument(
        parser,
        None,
        "also show each run under this cutoff (exact from runs scored with --cutoff none), and use it in the "
        "protocols-side-by-side table (default there: 40)",
    )
    shown = parser.add_argument_group(
        "protocol shown: every run rescored from what it stored, without new rollouts (see docs/evaluation.md)"
    )
    shown.add_argument(
        "--protocol",
        choices=tuple(PROTOCOLS),
        default=None,
        help="show every run under this bundle's combination, eta, cutoff and last point; each keeps its own "
        "margin (another margin means other rollouts), and the protocol column names what is shown",
    )
    shown.add_argument("--combine", choices=("softmax", "ratio"), default=argparse.SUPPRESS, help="change the rule")
    shown.add_argument("--eta", type=float_in(0.0), default=argparse.SUPPRESS, help="change the softmax temperature")
    shown.add_argument("--last-point", choices=("T", "T-1"), default=argparse.SUPPRESS, help="change the last point")
    parser.set_defaults(run=run_report)


def run_evaluate(args: argparse.Namespace) -> int:
    import sys

    from marple_eval.evaluation import ModelEvaluation, evaluate_model, score_responses
    from marple_eval.model_options import parse_agents, parse_model_args
    from marple_eval.models.registry import available_models
    from marple_eval.report import comparison_table

    if args.list_models:
        for name in sorted(available_models()):
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


def print_warnings(runs) -> None:
    import sys

    from marple_eval.report import small_group_warnings

    for warning in small_group_warnings(runs):
        print(f"warning: {warning}", file=sys.stderr)


def run_report(args: argparse.Namespace) -> int:
    import sys

    from marple_eval.plots import plot_runs
    from marple_eval.report import comparison_table, detail_table, protocols_table, report_runs
    from marple_eval.results import NotRescorable

    view = report_runs(
        args.results,
        protocol=args.protocol,
        changes=protocol_changes(args, ("combine", "eta", "last_point")),
        cutoff=args.cutoff,
    )
    if view.mixed_trials:  # loud: on both streams, above the table it concerns
        print(f"WARNING: {view.mixed_trials}\n")
        print(f"warning: {view.mixed_trials}", file=sys.stderr)
    for why in view.left_out:
        print(f"warning: left out: {why}", file=sys.stderr)
    if not view.runs:
        raise NotRescorable("no run can show the protocol asked for (see the warnings above)", "none")
    runs = view.runs
    print(comparison_table(runs, markdown=not args.text, with_paper=not args.no_paper, thresholds=args.threshold))
    side_cutoff = 40 if args.cutoff is None else args.cutoff
    print(f"\nEvidence needed for {args.threshold[0]:g}, protocols side by side (each run's one scoring):\n")
    print(protocols_table(runs, args.threshold[0], side_cutoff, markdown=not args.text))
    print_warnings(runs)
    if args.detail:
        print()
        print(detail_table(runs, markdown=not args.text))
    if args.plot:
        print(f"\nplot: {plot_runs(runs, args.plot, band=args.band)}")
    return 0
