"""What a method is given besides each trial, wired in one place for ``marple evaluate`` and the benchmark.

A method's resources are a function (scenario, role) -> what it needs for that agent:

* ``--agent ROLE=MODEL`` templates: each agent's policy checkpoint, or ``planner`` for its true planner
  (:class:`~marple_eval.protocol.AgentResources`);
* the ideal observer: each agent's mission prior (:mod:`marple_eval.inverse.priors`);
* ``bip``, and simulation with the MCTS agent model: a policy and a mission prior per agent, built by the
  ``marple.resources`` entry point ``bip`` (``marple_agents`` registers it; this package needs no torch).

The prior is uniform over the scenario's missions unless the run names another
(``mission_prior``); the privileged ``labels`` prior comes from the training split the agent models were trained
on. The results record which prior was used, and every prior with its source.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from marple_eval.inverse.priors import DEFAULT_MISSION_PRIOR, PRIVILEGED_PRIORS, mission_priors
from marple_eval.protocol import AgentResources, Resources
from marple_gym.errors import MarpleError
from marple_gym.missions.scenarios import get_scenario

PRIORS_METHODS = ("ideal", "bip")
"""Methods that take a prior over each agent's missions (besides simulation with ``agent=mcts``)."""


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
    mission_prior: str = DEFAULT_MISSION_PRIOR,
) -> tuple[Resources | None, dict[str, Any]]:
    """The resources ``model`` is run with, and what the results record about them (which mission prior, and each
    agent's).

    ``agents`` maps roles to policy checkpoint templates (``{scenario}``, ``{role}``) or ``planner``;
    ``mission_prior`` names the prior (:data:`~marple_eval.inverse.priors.MISSION_PRIORS`); the privileged
    ``labels`` prior comes from ``train_split`` of ``data`` (``in`` when None).
    """
    resources: Resources | None = AgentResources(dict(agents)) if agents else None
    if not uses_priors(model, model_args):
        return resources, {}
    if mission_prior in PRIVILEGED_PRIORS and data is None:
        raise ValueError(
            f"{model} with the training-label prior counts each agent's training missions: it needs the dataset"
        )
    priors = mission_priors(mission_prior, None if data is None else str(data), train_split)
    recorded = {
        "mission_prior": mission_prior,
        "mission_prior_privileged": mission_prior in PRIVILEGED_PRIORS,
        "mission_priors": priors.describe(list(scenarios)),
    }
    if not uses_learned_policies(model, model_args):
        return priors, recorded
    (builder,) = (ep.load() for ep in entry_points(group="marple.resources", name="bip"))
    return builder(dict(agents or {}), priors), recorded


def check_agent_files(resources: Resources, scenarios: list[str]) -> None:
    """Every agent checkpoint the run will load exists and reads, before anything is written.

    The methods get each file by content, not by name (the name would tell them the role), so their errors
    cannot say which file is bad: each is read here first by the checkpoint readers installed (entry points
    ``marple.checkpoints``; ``marple_agents`` registers its own), whose errors name it.
    """
    readers = [ep.load() for ep in entry_points(group="marple.checkpoints")]
    checked = set()
    for scenario in scenarios:
        for role in get_scenario(scenario).roles:  # every suspect needs one: a missing role fails here
            value = resources(scenario, role)
            if not isinstance(value, str) or value in checked:
                continue
            if not Path(value).is_file():
                raise MarpleError(f"--agent {role}: no such policy checkpoint {value} (for scenario {scenario!r})")
            for read in readers:
                try:
                    read(value)
                except MarpleError as exc:
                    raise MarpleError(f"--agent {role}: {exc}") from None
            checked.add(value)
