"""Results files: one JSON document per run, with every per-trial, per-tau probability.

::

    {"format": "marple-results", "version": 1, "method": "distance", "settings": {...},
     "created": "2026-11-22T16:00:00+00:00", "generator": "marple-gym 0.1.0",
     "trials": [{"episode_id": "laundry/h00/003", "scenario": "laundry", "horizon": 51,
                 "taus": [0, 5, ...], "p_culprit": [0.5, ...],
                 "labelings": [{"swap": false, "p_a": [...], "p_b": [...]}]}, ...],
     "summary": {"fractions": [0.0, 0.1, ...], "train_split": "in", "band": "...",
                 "bootstrap": {"level": 0.95, "resamples": 2000, "seed": 0},
                 "overall": {"n": 250, "mean": [...], "sem": [...], "bootstrap_low": [...],
                             "bootstrap_high": [...], "evidence_for_0.8": 0.58, "auc": 0.71},
                 "scenarios": {"laundry": {...}, ...}}}

``p_culprit`` is the probability given to the true culprit at each evidence
point, averaged over the labelings scored. ``suspects`` is N (2 in the
paper's scenarios; chance is 1/N); a labeling of N > 2 suspects holds
``p_a``, ``p_b``, ``p_c``, ... and ``culprit_as``, the label the culprit was
shown under. ``summary`` is derived from the
trials (:meth:`RunResults.summary`) for readers of the file; loading ignores it
and recomputes, so files written before it existed load the same.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from marple_eval.metrics import (
    BOOTSTRAP_LEVEL,
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    THRESHOLDS,
    Bootstrap,
    few_trials_warning,
    fractions_for,
    mean_evidence_interval,
    summarise,
    threshold_key,
)
from marple_gym import __version__
from marple_gym.datasets.selection import trial_set_id
from marple_gym.errors import MarpleError
from marple_gym.files import write_json_atomic
from marple_gym.missions.suspects import suspect_labels
from marple_gym.missions.tables import check_tables, table_fingerprints
from marple_gym.validation import Fields, message_error, read_json_file

RESULTS_FORMAT = "marple-results"
RESULTS_VERSION = 1


class ResultsError(MarpleError, ValueError):
    """A results file that cannot be read."""


@dataclass
class TrialResult:
    episode_id: str
    scenario: str
    horizon: int
    taus: list[int]
    p_culprit: list[float]
    labelings: list[dict[str, Any]] = field(default_factory=list)
    suspects: int = 2
    """N: how many agents the trial suspects (chance is 1/N)."""


@dataclass
class RunResults:
    """All trials of one method under one setting."""

    method: str
    settings: dict[str, Any]
    trials: list[TrialResult]
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    generator: str = f"marple-gym {__version__}"

    @property
    def name(self) -> str:
        """The run's name in tables: its own label if it has one (human responses: their files and participants,
        so a pilot and a real study do not both read "human"), else the method."""
        return self.settings.get("label") or self.method

    @property
    def label(self) -> str:
        """How tables and plots name this run: its name, and the training split if any."""
        split = self.settings.get("train_split")
        return f"{self.name} ({split})" if split else self.name

    @property
    def scenarios(self) -> list[str]:
        return list(dict.fromkeys(t.scenario for t in self.trials))

    def matrix(self, scenario: str | None = None) -> np.ndarray:
        """(n_trials, n_points) probabilities given to the culprit."""
        rows = [t.p_culprit for t in self.trials if scenario is None or t.scenario == scenario]
        return np.array(rows, dtype=float).reshape(len(rows), -1) if rows else np.empty((0, 0))

    @property
    def trial_set(self) -> str:
        """The id of the set of trials scored (:func:`~marple_gym.datasets.selection.trial_set_id`): runs
        with the same id were scored on the same whodunit pairs."""
        return trial_set_id(t.episode_id for t in self.trials)

    @property
    def protocol(self) -> dict[str, Any]:
        """The protocol settings the run was scored under (empty for files that predate them)."""
        return dict(self.settings.get("protocol") or {})

    def summary(self, seed: int = BOOTSTRAP_SEED, thresholds: tuple[float, ...] = THRESHOLDS) -> dict[str, Any]:
        """See :meth:`_summarise`; computed once per run, seed and thresholds (the bootstrap is the costly part,
        and tables, plots and the benchmark's summary each ask for it). The trials must not change afterwards."""
        cache = self.__dict__.setdefault("_summaries", {})
        key = (seed, tuple(thresholds), len(self.trials))
        if key not in cache:
            cache[key] = self._summarise(seed, tuple(thresholds))
        return copy.deepcopy(cache[key])

    def _summarise(self, seed: int, thresholds: tuple[float, ...]) -> dict[str, Any]:
        """Per evidence point, pooled over all trials and per scenario: mean accuracy, both intervals, n,
        evidence needed per threshold with its bootstrap interval, and AUC (see
        :func:`~marple_eval.metrics.summarise`); the mean of the per-scenario evidence figures
        (``mean_over_scenarios``, which weighs short and long scenarios alike, unlike the pooled curve);
        and warnings for groups with too few trials."""
        p = self.matrix()
        fractions = fractions_for(p.shape[1]) if len(p) else np.array([])
        scenarios = {s: summarise(self.matrix(s), fractions, seed, thresholds) for s in self.scenarios}
        groups = [self.matrix(s) for s in self.scenarios]
        warnings = [f"{name}: {g['warning']}" for name, g in scenarios.items() if g["warning"]]
        if len(p) and few_trials_warning(len(p)):
            warnings.insert(0, f"all scenarios: {few_trials_warning(len(p))}")
        return {
            "fractions": fractions.tolist(),
            "train_split": self.settings.get("train_split"),
            "protocol": self.protocol,
            "band": "paper: mean +/- sem, sem = sigma / sqrt(n) with the sample sigma",
            "bootstrap": {"level": BOOTSTRAP_LEVEL, "resamples": BOOTSTRAP_RESAMPLES, "seed": seed},
            "overall": summarise(p, fractions, seed, thresholds) if len(p) else None,
            "mean_over_scenarios": {
                threshold_key(t): mean_evidence_interval(groups, fractions, t, Bootstrap(seed=seed)) for t in thresholds
            }
            if groups
            else {},
            "scenarios": scenarios,
            "warnings": warnings,
        }

    def chance(self, scenario: str | None = None) -> float:
        """The accuracy of answering 1/N for every suspect: 0.5 for two suspects, 1/3 for three."""
        trials = [t for t in self.trials if scenario is None or t.scenario == scenario]
        return float(np.mean([1.0 / t.suspects for t in trials])) if trials else 0.5

    def with_cutoff(self, cutoff: int | None) -> RunResults:
        """This run seen under another cutoff: 1/N at every point where T + margin - tau > ``cutoff``.

        Exact for any method, because the protocol answers 0.5 at cut points
        without asking the model; so a run scored without a cutoff shows every
        cutoff, while a run scored with one cannot show a looser one.
        """
        protocol = self.protocol
        made_with = protocol.get("cutoff")
        if made_with is not None and (cutoff is None or cutoff > made_with):
            raise ResultsError(
                f"{self.label}: scored with cutoff {made_with}; a looser cutoff ({cutoff}) needs the run scored "
                "again with --cutoff none"
            )
        margin = int(protocol.get("margin", 10))
        trials = []
        for t in self.trials:
            cut = [cutoff is not None and t.horizon + margin - tau > cutoff for tau in t.taus]
            share = 1.0 / t.suspects
            p = [share if c else x for c, x in zip(cut, t.p_culprit)]
            labelings = [
                {**lab, **{k: [share if c else x for c, x in zip(cut, lab[k])] for k in lab if _is_answer_key(k)}}
                for lab in t.labelings
            ]
            trials.append(TrialResult(t.episode_id, t.scenario, t.horizon, t.taus, p, labelings, t.suspects))
        settings = {**self.settings, "protocol": {**protocol, "cutoff": cutoff}}
        return RunResults(self.method, settings, trials, self.created, self.generator)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": RESULTS_FORMAT,
            "version": RESULTS_VERSION,
            "method": self.method,
            "settings": self.settings,
            "created": self.created,
            "generator": self.generator,
            "trial_set": {"id": self.trial_set, "trials": len({t.episode_id for t in self.trials})},
            "tables": table_fingerprints(),
            "trials": [asdict(t) for t in self.trials],
            "summary": self.summary(),
        }

    def save(self, path: str | Path) -> Path:
        """Write atomically (a temporary file, then a rename)."""
        return write_json_atomic(path, self.to_json())

    @classmethod
    def load(cls, path: str | Path) -> RunResults:
        """Read a results file strictly; any problem raises :class:`ResultsError` naming the file and field."""
        path = Path(path)
        # NaN is allowed in the file only for the summary, which is recomputed: the trials are checked finite.
        data = read_json_file(path, message_error(ResultsError), "results file", allow_nan=True)
        top = Fields(data, "", message_error(ResultsError), str(path))
        if top.get("format") != RESULTS_FORMAT:
            raise top.fail("format", f"not a MARPLE results file (expected {RESULTS_FORMAT!r})")
        if top.get("version") != RESULTS_VERSION:
            raise top.fail("version", f"results version {top.get('version')!r} is not supported")
        top.allow(("format", "version", "summary", "trial_set", "tables", *(f.name for f in fields(cls))))
        check_tables(top.get("tables"), str(path))
        top.require("method", "settings", "trials")
        trials = [read_trial(t) for t in top.entries("trials")]
        return cls(top.str("method"), top.mapping("settings"), trials, top.str("created", ""), top.str("generator", ""))


def _is_answer_key(key: str) -> bool:
    """``p_a``, ``p_b``, ...: a labeling's answers under one label."""
    return len(key) == 3 and key.startswith("p_") and key[2].isalpha() and key[2].islower()


def read_trial(t: Fields) -> TrialResult:
    """One trial entry (of a results file or a run's journal): every field typed, probabilities finite and in [0, 1], one per evidence point."""
    t.allow(f.name for f in fields(TrialResult)).require("episode_id", "scenario", "horizon", "taus", "p_culprit")
    taus = t.list("taus")
    for i, tau in enumerate(taus):
        t.check_int(f"taus[{i}]", tau, low=0)
    p_culprit = _probabilities(t, "p_culprit", len(taus))
    suspects = t.int("suspects", 2, low=2, high=26)
    answer_keys = {f"p_{label.lower()}" for label in suspect_labels(suspects)}
    labelings = []
    for lab in t.entries("labelings"):  # a model's placements, or a human answer's participant
        lab.allow(("swap", "culprit_as", "participant", *sorted(answer_keys)))
        lab.bool("swap", None)
        lab.str("culprit_as", None, choices=suspect_labels(suspects))
        lab.str("participant", None)
        for key in sorted(answer_keys):
            if lab.has(key):
                _probabilities(lab, key, len(taus))
        labelings.append(dict(lab.raw))
    return TrialResult(
        t.str("episode_id"), t.str("scenario"), t.int("horizon", low=0), taus, p_culprit, labelings, suspects
    )


def _probabilities(f: Fields, key: str, n: int) -> list[float]:
    values = f.list(key)
    if len(values) != n:
        raise f.fail(key, f"expected {n} values (one per evidence point), got {len(values)}")
    for i, p in enumerate(values):
        f.check_number(f"{key}[{i}]", p, low=0.0, high=1.0)
    return [float(p) for p in values]
