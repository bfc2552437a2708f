"""The belief methods by name, for the commands: ``uniform``, ``observer``, ``llm``."""

from __future__ import annotations

from typing import Any

from marple_eval.beliefs.llm import LLMBeliefMethod
from marple_eval.beliefs.methods import BeliefMethod, ObserverMethod, UniformMethod

METHODS: dict[str, type[BeliefMethod]] = {"uniform": UniformMethod, "observer": ObserverMethod, "llm": LLMBeliefMethod}
"""This package's methods. ``bip``, which learns its policy with torch, is ``marple_agents.beliefs.BipMethod``."""


def make_method(name: str, **options: Any) -> BeliefMethod:
    """A method of :data:`METHODS` by name, its options as keywords."""
    if name not in METHODS:
        raise ValueError(
            f"unknown belief method {name!r}; choose from {', '.join(METHODS)} (bip: marple_agents.beliefs.BipMethod)"
        )
    return METHODS[name](**options)
