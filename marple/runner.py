"""The whodunit method runner: how ``marple evaluate``, ``marple benchmark`` and ``marple study --simulate`` build a
whodunit method, wire what it is given, place it on its device and run it.

:func:`run_method` runs a :class:`MethodRun` on a list of trials under the protocol
(:func:`marple_eval.protocol.evaluate`); ``marple evaluate`` (:mod:`marple.evaluation`) and the benchmark's
inference stage (:mod:`marple.benchmark.pipeline`) both call it, and a simulated study participant
(:mod:`marple.study.participant`) builds its method from the same pieces:

* **build** (:func:`marple.registry.make_method`): a method by name, from the application's table of methods
  (:data:`marple.registry.METHODS`: the evaluation library's and the learned methods of ``marple_agents``), from an
  outside plugin (the ``marple.methods`` entry-point group), or as ``package.module:Class`` (importable from the
  current directory);
* **wire** (:func:`method_resources`): what the method is given per agent besides each trial: ``--agent
  ROLE=MODEL`` templates (each agent's policy checkpoint, or ``planner`` for its true planner), and for methods
  that take a prior over each agent's missions (``ideal``, ``bip``, simulation with ``agent=mcts``) that prior:
  uniform over the scenario's missions by default, or the privileged training-split mission labels
  (:mod:`marple_eval.inverse.priors`), recorded in the results; ``bip`` and the MCTS agent model get a policy and
  a prior per agent (:class:`marple_agents.bip.BipResources`);
* **place** (:func:`placed_arguments`): the ``--device`` setting resolved once, to one :class:`torch.device`
  handed to every method that takes a ``device`` (and ``--precision`` to those that take a ``precision``); a run
  whose agent models are all the true planner has nothing to put on a GPU and runs on the CPU;
* **run**: on the CPU, trials spread over worker processes (started for the run, or a
  :class:`~marple_eval.workers.TrialWorkers` its caller keeps across runs, whose workers keep the policies they
  loaded and the answers their caches hold, :func:`marple_agents.cache.policy_cache`); on a GPU, several trials
  at a time in one process, their forward passes batched (:mod:`marple_eval.lockstep`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from marple.registry import make_method, method_class, takes_argument
from marple_agents.bip import BipResources
from marple_agents.device import resolve_device
from marple_eval.inverse.priors import DEFAULT_MISSION_PRIOR, PRIVILEGED_PRIORS, mission_priors
from marple_eval.lockstep import TRIALS_IN_FLIGHT
from marple_eval.protocol import AgentResources, MethodFactory, Resources, SuspectAnswers, evaluate, evaluate_suspect
from marple_eval.results import RunResults
from marple_eval.settings import ProtocolSettings
from marple_eval.workers import TrialWorkers
from marple_gym.errors import MarpleError
from marple_gym.missions.scenarios import get_scenario
from marple_gym.recording.records import WhodunitEpisode

if TYPE_CHECKING:
    import torch

PRIORS_METHODS = ("ideal", "bip")
"""Methods that take a prior over each agent's missions (besides simulation with ``agent=mcts``)."""


@dataclass(frozen=True)
class MethodRun:
    """An inference method as a command asks for it.

    ``method`` is a registered name or ``package.module:Class`` and ``args`` its constructor's arguments;
    ``agents`` maps roles to agent models (a checkpoint template with ``{scenario}`` and ``{role}``, or
    ``planner``); ``mission_prior`` names the prior over each agent's missions of a method that takes one
    (:data:`~marple_eval.inverse.priors.MISSION_PRIORS`), for the ``scenarios`` of the run: the privileged
    ``labels`` prior reads the ``train_split`` (``in`` when None) of the dataset ``data``; ``device`` is a ``--device`` setting (``auto``, ``cpu``, ``cuda``,
    ``cuda:N``) or a :class:`torch.device` already chosen (a benchmark job's), and ``precision`` the learned
    methods' number format (None: the method's default).
    """

    method: str
    args: Mapping[str, Any] = field(default_factory=dict)
    agents: Mapping[str, str] | None = None
    data: str | Path | None = None
    train_split: str | None = None
    scenarios: tuple[str, ...] = ()
    device: str | torch.device = "auto"
    precision: str | None = None
    mission_prior: str = DEFAULT_MISSION_PRIOR


# ---- build ------------------------------------------------------------------------------------------------


def method_factory(name: str, **kwargs: Any) -> MethodFactory:
    """A picklable factory of the whodunit method ``name`` with ``kwargs``, as :func:`~marple_eval.protocol.evaluate`
    takes one (it builds the method once per worker process)."""
    return functools.partial(make_method, "whodunit", name, **kwargs)


# ---- wire -------------------------------------------------------------------------------------------------


def uses_priors(run: MethodRun) -> bool:
    """Whether the method is given each agent's mission prior."""
    return run.method in PRIORS_METHODS or run.args.get("agent") == "mcts"


def uses_learned_policies(run: MethodRun) -> bool:
    """Whether it is given a learned policy and a mission prior per agent."""
    return run.method == "bip" or run.args.get("agent") == "mcts"


def method_resources(run: MethodRun) -> tuple[Resources | None, dict[str, Any]]:
    """The resources the method is run with, and what the results record about them (which mission prior, and
    each agent's, for the run's scenarios)."""
    resources: Resources | None = AgentResources(dict(run.agents)) if run.agents else None
    if not uses_priors(run):
        return resources, {}
    if run.mission_prior in PRIVILEGED_PRIORS and run.data is None:
        raise ValueError(
            f"{run.method} with the training-label prior counts each agent's training missions: it needs the dataset"
        )
    priors = mission_priors(run.mission_prior, None if run.data is None else str(run.data), run.train_split)
    recorded = {
        "mission_prior": run.mission_prior,
        "mission_prior_privileged": run.mission_prior in PRIVILEGED_PRIORS,
        "mission_priors": priors.describe(list(run.scenarios)),
    }
    if not uses_learned_policies(run):
        return priors, recorded
    return BipResources(dict(run.agents or {}), priors), recorded


def check_agent_models(run: MethodRun, target: Callable[..., Any]) -> None:
    """A method that needs an agent model per suspect is given some (``--agent``), or the run is refused before it
    starts, naming the options to pass for the scenarios' roles."""
    if run.agents or not getattr(target, "needs_agent_models", False):
        return
    make_method("whodunit", run.method, **run.args)  # a bad argument of the method is named first: it is the nearer fix
    roles = sorted({role for scenario in run.scenarios for role in get_scenario(scenario).roles})
    kind = "language" if run.args.get("variant") in ("language", "all") or run.method == "bip" else "vision"
    example = " ".join(f"--agent '{role}=runs/{{scenario}}-in-{role}-{kind}/policy.pt'" for role in roles)
    raise MarpleError(
        f"--model {run.method} needs an agent model for every suspect; pass {example} (a policy checkpoint "
        f"per role, {{scenario}} filled in for each scenario; 'marple train --role ROLE --model {kind}' writes "
        f"these), or --agent ROLE=planner for the true planner as a perfect agent model"
    )


def check_agent_files(resources: Resources, scenarios: Iterable[str], option: str = "--agent") -> None:
    """Every agent checkpoint a run will load exists and reads, before anything is written.

    The methods get each file by content, not by name (the name would tell them the role), so their errors
    cannot say which file is bad: each is read here first, and the reader's error names it; ``option`` is the
    command line's name for the agents (``--agent``, ``--simulate-agent``).
    """
    # torch (the agents extra) is imported only when there is a checkpoint to read.
    from marple_agents.checkpoints import read_checkpoint

    scenarios = list(scenarios)
    roles = sorted({role for scenario in scenarios for role in get_scenario(scenario).roles})
    for role in getattr(resources, "templates", ()):
        if role not in roles:
            raise MarpleError(
                f"{option} {role}: no scenario of this run has a role {role} (their roles: {', '.join(roles)})"
            )
    checked = set()
    for scenario in scenarios:
        for role in get_scenario(scenario).roles:  # every suspect needs one: a missing role fails here
            value = resources(scenario, role)
            if not isinstance(value, str) or value in checked:
                continue
            if not Path(value).is_file():
                raise MarpleError(f"{option} {role}: no such policy checkpoint {value} (for scenario {scenario!r})")
            try:
                read_checkpoint(value)
            except MarpleError as exc:
                raise MarpleError(f"{option} {role}: {exc}") from None
            checked.add(value)


# ---- place ------------------------------------------------------------------------------------------------


def planner_agents_only(agents: Mapping[str, str] | None) -> bool:
    """Whether every agent model is the true planner: nothing to put on a GPU, and rollouts that want every core."""
    return bool(agents) and all(agent == "planner" for agent in agents.values())


def placed_arguments(target: Callable[..., Any], run: MethodRun) -> dict[str, Any]:
    """The method's arguments with where it runs: its device (a ``device`` argument wins over the run's setting),
    resolved here and only here, and the run's precision, for a method that takes them."""
    args = dict(run.args)
    if takes_argument(target, "device"):
        # The planner needs no torch: its device is the CPU by name.
        args["device"] = "cpu" if planner_agents_only(run.agents) else resolve_device(args.get("device", run.device))
    if run.precision is not None and takes_argument(target, "precision"):
        args["precision"] = run.precision
    return args


# ---- run --------------------------------------------------------------------------------------------------


def run_method(
    run: MethodRun,
    episodes: list[WhodunitEpisode],
    settings: ProtocolSettings,
    *,
    label: str | None = None,
    run_settings: Mapping[str, Any] | None = None,
    processes: int = 1,
    pool: TrialWorkers | None = None,
    in_flight: int | None = None,
    out: str | Path | None = None,
    progress: bool = True,
) -> RunResults:
    """Score ``run``'s method on ``episodes`` under ``settings`` and return (and, with ``out``, save) the results.

    On the CPU the trials spread over ``pool`` (worker processes kept across runs), or else over ``processes``
    worker processes started for this run; a method placed on a GPU scores
    ``in_flight`` trials at a time in one process (default :data:`~marple_eval.lockstep.TRIALS_IN_FLIGHT`).
    ``label`` names the method in tables (default: its own name); ``run_settings`` and what the wiring records
    join the results' settings.
    """
    factory, on_gpu = placed_factory(run)
    resources, recorded = method_resources(run)
    return evaluate(
        factory,
        episodes,
        settings,
        method=label,
        run_settings={**(run_settings or {}), **recorded},
        resources=resources,
        workers=(in_flight or TRIALS_IN_FLIGHT) if on_gpu else processes,
        pool=None if on_gpu else pool,
        out=out,
        progress=progress,
    )


def run_suspect(
    run: MethodRun,
    role: str,
    episodes: list[WhodunitEpisode],
    settings: ProtocolSettings,
    *,
    processes: int = 1,
    in_flight: int | None = None,
    progress: bool = True,
) -> SuspectAnswers:
    """The query probabilities of the agent of ``role`` alone on ``episodes``
    (:func:`~marple_eval.protocol.evaluate_suspect`): ``run``'s method built and placed as :func:`run_method`
    places it, only that role's agent model loaded. For simulation inference, the halves of a run scored suspect by
    suspect assemble into the run scored at once (:mod:`marple.benchmark.merge`)."""
    if uses_priors(run):
        raise ValueError(
            f"{run.method}: only simulation inference with plain agent models is scored suspect by suspect"
        )
    factory, on_gpu = placed_factory(run)
    resources, _ = method_resources(run)
    workers = (in_flight or TRIALS_IN_FLIGHT) if on_gpu else processes
    return evaluate_suspect(factory, episodes, settings, role, resources=resources, workers=workers, progress=progress)


def placed_factory(run: MethodRun) -> tuple[MethodFactory, bool]:
    """A factory of ``run``'s method with its arguments placed (:func:`placed_arguments`), and whether that puts
    it on a GPU."""
    args = placed_arguments(method_class("whodunit", run.method), run)
    return method_factory(run.method, **args), str(args.get("device", "cpu")).startswith("cuda")
