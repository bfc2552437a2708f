"""Every method the application runs, by family and name (its registry): the evaluation library's own
(:data:`marple_eval.methods.registry.BUILTIN`), the learned methods of ``marple_agents`` (registered here, the
application being the one floor that may name them), and those outside packages add through the
``marple.methods`` entry-point group (:mod:`marple_eval.methods.registry`).

``marple evaluate``, ``marple benchmark``, ``marple study --simulate`` and every family build their methods through
:func:`make_method`; a ``package.module:Class`` name imports from the current directory.
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable
from typing import Any

from marple_eval.methods.base import Method
from marple_eval.methods.registry import BUILTIN, Factory, Methods, build_method
from marple_eval.methods.registry import available_methods as registered
from marple_eval.methods.registry import method_class as registered_class

METHODS: Methods = {
    **BUILTIN,
    # By name: torch and Lightning load only when one of them is asked for.
    ("whodunit", "simulation"): "marple_agents.simulation:SimulationMethod",
    ("whodunit", "bip"): "marple_agents.bip:BipMethod",
    ("beliefs", "bip"): "marple_agents.beliefs.bip:BeliefBip",
    ("beliefs", "bip-privileged"): "marple_agents.beliefs.bip:BeliefBipPrivileged",
    ("expectations", "tomnet"): "marple_agents.tomnet.rater:ToMnetMethod.load",
    ("expectations", "tomnet-test-only"): "marple_agents.tomnet.rater:TestOnlyToMnetMethod.load",
}
"""Every method this package ships, by (family, name) (outside plugins join them: :func:`available_methods`)."""


def available_methods(family: str) -> dict[str, Factory]:
    """The methods of ``family`` by name: this package's and those outside plugins register."""
    return registered(family, METHODS)


def method_class(family: str, name: str) -> Factory:
    """The class or factory of the method ``name`` of ``family``; ``module:Class`` names import from the current
    directory."""
    if ":" in name and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # spawned workers inherit it
    return registered_class(family, name, METHODS)


def make_method(family: str, name: str, **kwargs: Any) -> Method:
    """The method ``name`` of ``family`` built with ``kwargs``, each checked by name first (a top-level function:
    worker processes build with it too)."""
    return build_method(family, name, method_class(family, name), kwargs)


def takes_argument(target: Callable[..., Any], name: str) -> bool:
    """Whether a method's class or factory names the keyword ``name`` (``device``, ``precision``, ``dry_run``,
    ``checkpoint``): what a run offers a method it gives only to one that asks for it by name."""
    try:
        return name in inspect.signature(target).parameters
    except (TypeError, ValueError):
        return False
