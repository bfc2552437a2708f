"""A model's options as command lines write them: ``KEY=VALUE`` arguments and ``ROLE=MODEL`` agents
(``marple evaluate --model-arg/--agent``, ``marple study --simulate-arg/--simulate-agent``)."""

from __future__ import annotations

import json
from typing import Any


def parse_model_args(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` words as keyword arguments; a value is read as JSON where it is JSON (``rollouts=5``,
    ``agent="mcts"``), else kept as text (``agent=mcts``)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--model-arg expects KEY=VALUE, got {item!r}")
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
