"""The evaluation protocol (paper section 6.1; SPEC section 8; docs/evaluation.md).

For each trial (a test-split whodunit group: two suspects in the paper's
scenarios, N in the N-suspect ones), T is the step at which the culprit reached
the query state, and the method answers at tau = 0, T/10, ..., T with one
probability per suspect. Which agent is shown as "A" (and "B", "C", ...) is
drawn per trial from a generator seeded with (run seed, episode id), so every
run can be reproduced and no method profits from always answering "A";
``labelings="both"`` scores every placement of the culprit (both, for two
suspects; the culprit under each label in turn, for N) and averages them.

Where the paper's text is silent, the rules follow the original code, each a
named field of :class:`ProtocolSettings` recorded in every results file: the
horizon T + ``margin``, the ``cutoff`` (1/N to each of N agents, 0.5 for two,
without asking the method, where T + margin - tau > cutoff), the combination of
the agents' query probabilities, and the last evidence point.

Nothing a method receives depends on the agents' roles (which name the
culprit): agents appear under identities salted afresh in every run, their
start configs under one neutral name, and their agent-model files by content,
never by path.

Trials run on several processes (:mod:`marple_eval.workers`, which a caller may
keep for several runs) with a progress bar; a method on a GPU scores
several trials at a time in one process instead, its forward passes batched
across them (:mod:`marple_eval.lockstep`). Finished trials are appended to a
journal next to the results file, so an interrupted run resumes where it
stopped.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import secrets
import zlib
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from marple_eval.evidence import Placement, culprit_first, shown_order, trial_evidence
from marple_eval.journal import Journal, differing_settings, journal_path
from marple_eval.lockstep import run_in_lockstep
from marple_eval.methods.guard import AnswerCheck, InvalidAnswerError, method_code
from marple_eval.methods.registry import make_method
from marple_eval.methods.whodunit import QueryMethod, WhodunitMethod, check_query_probabilities, combined_answer
from marple_eval.results import ResultsError, RunResults, TrialResult, culprit_mean, read_trial
from marple_eval.settings import ProtocolSettings
from marple_eval.workers import TrialWorkers
from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.datasets.selection import select_trials
from marple_gym.missions.scenarios import get_scenario
from marple_gym.missions.suspects import suspect_labels
from marple_gym.recording.records import WhodunitEpisode
from marple_gym.validation import Fields, message_error

log = logging.getLogger(__name__)

MethodFactory = Callable[[], WhodunitMethod]
Resources = Callable[[str, str], Any]
"""(scenario, role) -> whatever the method needs for that agent (e.g. its learned policy)."""

EXECUTORS = ("auto", "processes", "lockstep")
"""How trials are scored: a trial per worker process, or several at a time in one process (lockstep)."""


@dataclass(frozen=True)
class Identities:
    """The opaque names under which methods see agents in one run.

    A fresh random salt per run: within the run an agent keeps its name (so a
    method can pick that agent's learned model), across runs the names cannot
    be computed from public inputs, so no name says "this is agent A's role".
    Results never depend on the salt.
    """

    salt: str = field(default_factory=lambda: secrets.token_hex(8))

    def __call__(self, scenario: str, role: str) -> str:
        return "agent-" + hashlib.sha256(f"{self.salt}/{scenario}/{role}".encode()).hexdigest()[:10]


def placements(settings: ProtocolSettings, episode_id: str, suspects: int = 2) -> list[Placement]:
    """Which placements to score (:data:`~marple_eval.evidence.Placement`). Two suspects: ``swap`` True shows
    the culprit as "B". N suspects: a seeded order, or with ``labelings="both"`` the culprit under each label."""
    if suspects == 2 and settings.labelings == "both":
        return [False, True]
    if settings.labelings == "both":
        return [tuple((j - k) % suspects for j in range(suspects)) for k in range(suspects)]
    rng = np.random.default_rng([settings.seed, zlib.crc32(episode_id.encode())])
    if suspects == 2:
        return [bool(rng.random() < 0.5)]
    return [tuple(rng.permutation(suspects).tolist())]


def score_trial(
    method: WhodunitMethod,
    episode: WhodunitEpisode,
    settings: ProtocolSettings,
    identities: Identities | None = None,
    check: AnswerCheck | None = None,
) -> TrialResult:
    """Ask ``method`` at every evidence point of one trial, for each placement (1/N each at cut points).

    A labeling records the answers per label (``p_a``, ``p_b``, ...) and where the culprit was shown:
    ``swap`` for two suspects, ``culprit_as`` (its label) for more. A method that combines P(query | agent)
    (:attr:`~marple_eval.methods.whodunit.WhodunitMethod.combines_query_probabilities`) is asked for those at
    :meth:`~ProtocolSettings.query_points` instead, and the labeling also keeps them per label (``q_a``,
    ``q_b``, ...; None where the cutoff spared the rollouts): every combination rule, cutoff and last point
    follow from them (:meth:`~marple_eval.results.RunResults.rescored`). What the method raises is a
    :class:`~marple_eval.methods.guard.MethodError` naming it; ``check`` (one per run) refuses answers that are
    not probabilities and rescales those that do not sum to 1, warning once.
    """
    identities = identities or Identities()
    check = check or AnswerCheck(method.name)
    n = episode.suspects
    if method.suspects is not None and n > method.suspects:
        raise ValueError(f"{method.name} answers for at most {method.suspects} suspects; {episode.episode_id} has {n}")
    horizon, scenario = episode.horizon, episode.scenario
    taus = settings.taus(horizon)
    combines = method.combines_query_probabilities
    points = settings.query_points(horizon) if combines else taus
    labels = suspect_labels(n)
    names = tuple(identities(scenario, labels[i]) for i in culprit_first(episode))
    labelings = []
    for placement in placements(settings, episode.episode_id, n):
        asked = [tau for tau in points if not settings.is_cut(horizon, tau)]
        # All evidence points of the trial in one call: a method may answer them together.
        evidence = [trial_evidence(episode, tau, placement, method.reads, names, settings.rules) for tau in asked]
        shown_as = labels[shown_order(placement, n).index(0)]
        labeling = {"swap": placement} if n == 2 else {"culprit_as": shown_as}
        if combines:
            with method_code(method.name, f"query_probabilities_at on trial {episode.episode_id}"):
                found = _one_per_point(method.query_probabilities_at(evidence), asked, method, episode)
            q = {tau: check_query_probabilities(found[tau], n, method.name) for tau in asked}
            answers = [combined_answer(q[tau], settings.rules) if tau in q else (1.0 / n,) * n for tau in taus]
            labeling.update(
                {f"q_{label.lower()}": [q[t][k] if t in q else None for t in points] for k, label in enumerate(labels)}
            )
        else:
            with method_code(method.name, f"predict on trial {episode.episode_id}"):
                given = _one_per_point(method.predict_all(evidence), asked, method, episode)
            answers = [
                check(given[tau], n, f"{episode.episode_id}, tau {tau}") if tau in given else (1.0 / n,) * n
                for tau in taus
            ]
        labeling.update({f"p_{label.lower()}": [a[k] for a in answers] for k, label in enumerate(labels)})
        labelings.append(labeling)
    return TrialResult(
        episode.episode_id,
        scenario,
        horizon,
        taus,
        culprit_mean(labelings),
        labelings,
        n,
        points if combines else None,
    )


def score_suspect(
    method: QueryMethod,
    episode: WhodunitEpisode,
    settings: ProtocolSettings,
    role: str,
    identities: Identities | None = None,
) -> list[float | None]:
    """One suspect's P(query | agent) at the trial's query points (None where the cutoff spares them), asked of
    ``method`` for the agent of ``role`` alone.

    :func:`score_trial` stores the same numbers for that agent under whichever label it is shown, wherever a
    method's estimate for one agent does not depend on the others (simulation inference: its rollouts are seeded
    by what the agent was seen doing, never by its name or the other suspects). A run scored one suspect at a time
    (:func:`evaluate_suspect`) then assembles into the run scored at once, exactly.
    """
    identities = identities or Identities()
    labels = suspect_labels(episode.suspects)
    if role not in labels:
        raise ValueError(f"{episode.episode_id} has suspects {', '.join(labels)}; no suspect {role!r}")
    order = culprit_first(episode)
    names = tuple(identities(episode.scenario, labels[i]) for i in order)
    shown = order.index(labels.index(role))  # shown as they come: the culprit first
    placement: Placement = False if episode.suspects == 2 else tuple(range(episode.suspects))
    points = settings.query_points(episode.horizon)
    asked = [tau for tau in points if not settings.is_cut(episode.horizon, tau)]
    evidence = [trial_evidence(episode, tau, placement, method.reads, names, settings.rules) for tau in asked]
    with method_code(method.name, f"query_probabilities on trial {episode.episode_id}"):
        found = method.query_probabilities([trial.agents[shown] for trial in evidence], evidence)
    q = _one_per_point(found, asked, method, episode)
    checked = {tau: check_query_probabilities((p,), 1, method.name)[0] for tau, p in q.items()}
    return [checked.get(tau) for tau in points]


def _one_per_point(found: Any, asked: list[int], method: WhodunitMethod, episode: WhodunitEpisode) -> dict[int, Any]:
    """A method's answers keyed by the evidence points asked, refused unless there is one per point."""
    found = list(found)
    if len(found) != len(asked):
        raise InvalidAnswerError(
            f"method {method.name!r} answered {len(found)} evidence points of {len(asked)} on {episode.episode_id}"
        )
    return dict(zip(asked, found))


# ---- running a whole evaluation ------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelFile:
    """An agent model's file, handed to a method by content: its path names the agent's role."""

    content: bytes = field(repr=False)

    @functools.cached_property
    def digest(self) -> str:
        """SHA-256 of the content: one name for the same weights wherever they were read."""
        return hashlib.sha256(self.content).hexdigest()


def opaque(resource: Any) -> Any:
    """What a method receives for an agent: a file's content instead of its name, anything else as it is."""
    if isinstance(resource, (str, Path)) and Path(resource).is_file():
        return ModelFile(Path(resource).read_bytes())
    return resource


class _Scorer:
    """Holds one method and sets it up once per scenario (one per worker process); scores whole trials, or with
    ``suspect`` that suspect's query probabilities alone (its agent model the only one set up)."""

    def __init__(
        self,
        factory: MethodFactory,
        resources: Resources | None,
        identities: Identities,
        suspect: str | None = None,
    ) -> None:
        self.method = build(factory)
        self.check = AnswerCheck(self.method.name)
        self.resources = resources
        self.identities = identities
        self.suspect = suspect
        self.scenario: str | None = None

    def __call__(self, episode: WhodunitEpisode, settings: ProtocolSettings) -> Any:
        if episode.scenario != self.scenario and self.resources is not None:
            roles = [self.suspect] if self.suspect else suspect_labels(episode.suspects)
            agents = {self.identities(episode.scenario, r): opaque(self.resources(episode.scenario, r)) for r in roles}
            with method_code(self.method.name, f"setup for scenario {episode.scenario}"):
                self.method.setup(agents)
        self.scenario = episode.scenario
        if self.suspect is None:
            return score_trial(self.method, episode, settings, self.identities, self.check)
        return episode.episode_id, score_suspect(self.method, episode, settings, self.suspect, self.identities)


def build(factory: MethodFactory) -> WhodunitMethod:
    """``factory()``, what it raises named as the method's failure (``make_method`` names the method itself)."""
    built = getattr(factory, "func", factory)  # a functools.partial: the class or function it calls
    with method_code(getattr(built, "__name__", type(built).__name__), "building it"):
        return factory()


def _journal_header(method: str, built: Any, settings: dict[str, Any]) -> dict[str, Any]:
    """What a journal must match to be resumed: the method's name, its class by import path (two methods may share
    a name), and the settings."""
    kind = type(built)
    return {"type": "run", "method": method, "class": f"{kind.__module__}:{kind.__qualname__}", "settings": settings}


def _journal_mismatch(found: Any, header: dict[str, Any]) -> str:
    """How a journal left by another run differs from this one's header, in words."""
    found = found if isinstance(found, dict) else {}
    if found.get("class") != header["class"]:
        return f"method class {found.get('class') or 'unrecorded'}, not {header['class']}"
    if found.get("method") != header["method"]:
        return f"method {found.get('method')!r}, not {header['method']!r}"
    return differing_settings(found.get("settings"), header["settings"])


def _score_one(scorer: _Scorer, settings: ProtocolSettings, episode: WhodunitEpisode) -> Any:
    return scorer(episode, settings)


def _read_journal(journal: Journal) -> dict[str, TrialResult]:
    """Trials already finished by an interrupted run of the same method with the same settings (a
    :class:`ResultsError` names the journal and the line of one that is not a whole trial)."""
    error = message_error(ResultsError)
    done: dict[str, TrialResult] = {}
    for n, line in journal.entries():
        trial = read_trial(Fields(line, f"line {n}", error, str(journal.path)))
        done[trial.episode_id] = trial
    return done


def evaluate(
    factory: MethodFactory,
    episodes: Iterable[WhodunitEpisode],
    settings: ProtocolSettings | None = None,
    *,
    method: str | None = None,
    run_settings: dict[str, Any] | None = None,
    resources: Resources | None = None,
    workers: int = 1,
    out: str | Path | None = None,
    progress: bool = True,
    executor: str = "auto",
    pool: TrialWorkers | None = None,
) -> RunResults:
    """Score a method on whodunit episodes and return (and, with ``out``, save) the results.

    ``factory`` builds the method (once per worker process, so it must be
    picklable for ``workers > 1``: a top-level function or ``functools.partial``);
    ``settings`` default to the ``ours`` protocol.
    ``executor``: ``processes`` scores a trial per worker process; ``lockstep``
    scores ``workers`` trials at a time in threads of this process, the method's
    batched calls shared (recorded in the results, since on a GPU the batches'
    sizes may change the last bits of an answer); ``auto`` is lockstep for a method
    on a CUDA device, processes otherwise. ``pool``: worker processes kept across runs
    (:class:`~marple_eval.workers.TrialWorkers`) that score this run's trials
    instead of ``workers`` processes started for it.
    """
    settings = settings or ProtocolSettings()
    probe = build(factory)
    method = method or probe.name
    executor = _executor(executor, probe)
    with method_code(probe.name, "settings()"):
        model_settings = probe.settings()
    in_flight = workers if executor == "lockstep" else None
    recorded = run_record(model_settings, run_settings or {}, settings, probe.combines_query_probabilities, in_flight)
    header = _journal_header(method, probe, recorded)
    episodes = list(episodes)
    journal = Journal(journal_path(out), header, _journal_mismatch) if out else None
    done = _read_journal(journal) if journal else {}
    todo = [e for e in episodes if e.episode_id not in done]
    results = dict(done)
    bar = tqdm(total=len(episodes), initial=len(done), unit="trial", desc=f"evaluating {method}", disable=not progress)
    try:
        for trial in _run(factory, todo, settings, resources, workers, probe, executor, pool=pool):
            results[trial.episode_id] = trial
            if journal is not None:
                journal.append(asdict(trial))
            bar.update(1)
    except BaseException:
        if journal is not None and journal.path.is_file():
            log.warning("%s keeps %d scored trials; run the same command again to resume", journal.path, len(results))
        raise
    finally:
        bar.close()
    run = RunResults(method, recorded, [results[e.episode_id] for e in episodes], role=probe.role)
    if out is not None:
        run.save(out)
        journal.remove()
    return run


def run_record(
    model_settings: dict[str, Any],
    run_settings: dict[str, Any],
    settings: ProtocolSettings,
    combines: bool,
    trials_in_flight: int | None = None,
) -> dict[str, Any]:
    """The ``settings`` a results file records: the method's own, the run's (dataset, split, ...), the protocol,
    whether the answers combine query probabilities, and, for trials scored in lockstep, how many at a time."""
    recorded = {
        **model_settings,
        **run_settings,
        "protocol": settings.record(),
        "combines_query_probabilities": combines,
    }
    if trials_in_flight is not None:
        recorded["trials_in_flight"] = trials_in_flight
    return recorded


def _executor(executor: str, probe: WhodunitMethod) -> str:
    """``executor`` as given, ``auto`` resolved: lockstep for a method on a CUDA device, processes otherwise."""
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if executor == "auto":
        return "lockstep" if str(probe.device or "cpu").startswith("cuda") else "processes"
    return executor


@dataclass
class SuspectAnswers:
    """One suspect's query probabilities on every trial of a run (:func:`evaluate_suspect`), with what a results
    file of the whole run would record about the method."""

    method: str
    model_settings: dict[str, Any]
    trials_in_flight: int | None  # trials scored at a time in lockstep (None: one per worker process)
    answers: dict[str, list[float | None]]  # episode id -> P(query | agent) at its query points (None: cut)


def evaluate_suspect(
    factory: MethodFactory,
    episodes: Iterable[WhodunitEpisode],
    settings: ProtocolSettings,
    suspect: str,
    *,
    resources: Resources | None = None,
    workers: int = 1,
    progress: bool = True,
    executor: str = "auto",
) -> SuspectAnswers:
    """The query probabilities of the agent of role ``suspect`` on every trial (:func:`score_suspect`), its agent
    method the only one set up (``resources`` is asked for that role alone); trials run as :func:`evaluate` runs
    them (worker processes, or lockstep for a method on a CUDA device)."""
    from tqdm import tqdm

    probe = build(factory)
    if not probe.combines_query_probabilities:
        raise ValueError(f"{probe.name} does not estimate query probabilities; only whole trials can score it")
    executor = _executor(executor, probe)
    with method_code(probe.name, "settings()"):
        model_settings = probe.settings()
    episodes = list(episodes)
    answers: dict[str, list[float | None]] = {}
    bar = tqdm(total=len(episodes), unit="trial", desc=f"evaluating {probe.name}, {suspect}", disable=not progress)
    with bar:
        for episode_id, found in _run(factory, episodes, settings, resources, workers, probe, executor, suspect):
            answers[episode_id] = found
            bar.update(1)
    in_flight = workers if executor == "lockstep" else None
    return SuspectAnswers(
        probe.name, model_settings, in_flight, {e.episode_id: answers[e.episode_id] for e in episodes}
    )


def _run(factory, todo, settings, resources, workers, probe, executor, suspect=None, pool=None):
    identities = Identities()  # one salt for the run, shared by its worker processes
    scorer = functools.partial(_Scorer, factory, resources, identities, suspect)
    if executor == "lockstep":  # a method per thread; the policies they load are shared (one copy per device)
        yield from run_in_lockstep(lambda: functools.partial(_score_one, scorer(), settings), todo, workers)
        return
    if pool is None and (workers <= 1 or len(todo) <= 1):
        scorer = _Scorer(lambda: probe, resources, identities, suspect)  # the probe: one method, one answer check
        for episode in todo:
            yield scorer(episode, settings)
        return
    trials = [(episode, settings) for episode in todo]  # in the order given: scenario by scenario, set up rarely
    costs = [episode.horizon for episode in todo]
    if pool is not None:
        yield from pool.score(scorer, trials, costs)
        return
    with TrialWorkers(workers) as own:
        yield from own.score(scorer, trials, costs)


def dataset_episodes(data: MarpleDataset, scenarios: Iterable[str], limit: int | None = None) -> list[WhodunitEpisode]:
    """The test pairs of each scenario; with ``limit``, that many per scenario spread evenly over the test houses.

    The same rule as the human study (:func:`marple_gym.datasets.selection.select_trials`), so people and
    methods are scored on the same trials. The paper evaluates 50 trials in all, 10 per scenario
    (supplement D.2): ``limit=10``.
    """
    return select_trials(data, list(scenarios), limit)


@dataclass(frozen=True)
class AgentResources:
    """Per-agent resources from templates, e.g. ``{"A": "runs/{scenario}/in/A-vision/policy.pt"}``.

    The value ``"planner"`` stands for the agent's true planner with the
    scenario's mission preferences for that role (a perfect agent model).
    """

    templates: dict[str, str]

    def __call__(self, scenario: str, role: str) -> Any:
        if role not in self.templates:
            raise ValueError(f"no agent model given for role {role!r} (use --agent {role}=...)")
        template = self.templates[role]
        if template == "planner":
            return {"planner": get_scenario(scenario).roles[role]}
        try:
            return template.format(scenario=scenario, role=role)
        except (KeyError, IndexError, ValueError) as exc:  # {scenaro}, {0}, a lone brace
            reason = {KeyError: f"no field {{{exc.args[0]}}}", IndexError: "a numbered field"}.get(type(exc), exc)
            raise ValueError(
                f"--agent {role}: {template!r} is not a template of {{scenario}} and {{role}} ({reason}; "
                "write a literal brace as {{ or }})"
            ) from None


def method_factory(name: str, **kwargs: Any) -> MethodFactory:
    """A picklable factory of the registered whodunit method ``name`` built with ``kwargs``."""
    return functools.partial(make_method, "whodunit", name, **kwargs)
