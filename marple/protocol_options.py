"""The evaluation protocol's options, alike for ``marple evaluate``, ``marple report`` and ``marple benchmark``:
``--protocol`` (a named bundle) and the options that change each of its settings, ``--cutoff`` and
``--threshold`` (docs/evaluation.md)."""

from __future__ import annotations

import argparse

from marple.options import float_in, nonnegative_int
from marple_eval.settings import BUNDLE, DEFAULT_PROTOCOL, PROTOCOLS, ProtocolSettings
from marple_eval.success import SUCCESS_RULES


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


def add_protocol_arguments(parser: argparse.ArgumentParser) -> None:
    """The protocol's settings (docs/evaluation.md): a named bundle, each of whose fields its own option changes."""
    group = parser.add_argument_group("protocol (recorded in every results file; see docs/evaluation.md)")
    group.add_argument(
        "--protocol",
        choices=tuple(PROTOCOLS),
        default=DEFAULT_PROTOCOL,
        help=f"a named bundle of the settings below: paper (the paper's text: {_bundle_words(PROTOCOLS['paper'])}), "
        f"original (the released code: {_bundle_words(PROTOCOLS['original'])}) or ours "
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
    group.add_argument(
        "--success",
        choices=SUCCESS_RULES,
        default=argparse.SUPPRESS,
        help="what a rollout must do to count: reach the query state itself (query-state, the paper's text) or "
        "match the query action's (target type, action type) (action-match, the original code); a new run",
    )
    add_threshold_argument(group)


def _bundle_words(bundle: dict) -> str:
    cutoff = "no cutoff" if bundle["cutoff"] is None else f"cutoff {bundle['cutoff']}"
    return (
        f"{bundle['combine']}, eta {bundle['eta']:g}, margin {bundle['margin']}, {cutoff}, last point "
        f"{bundle['last_point']}, success by {bundle['success']}"
    )


def protocol_changes(args: argparse.Namespace, keys: tuple[str, ...] | None = None) -> dict:
    """The protocol fields (of ``keys``, default all) given on the command line, by their own options."""
    return {key: getattr(args, key) for key in keys or BUNDLE if hasattr(args, key)}


def protocol_settings(args: argparse.Namespace, **extra) -> ProtocolSettings:
    """``--protocol``'s bundle with the fields its own options change."""
    return ProtocolSettings.named(args.protocol, **protocol_changes(args), **extra)
