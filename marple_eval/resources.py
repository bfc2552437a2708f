"""What a method is given besides each trial, wired in one place for ``marple evaluate`` and the benchmark.

A method's resources are a function (scenario, role) -> what it needs for that agent:

* ``--agent ROLE=MODEL`` templates: each agent's policy checkpoint, or ``planner`` for its true planner
  (:class:`~marple_eval.protocol.AgentResources`);
* the ideal observer: each agent's mission prior from a training split (:class:`TrainingPriors`);
* ``bip``, and simulation with the MCTS agent model: a policy and a mission prior per agent, built by the
  ``marple.resources`` entry point ``bip`` (``marple_agents`` registers it; this package needs no torch).

The priors come from the training split the agent models were trained on, and are recorded in the results.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from marple_eval.inverse.priors import TrainingPriors
from marple_eval.protocol import AgentResources, Resources
from marple_gym.errors import MarpleError
from marple_gym.missions.scenarios import get_scenario

PRIORS_METHODS = ("ideal", "bip")
"""Methods that know each agent's missions from its training split (besides simulation with ``agent=mcts``)."""


def uses_priors(model: str, model_args: Mapping[str, Any]) -> bool:
    """Whether ``model`` with ``model_args`` is given each agent's mission prior."""
    return model in PRIORS_METHODS or model_args.get("agent") == "mcts"


def uses_learned_policies(model: str, model_args: Mapping[str, Any]) -> bool:
    """Whether it is given a learned policy and a mission prior per agent (``marple.resources`` entry point)."""
    return model == "bip" or model_args.get("agent") == "mcts"


def model_resources(
    model: str,
    model_args: Mapping[str, Any],
    agents: Mapping[str, str] | None,
    data: str | Path | None,
    train_split: str | None,
    scenarios: list[str],
) -> tuple[Resources | None, dict[str, Any]]:
    """The resources ``model`` is run with, and what the results record about them (each agent's mission prior).

    ``agents`` maps roles to policy checkpoint templates (``{scenario}``, ``{role}``) or ``planner``;
    ``train_split`` is the split the priors come from (``in`` when None).
    """
    resources: Resources | None = AgentResources(dict(agents)) if agents else None
    if not uses_priors(model, model_args):
        return resources, {}
    if data is None:
        raise ValueError(f"{model} is given each agent's mission prior from a training split: it needs the dataset")
    priors = TrainingPriors(str(data), train_split or "in")
    recorded = {"mission_priors": priors.describe(list(scenarios))}
    if not uses_learned_policies(model, model_args):
        return priors, recorded
    (builder,) = (ep.load() for ep in entry_points(group="marple.resources", name="bip"))
    return builder(dict(agents or {}), str(data), priors.split), recorded


def check_agent_files(resources: Resources, scenarios: list[str], option: str = "--agent") -> None:
    """Every agent checkpoint the run will load exists and reads, before anything is written.

    The methods get each file by content, not by name (the name would tell them the role), so their errors
    cannot say which file is bad: each is read here first by the checkpoint readers installed (entry points
    ``marple.checkpoints``; ``marple_agents`` registers its own), whose errors name it; ``option`` is the command
    line's name for the agents (``--agent``, ``--simulate-agent``).
    """
    roles = sorted({role for scenario in scenarios for role in get_scenario(scenario).roles})
    for role in getattr(resources, "templates", ()):
        if role not in roles:
            raise MarpleError(
                f"{option} {role}: no scenario of this run has a role {role} (their roles: {', '.join(roles)})"
            )
    readers = [ep.load() for ep in entry_points(group="marple.checkpoints")]
    checked = set()
    for scenario in scenarios:
        for role in get_scenario(scenario).roles:  # every suspect needs one: a missing role fails here
            value = resources(scenario, role)
            if not isinstance(value, str) or value in checked:
                continue
            if not Path(value).is_file():
                raise MarpleError(f"{option} {role}: no such policy checkpoint {value} (for scenario {scenario!r})")
            for read in readers:
                try:
                    read(value)
                except MarpleError as exc:
                    raise MarpleError(f"{option} {role}: {exc}") from None
            checked.add(value)
