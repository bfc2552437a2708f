"""Slices into the benchmark's results files: each scenario's agents, scored one slice each, assembled exactly.

A results file stores, for every trial and placement of the suspects, each shown agent's P(query | agent) and the
answers that follow from them under the protocol (:mod:`marple_eval.results`). A slice file
(:mod:`marple.benchmark.slices`) holds one agent's probabilities on every trial of its scenario. :func:`assemble`
puts the agents of each trial under the labels the run's seed shows them under (:func:`~marple_eval.protocol.placements`),
and the answers follow from the probabilities exactly as a stored run is rescored
(:meth:`~marple_eval.results.RunResults.rescored`): the file is the one ``marple benchmark`` writes when it scores the
run at once, byte for byte on the CPU (tested), with its ``created`` time the last half's. Written into a benchmark
folder (:func:`merge_slices`), ``marple benchmark`` with the same preset and seed reuses it instead of scoring it.

A run holds the scenarios whose every agent has a slice; the others are left out and reported missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from marple.benchmark.config import BenchmarkConfig
from marple.benchmark.pipeline import run_settings
from marple.benchmark.slices import SliceError, SliceFile, SliceKey, variant_run
from marple_agents.simulation.inference import POLICY_OF_VARIANT, VARIANTS
from marple_eval.evidence import culprit_first, shown_order
from marple_eval.protocol import placements, run_record
from marple_eval.results import RunResults, TrialResult
from marple_eval.settings import ProtocolSettings
from marple_gym.missions.scenarios import SCENARIOS, get_scenario
from marple_gym.missions.suspects import suspect_labels

AGREE = ("method", "model_settings", "protocol", "trials_in_flight")
"""What every half of one run must have been scored with."""


class TrialMeta(NamedTuple):
    """What assembling a trial needs to know of it (the slices carry it; the data stays where they ran)."""

    episode_id: str
    scenario: str
    horizon: int
    suspects: int
    culprit: int


@dataclass
class Assembled:
    """One variant's run assembled from slices: the run, and what is missing from it."""

    variant: str
    run: RunResults | None  # None: no scenario complete
    scenarios: list[str]
    missing: dict[str, list[SliceKey]] = field(default_factory=dict)  # scenario -> its slices not there


def assemble(slices: list[SliceFile], variant: str, out: str | Path) -> Assembled:
    """The results of ``variant``'s in-distribution run from the slices that serve it, as ``marple benchmark --out
    OUT`` with their preset and seed would write them (see module docs); scenarios without every agent's slice are
    left out. Raises :class:`SliceError` when slices disagree (other presets, seeds, protocols or trials)."""
    kind = POLICY_OF_VARIANT[variant]
    serving = [s for s in slices if s.key.kind == kind]
    if not serving:
        return Assembled(variant, None, [], {s: _keys(s, kind) for s in SCENARIOS})
    _check_one_series(serving)
    by_scenario: dict[str, dict[str, SliceFile]] = {}
    for s in serving:
        roles = by_scenario.setdefault(s.key.scenario, {})
        if s.key.role in roles:
            raise SliceError(f"{s.path} and {roles[s.key.role].path}: two slices of {s.key.name}")
        roles[s.key.role] = s
    complete, missing = [], {}
    for scenario in SCENARIOS:
        have = by_scenario.get(scenario, {})
        lacking = [k for k in _keys(scenario, kind) if k.role not in have]
        if lacking:
            missing[scenario] = lacking
        else:
            complete.append(scenario)
    if not complete:
        return Assembled(variant, None, [], missing)
    first = serving[0]
    cfg = BenchmarkConfig(
        first.benchmark_preset, Path(out), scenarios=tuple(complete), variants=(variant,), seed=first.seed
    )
    half = first.runs[variant]
    settings = ProtocolSettings.from_record(half["protocol"])
    recorded = run_record(
        half["model_settings"],
        run_settings(cfg, variant_run(cfg, variant)),
        settings,
        True,
        half["trials_in_flight"],
    )
    trials = [trial for scenario in complete for trial in _scenario_trials(by_scenario[scenario], variant, settings)]
    created = max(s.runs[variant]["created"] for scenario in complete for s in by_scenario[scenario].values())
    # The answers follow from the stored query probabilities as they do when a stored run is shown again.
    run = RunResults(half["method"], recorded, trials, created).rescored()
    return Assembled(variant, run, complete, missing)


def merge_slices(slices: list[SliceFile], out: str | Path) -> list[Assembled]:
    """Assemble every variant's run the slices cover and write each complete one's results file into benchmark
    folder ``out`` (``results/simulation-<variant>-in-seed<seed>.json``); returns them all, written or not."""
    done = []
    for variant in VARIANTS:
        assembled = assemble(slices, variant, out)
        if assembled.run is not None:
            cfg = BenchmarkConfig(slices[0].benchmark_preset, Path(out), seed=slices[0].seed, variants=(variant,))
            assembled.run.save(cfg.results(variant_run(cfg, variant).name))
        done.append(assembled)
    return done


def _keys(scenario: str, kind: str) -> list[SliceKey]:
    return [SliceKey(scenario, role, kind) for role in get_scenario(scenario).roles]


def _check_one_series(slices: list[SliceFile]) -> None:
    """Every slice of one benchmark: the same preset, seed and data manifest."""
    first = slices[0]
    for s in slices[1:]:
        for what in ("preset", "seed"):
            if getattr(s, what) != getattr(first, what):
                raise SliceError(f"{s.path} and {first.path} were run with other {what}s: they join no one run")
        if s.data.get("manifest_sha256") != first.data.get("manifest_sha256"):
            raise SliceError(f"{s.path} and {first.path} checked their data against other manifests")


def _scenario_trials(halves: dict[str, SliceFile], variant: str, settings: ProtocolSettings) -> list[TrialResult]:
    """One scenario's trials with every agent's query probabilities placed under its label."""
    runs = {role: s.runs[variant] for role, s in halves.items()}
    (role, first), *others = runs.items()
    for other_role, run in others:
        for key in AGREE:
            if run.get(key) != first.get(key):
                raise SliceError(
                    f"{halves[other_role].path} and {halves[role].path}: their {variant} runs differ in {key}"
                )
        if [_meta(t) for t in run["trials"]] != [_meta(t) for t in first["trials"]]:
            raise SliceError(f"{halves[other_role].path} and {halves[role].path}: scored on other trials")
    q = {role: {t["episode_id"]: t["q"] for t in run["trials"]} for role, run in runs.items()}
    return [_trial(_meta(t), {role: q[role][t["episode_id"]] for role in runs}, settings) for t in first["trials"]]


def _meta(trial: dict[str, Any]) -> TrialMeta:
    return TrialMeta(*(trial[f] for f in TrialMeta._fields))


def _trial(meta: TrialMeta, q_by_role: dict[str, list[float | None]], settings: ProtocolSettings) -> TrialResult:
    """A trial as :func:`~marple_eval.protocol.score_trial` records it, its answers still to follow: each placement
    with the query probabilities of the agent shown under each label."""
    labels = suspect_labels(meta.suspects)
    order = culprit_first(meta)  # the trajectories (by role), the culprit first
    labelings = []
    for placement in placements(settings, meta.episode_id, meta.suspects):
        shown = shown_order(placement, meta.suspects)
        labeling: dict[str, Any] = {"swap": placement} if meta.suspects == 2 else {"culprit_as": labels[shown.index(0)]}
        for k, label in enumerate(labels):
            labeling[f"q_{label.lower()}"] = q_by_role[labels[order[shown[k]]]]
        labelings.append(labeling)
    taus, points = settings.taus(meta.horizon), settings.query_points(meta.horizon)
    if any(len(q) != len(points) for q in q_by_role.values()):
        raise SliceError(f"{meta.episode_id}: query probabilities at other points than the protocol's {points}")
    return TrialResult(meta.episode_id, meta.scenario, meta.horizon, taus, [], labelings, meta.suspects, points)
