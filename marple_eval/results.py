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
point, averaged over the labelings scored. ``summary`` is derived from the
trials (:meth:`RunResults.summary`) for readers of the file; loading ignores it
and recomputes, so files written before it existed load the same.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
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
from marple_gym.errors import MarpleError

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


@dataclass
class RunResults:
    """All trials of one method under one setting."""

    method: str
    settings: dict[str, Any]
    trials: list[TrialResult]
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    generator: str = f"marple-gym {__version__}"

    @property
    def label(self) -> str:
        """How tables and plots name this run: the method, and the training split if any."""
        split = self.settings.get("train_split")
        return f"{self.method} ({split})" if split else self.method

    @property
    def scenarios(self) -> list[str]:
        return list(dict.fromkeys(t.scenario for t in self.trials))

    def matrix(self, scenario: str | None = None) -> np.ndarray:
        """(n_trials, n_points) probabilities given to the culprit."""
        rows = [t.p_culprit for t in self.trials if scenario is None or t.scenario == scenario]
        return np.array(rows, dtype=float).reshape(len(rows), -1) if rows else np.empty((0, 0))

    @property
    def protocol(self) -> dict[str, Any]:
        """The protocol settings the run was scored under (empty for files that predate them)."""
        return dict(self.settings.get("protocol") or {})

    def summary(self, seed: int = BOOTSTRAP_SEED, thresholds: tuple[float, ...] = THRESHOLDS) -> dict[str, Any]:
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

    def with_cutoff(self, cutoff: int | None) -> RunResults:
        """This run seen under another cutoff: 0.5 at every point where T + margin - tau > ``cutoff``.

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
            p = [0.5 if c else x for c, x in zip(cut, t.p_culprit)]
            labelings = [
                {**lab, **{k: [0.5 if c else x for c, x in zip(cut, lab[k])] for k in ("p_a", "p_b") if k in lab}}
                for lab in t.labelings
            ]
            trials.append(TrialResult(t.episode_id, t.scenario, t.horizon, t.taus, p, labelings))
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
            "trials": [asdict(t) for t in self.trials],
            "summary": self.summary(),
        }

    def save(self, path: str | Path) -> Path:
        """Write atomically (a temporary file, then a rename)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
        tmp.write_text(json.dumps(self.to_json(), indent=1))
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: str | Path) -> RunResults:
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise ResultsError(f"{path}: no such results file") from None
        except json.JSONDecodeError as exc:
            raise ResultsError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
        if not isinstance(data, dict) or data.get("format") != RESULTS_FORMAT:
            raise ResultsError(f"{path}: not a MARPLE results file")
        if data.get("version") != RESULTS_VERSION:
            raise ResultsError(f"{path}: results version {data.get('version')} is not supported")
        try:
            trials = [TrialResult(**t) for t in data["trials"]]
        except (KeyError, TypeError) as exc:
            raise ResultsError(f"{path}: malformed trial entry ({exc})") from None
        return cls(data["method"], data["settings"], trials, data.get("created", ""), data.get("generator", ""))
