"""Options shared by the commands: argument types, range-checked by the parser with the option named; the one
``--device`` option (:func:`add_device_argument`); a method's ``KEY=VALUE`` arguments and ``ROLE=MODEL`` agents.

``parser.add_argument("--workers", type=positive_int)`` makes ``--workers 0``
fail in argparse itself (``argument --workers: expected an integer >= 1, got
'0'``, exit status 2) before the command runs, so nothing is written for an
option out of range. Floats must be finite: ``nan`` and ``inf`` are refused. :func:`env_id` takes only an
environment id this package registers.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import re
from collections.abc import Callable
from typing import Any

from marple_gym.envs.registration import env_ids
from marple_gym.levels.ladder import level_ids

MAX_SEED = 2**63 - 1
"""numpy seeds are non-negative; keep them in a signed 64-bit integer."""


def int_in(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high] (either bound may be None)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected an integer {_bounds(low, high)}, got {text!r}")
        return value

    parse.__name__ = "integer"  # argparse names the type in some messages
    return parse


def float_in(low: float | None = None, high: float | None = None, *, low_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number in [low, high] (or (low, high] with ``low_open``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        too_low = low is not None and (value <= low if low_open else value < low)
        if not math.isfinite(value) or too_low or (high is not None and value > high):
            bounds = _bounds(low, high, low_open)
            raise argparse.ArgumentTypeError(f"expected a finite number {bounds}, got {text!r}")
        return value

    parse.__name__ = "number"
    return parse


def _bounds(low: float | None, high: float | None, low_open: bool = False) -> str:
    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{low}, {high}]"
    if low is not None:
        return f"{'>' if low_open else '>='} {low}"
    return f"<= {high}" if high is not None else ""


def devices(text: str) -> int | str:
    """``--devices``: "auto" or a positive number of devices."""
    if text == "auto":
        return text
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected 'auto' or an integer >= 1, got {text!r}") from None


DEVICE_SPECS = "auto|cpu|cuda|cuda:N"


def device_spec(text: str) -> str:
    """``--device``: where learned models run: auto (a GPU when there is one), cpu, cuda or cuda:N.

    Only the form is checked here (the command line stays free of torch); the model runner resolves it, once,
    to the device the learned models run on (:mod:`marple.runner`)."""
    value = text.strip().lower()
    if value in ("auto", "cpu", "cuda") or re.fullmatch(r"cuda:\d+", value):
        return value
    raise argparse.ArgumentTypeError(f"expected {DEVICE_SPECS}, got {text!r}")


def add_device_argument(parser: argparse.ArgumentParser, what: str = "where learned models run") -> None:
    parser.add_argument(
        "--device",
        type=device_spec,
        default="auto",
        metavar=DEVICE_SPECS,
        help=f"{what}, for every model that takes a device: auto (default: a GPU when there is one), cpu, cuda, "
        "cuda:N; recorded in the results (see docs/gpu.md)",
    )


def env_id(text: str) -> str:
    """An environment id this package registers (``marple envs --all`` lists them), or the nearest ids named."""
    known = [*env_ids(), *level_ids(include_missions=False)]
    if text in known:
        return text
    near = difflib.get_close_matches(text, known, n=3)
    hint = f"did you mean {' or '.join(near)}? " if near else ""
    raise argparse.ArgumentTypeError(
        f"unknown environment {text!r}; {hint}`marple envs --all` lists the {len(known)} ids"
    )


positive_int = int_in(1)
nonnegative_int = int_in(0)
seed = int_in(0, MAX_SEED)
positive_float = float_in(0.0, low_open=True)
tile_size = int_in(8, 256)
"""Pixels per cell of a drawn grid: below 8 nothing is legible, above 256 a frame takes gigabytes."""


# ---- a method's options as command lines write them: KEY=VALUE arguments and ROLE=MODEL agents ----


def parse_method_args(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` words as keyword arguments; a value is read as JSON where it is JSON (``rollouts=5``,
    ``agent="mcts"``), else kept as text (``agent=mcts``)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--method-arg expects KEY=VALUE, got {item!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def parse_agents(items: list[str]) -> dict[str, str]:
    """``ROLE=MODEL`` words (a role A, B, C, ...) as role -> agent model (a checkpoint template or ``planner``)."""
    out = {}
    for item in items:
        role, sep, value = item.partition("=")
        if not sep or len(role) != 1 or not "A" <= role <= "Z" or not value:
            raise ValueError(f"--agent expects ROLE=MODEL with a role A, B, C, ..., got {item!r}")
        out[role] = value
    return out
