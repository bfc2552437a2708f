"""An evaluation as ``marple evaluate`` asks for it: a method on a dataset's whodunit trials
(:class:`MethodEvaluation`, run by :func:`evaluate_method` through the method runner, :mod:`marple.runner`), or
human-study responses (:func:`score_responses`).

Each returns an :class:`EvaluationOutcome`: the results (saved), where they went, a summary line (a method that
calls a service: its usage; a dry run: the requests it would send and their estimated cost; responses: the CSV
written) and notes for the user. The protocol itself is :func:`marple_eval.protocol.evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from marple.registry import make_method, method_class, takes_argument
from marple.runner import MethodRun, check_agent_files, check_agent_models, run_method
from marple.study.human import read_responses, write_csv
from marple_eval.llm.client import dry_run_totals, ledger_totals
from marple_eval.llm.model import LLMMethod
from marple_eval.protocol import AgentResources, dataset_episodes
from marple_eval.results import RunResults
from marple_eval.settings import DEFAULT_PROTOCOL, ProtocolSettings
from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.recording.records import WhodunitEpisode


@dataclass(frozen=True)
class MethodEvaluation:
    """A method (registered name or ``package.module:Class``) scored on ``data``'s test trials.

    ``scenarios`` empty: every whodunit scenario of the dataset. ``protocol`` names a bundle and
    ``protocol_changes`` the fields given by their own options (a method that calls a service is scored without
    the cutoff unless ``cutoff`` is among them, as the paper scored GPT-4). ``device`` is where learned models
    run (a ``--device`` setting, resolved by the runner). ``workers`` None: one process, or
    :data:`~marple_eval.lockstep.TRIALS_IN_FLIGHT` trials at a time for a method on a GPU. ``out`` None:
    ``results/<method>.json``. ``dry_run``: a method that calls a service writes its requests and calls nothing.
    ``mission_prior``: what a method that takes a prior over each agent's missions (ideal, bip, simulation with
    the MCTS agent model) starts from (:data:`~marple_eval.inverse.priors.MISSION_PRIORS`; ``labels`` is
    privileged: the training split's mission labels).
    """

    method: str = "uniform"
    data: str = "data/marple"
    scenarios: tuple[str, ...] = ()
    method_args: dict[str, Any] = field(default_factory=dict)
    agents: dict[str, str] | None = None
    device: str = "auto"
    protocol: str = DEFAULT_PROTOCOL
    protocol_changes: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    labelings: str = "random"
    workers: int | None = None
    limit: int | None = None
    allow_incomplete: bool = False
    train_split: str | None = None
    mission_prior: str = "uniform"
    out: str | None = None
    dry_run: bool = False
    progress: bool = True

    @property
    def results_path(self) -> Path:
        return Path(self.out or f"results/{self.method.replace(':', '.')}.json")


@dataclass
class EvaluationOutcome:
    """What an evaluation produced: its results (None for a dry run) saved at ``out`` (a dry run: its requests
    file), a summary line to show ("" if none) and notes (e.g. an option that does not apply)."""

    out: Path
    run: RunResults | None
    summary: str = ""
    notes: list[str] = field(default_factory=list)


def evaluate_method(request: MethodEvaluation, tell: Callable[[str], None] = lambda note: None) -> EvaluationOutcome:
    """Score ``request``'s method on its dataset's trials and save the results (or, for a dry run, write the
    requests it would send); raises ValueError (or a :class:`~marple_gym.errors.MarpleError`) naming what is
    wrong with the request. ``tell`` hears each note as it arises, before the run (the command line prints it
    then, not after a run that may take hours); the outcome holds them all."""
    data = MarpleDataset(request.data)
    data.check_complete(request.allow_incomplete)
    scenarios = list(request.scenarios) or [u.name for u in data.spec.units if len(u.roles) >= 2]
    if not scenarios:
        raise ValueError(f"{request.data} has no whodunit scenarios (two or more agents) to evaluate")
    run = MethodRun(
        request.method,
        request.method_args,
        request.agents,
        request.data,
        request.train_split,
        tuple(scenarios),
        request.device,
        mission_prior=request.mission_prior,
    )
    target = method_class("whodunit", run.method)
    notes: list[str] = []
    if request.device != "auto" and not takes_argument(target, "device"):
        name = getattr(target, "name", None) or getattr(target, "__name__", "this method")
        notes.append(f"--device {request.device} does not apply to method {name!r}: it runs no learned model")
        tell(notes[-1])
    check_agent_models(run, target)
    episodes = dataset_episodes(data, scenarios, request.limit)
    if request.dry_run:
        return dry_run(run, target, request, episodes, notes)
    ledger = usage_ledger(run, target)
    if request.agents:
        check_agent_files(AgentResources(request.agents), scenarios)
    recorded: dict[str, Any] = {"dataset": str(request.data)}
    if request.train_split:
        recorded["train_split"] = request.train_split
    if request.agents:
        recorded["agents"] = request.agents
    if not data.complete:
        recorded["dataset_incomplete"] = True  # --allow-incomplete: say so in the results
    if request.limit is not None:
        recorded["limit"] = request.limit  # trials per scenario: the results are of a subsample
    if request.scenarios:
        recorded["scenarios"] = list(request.scenarios)
    results = run_method(
        run,
        episodes,
        method_protocol(request, target),
        run_settings=recorded,
        processes=request.workers or 1,
        in_flight=request.workers,
        out=request.results_path,
        progress=request.progress,
    )
    summary = ""
    if ledger is not None:
        results.settings["llm_usage"] = totals = ledger_totals(*ledger)
        summary = usage_words(totals, ledger[0])
        results.save(request.results_path)  # again, with the usage
    return EvaluationOutcome(request.results_path, results, summary, notes)


def score_responses(
    paths: list[str], *, exclude_inattentive: bool = False, csv: str | None = None, out: str | None = None
) -> EvaluationOutcome:
    """Human-study response files scored like a method (:func:`~marple.study.human.read_responses`), saved at
    ``out`` (default ``results/human.json``); with ``csv``, also every answer as one CSV row."""
    run = read_responses(paths, exclude_inattentive=exclude_inattentive)
    summary = f"answers, one per row: {csv} ({write_csv(paths, csv, exclude_inattentive)} rows)" if csv else ""
    results = Path(out or "results/human.json")
    run.save(results)
    return EvaluationOutcome(results, run, summary)


def method_protocol(request: MethodEvaluation, target: Callable[..., Any]) -> ProtocolSettings:
    """The run's protocol: the bundle with the fields changed, except that an LLM is scored without the cutoff
    unless asked otherwise, as the paper scored GPT-4 (the original code never cut its answers)."""
    uncut = {"cutoff": None} if is_llm(target) and "cutoff" not in request.protocol_changes else {}
    return ProtocolSettings.named(
        request.protocol, **request.protocol_changes, seed=request.seed, labelings=request.labelings, **uncut
    )


def is_llm(target: Callable[..., Any]) -> bool:
    """Whether the method calls a language-model service (and so keeps a usage ledger)."""
    return isinstance(target, type) and issubclass(target, LLMMethod)


def usage_ledger(run: MethodRun, target: Callable[..., Any]) -> tuple[Path, int] | None:
    """For an LLM: its usage ledger and where this run starts in it."""
    if not is_llm(target):
        return None
    ledger = make_method("whodunit", run.method, **run.args).client.ledger
    return ledger, ledger.stat().st_size if ledger.is_file() else 0


def usage_words(totals: dict[str, Any], ledger: Path) -> str:
    """A run's usage of a service (:func:`~marple_eval.llm.client.ledger_totals`) in one line."""
    return (
        f"llm: {totals['requests']} requests ({totals['from_cache']} more answered from the cache), "
        f"{totals['prompt_tokens']} prompt + {totals['completion_tokens']} completion tokens, "
        f"cost ${totals['cost_usd']:.2f} (ledger: {ledger})"
    )


def dry_run(
    run: MethodRun,
    target: Callable[..., Any],
    request: MethodEvaluation,
    episodes: list[WhodunitEpisode],
    notes: list[str],
) -> EvaluationOutcome:
    """Write the requests a run would send on ``episodes``, and their token estimate, without calling anything."""
    if not takes_argument(target, "dry_run"):
        raise ValueError(f"--dry-run: method {request.method!r} calls no service, so it has nothing to dry-run")
    prompts = request.results_path.with_suffix(".prompts.jsonl")
    prompts.unlink(missing_ok=True)
    # No agent models (nothing is asked of them), and one process: the requests file is written line by line, and
    # a dry run sends nothing to wait for.
    asked = replace(run, args={**run.args, "dry_run": str(prompts)}, agents=None)
    run_method(asked, episodes, method_protocol(request, target), progress=request.progress)
    totals = dry_run_totals(prompts, make_method("whodunit", asked.method, **asked.args).client.settings)
    summary = (
        f"dry run: {totals['requests']} requests to send ({totals['from_cache']} already in the cache), "
        f"about {totals['estimated_prompt_tokens']} prompt tokens, at most {totals['max_completion_tokens']} "
        f"completion tokens, at most ${totals['max_cost_usd']:.2f} at the given prices\nrequests: {prompts}"
    )
    return EvaluationOutcome(prompts, None, summary, notes)
