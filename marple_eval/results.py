"""Results files: one versioned envelope for every family's results, and the whodunit family's records.

**The envelope** (:class:`Results`): every results file, whatever its family, is one JSON document that starts
with the same fields, then holds its family's records::

    {"format": "marple-results", "version": 3, "family": "beliefs", "method": "observer", "role": "answer_key",
     "created": "2026-11-22T16:00:00+00:00", "generator": "marple-gym 0.1.0", "settings": {...},
     ...the family's records...}

Each family's results are a subclass of :class:`Results` that writes and reads its own records
(:class:`RunResults` here for whodunits, :class:`~marple_eval.beliefs.results.BeliefResults`,
:class:`~marple_eval.expectations.results.RatingResults`, :class:`~marple_eval.items.ItemResults` for a family of
plain items); all save atomically and load strictly, an error naming the file and the field. ``role`` is the
method's (:data:`~marple_eval.methods.base.ROLES`), which tables group rows by. Files written before the envelope
still load: whodunit results of versions 1 and 2 (format ``marple-results``, no family), belief and expectation
results of their own formats (``marple-belief-results``, ``marple-expectation-results``, version 1).

**The whodunit family's records**, with every per-trial, per-tau probability::

    {...the envelope, "family": "whodunit", "method": "distance", ...,
     "trial_set": {...}, "tables": {...},
     "trials": [{"episode_id": "laundry/h00/003", "scenario": "laundry", "horizon": 51,
                 "taus": [0, 5, ...], "p_culprit": [0.5, ...],
                 "labelings": [{"swap": false, "p_a": [...], "p_b": [...]}]}, ...],
     "summary": {"fractions": [0.0, 0.1, ...], "train_split": "in", "band": "...",
                 "bootstrap": {"level": 0.95, "resamples": 2000, "seed": 0},
                 "overall": {"n": 250, "mean": [...], "sem": [...], "bootstrap_low": [...],
                             "bootstrap_high": [...], "evidence_for_0.8": 0.58, "auc": 0.71},
                 "scenarios": {"laundry": {...}, ...}}}

``p_culprit`` is the probability given to the true culprit at each evidence
point, averaged over the labelings scored. A method that combines each
agent's P(query | agent) (simulation inference, inverse planning) also stores
those: ``query_taus`` are the points they were estimated at (those of both
last-point rules) and each labeling's ``q_a``, ``q_b``, ... the probabilities
(null where the cutoff spared the rollouts), so :meth:`RunResults.rescored`
shows the run under any combination rule, cutoff and last point (version 2 on;
version-1 files, which predate them, still load). ``suspects`` is N (2 in the
paper's scenarios; chance is 1/N); a labeling of N > 2 suspects holds
``p_a``, ``p_b``, ``p_c``, ... and ``culprit_as``, the label the culprit was
shown under. ``summary`` is derived from the
trials (:meth:`RunResults.summary`) for readers of the file; loading ignores it
and recomputes, so files written before it existed load the same.
"""

from __future__ import annotations

import copy
import os
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np

from marple_eval.evidence import QueryRules
from marple_eval.methods.base import ROLES
from marple_eval.methods.whodunit import combined_answer
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
from marple_eval.settings import RESCORED_ONLY_BY_A_NEW_RUN, ProtocolSettings
from marple_gym import __version__
from marple_gym.datasets.selection import trial_set_id
from marple_gym.errors import MarpleError
from marple_gym.files import write_json_atomic
from marple_gym.missions.suspects import suspect_labels
from marple_gym.missions.tables import check_tables, table_fingerprints
from marple_gym.validation import Fields, message_error, read_json_file

RESULTS_FORMAT = "marple-results"
RESULTS_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
"""Version 3 is the envelope of every family; versions 1 and 2 were whodunit results only (version 1 predates the
stored query probabilities, ``query_taus``, ``q_a``, ...)."""
ENVELOPE = ("format", "version", "family", "method", "role", "created", "generator", "settings")
"""The fields every results file starts with."""
FORMER_FORMATS = {"marple-belief-results": "beliefs", "marple-expectation-results": "expectations"}
"""The formats the belief and expectation families' results had before the envelope (version 1), by family."""


PRIVILEGED_MARK = "[privileged: label prior]"
"""How tables mark a run whose method started from the training split's mission labels."""


class ResultsError(MarpleError, ValueError):
    """A results file that cannot be read."""


R = TypeVar("R", bound="Results")


class Results:
    """The one results envelope (see the module docs): a family's results subclass it, as dataclasses with at least
    the fields ``method``, ``settings``, ``created``, ``generator`` and ``role``, and write and read their records
    with :meth:`records` and :meth:`from_records`."""

    family: ClassVar[str] = ""
    record_keys: ClassVar[tuple[str, ...]] = ()
    """The top-level keys of the family's records (besides the envelope's)."""
    allow_nan: ClassVar[bool] = False
    """Whether the file may hold NaN (a derived summary the reader recomputes)."""

    method: str
    settings: dict[str, Any]
    created: str
    generator: str
    role: str

    def envelope(self) -> dict[str, Any]:
        """The fields every results file starts with (:data:`ENVELOPE`)."""
        return {"format": RESULTS_FORMAT, "version": RESULTS_VERSION, "family": self.family, "method": self.method,
                "role": self.role, "created": self.created, "generator": self.generator, "settings": self.settings}  # fmt: skip

    def records(self) -> dict[str, Any]:
        """The family's records, as the file holds them after the envelope."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        return {**self.envelope(), **self.records()}

    def save(self, path: str | os.PathLike) -> Path:
        """Write atomically (a temporary file, then a rename)."""
        return write_json_atomic(path, self.to_json())

    @classmethod
    def from_records(cls: type[R], top: Fields, envelope: dict[str, Any]) -> R:
        """The results of a file's records (``top``, every key already allowed) and its envelope (``method``,
        ``settings``, ``created``, ``generator``, ``role``)."""
        raise NotImplementedError

    @classmethod
    def load(cls: type[R], path: str | os.PathLike) -> R:
        """Read a results file of this family strictly (:class:`ResultsError` naming the file and the field)."""
        top, envelope = read_envelope(path, cls.allow_nan)
        family = envelope.pop("family")
        if family != cls.family:
            raise top.fail("family", f"results of {family}, not of {cls.family}")
        top.allow((*ENVELOPE, *cls.record_keys))
        return cls.from_records(top, envelope)


def read_envelope(path: str | os.PathLike, allow_nan: bool = False) -> tuple[Fields, dict[str, Any]]:
    """A results file's top level and its envelope, read strictly: the format and version known, the family (a
    file of a family's former format: that family; a whodunit file before version 3: ``whodunit``), the method,
    its role and settings (:class:`ResultsError` naming the file and the field)."""
    error = message_error(ResultsError)
    top = Fields(read_json_file(path, error, "results file", allow_nan=allow_nan), "", error, str(path))
    fmt = top.get("format")
    if fmt == RESULTS_FORMAT:
        if top.get("version") not in READABLE_VERSIONS:
            raise top.fail(
                "version",
                f"results version {top.get('version')!r} is not supported (this reader knows {READABLE_VERSIONS})",
            )
        family = top.str("family") if top.get("version") >= 3 else top.str("family", "whodunit")
    elif fmt in FORMER_FORMATS:
        if top.get("version") != 1:
            raise top.fail("version", f"version {top.get('version')!r} is not supported (expected 1)")
        family = FORMER_FORMATS[fmt]
    else:
        raise top.fail("format", f"not a MARPLE results file (expected {RESULTS_FORMAT!r})")
    top.require("method", "settings")
    envelope = {
        "family": family,
        "method": top.str("method"),
        "settings": top.mapping("settings"),
        "created": top.str("created", ""),
        "generator": top.str("generator", ""),
        "role": top.str("role", "method", choices=ROLES),
    }
    return top, envelope


def results_family(path: str | os.PathLike) -> str | None:
    """The family of the results file at ``path`` (None when it is no readable results file: its reader then says
    what is wrong)."""
    try:
        return read_envelope(path, allow_nan=True)[1]["family"]
    except ResultsError:
        return None


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
    query_taus: list[int] | None = None
    """Where each labeling's P(query | agent) (``q_a``, ``q_b``, ...) were estimated; None for methods that do
    not combine them."""


def creation_time() -> str:
    """Now, as a results file records when it was made: UTC, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def culprit_label(labeling: dict[str, Any]) -> str:
    """The label under which a scored labeling showed the culprit."""
    if "culprit_as" in labeling:
        return labeling["culprit_as"]
    return "B" if labeling["swap"] else "A"


def culprit_mean(labelings: list[dict[str, Any]]) -> list[float]:
    """The probability given to the culprit at each point, averaged over the labelings scored."""
    return np.mean([lab[f"p_{culprit_label(lab).lower()}"] for lab in labelings], axis=0).tolist()


@dataclass
class RunResults(Results):
    """All trials of one whodunit method under one setting: the whodunit family's results."""

    family: ClassVar[str] = "whodunit"
    record_keys: ClassVar[tuple[str, ...]] = ("trial_set", "tables", "trials", "summary")
    allow_nan: ClassVar[bool] = True  # in the summary only, which is recomputed: the trials are checked finite

    method: str
    settings: dict[str, Any]
    trials: list[TrialResult]
    created: str = field(default_factory=lambda: creation_time())
    generator: str = f"marple-gym {__version__}"
    role: str = "method"

    @property
    def name(self) -> str:
        """The run's name in tables: its own label if it has one (human responses: their files and participants,
        so a pilot and a real study do not both read "human"), else the method; marked where the method was given
        the privileged training-label mission prior."""
        name = self.settings.get("label") or self.method
        return f"{name} {PRIVILEGED_MARK}" if self.privileged_prior else name

    @property
    def mission_prior(self) -> str | None:
        """The mission prior the method started from (``uniform``, ``uniform-all``, ``labels``), None for a method
        that takes none. Files written before the choice existed recorded training-label priors only."""
        if "mission_prior" in self.settings:
            return self.settings["mission_prior"]
        return "labels" if "mission_priors" in self.settings else None

    @property
    def privileged_prior(self) -> bool:
        """Whether the method was told each agent's mission labels from its training split (``labels``)."""
        return self.mission_prior == "labels"

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

    @property
    def stores_query_probabilities(self) -> bool | None:
        """Whether the method's answers combine each agent's P(query | agent), which the trials then store; None
        for files that do not say (results version 1)."""
        return self.settings.get("combines_query_probabilities")

    def with_cutoff(self, cutoff: int | None) -> RunResults:
        """This run seen under another cutoff: 1/N at every point where T + margin - tau > ``cutoff``
        (:meth:`rescored`)."""
        return self.rescored(cutoff=cutoff)

    def rescored(self, **changes: Any) -> RunResults:
        """This run under other protocol settings, from what it stored, without asking the method again.

        ``changes`` are :class:`~marple_eval.settings.ProtocolSettings` fields. What a run can show:

        * a tighter **cutoff** always (the protocol answers 1/N at cut points without asking the method); a
          looser one only where the method was asked there (a run scored with ``--cutoff none`` shows all);
        * another **combination** rule or **eta**, and the other **last point**, when the run stored each
          agent's P(query | agent) (methods that combine them, results version 2); for a method that
          answers in its own way the combination does not apply and its answers stay;
        * never another **margin**, number of points or **success** rule: the margin sets how far the method
          looks ahead and the success rule what a rollout must do to count, so they change what the method
          answers, and only a new run shows them.

        Raises :class:`NotRescorable`, which names the setting and what would show it.
        """
        made = ProtocolSettings.from_record(self.protocol)
        wanted = replace(made, **changes)
        for key in RESCORED_ONLY_BY_A_NEW_RUN:
            if getattr(wanted, key) != getattr(made, key):
                raise NotRescorable(
                    f"{self.label}: scored with {key} {getattr(made, key)}; {key} {getattr(wanted, key)} changes what "
                    f"the method answers, so it needs a new run (--{key} {getattr(wanted, key)})",
                    f"{key} {getattr(made, key)}: new run",
                )
        trials = [_rescored_trial(self, t, made, wanted) for t in self.trials]
        settings = {**self.settings, "protocol": wanted.record()}
        return replace(self, settings=settings, trials=trials)

    def records(self) -> dict[str, Any]:
        return {
            "trial_set": {"id": self.trial_set, "trials": len({t.episode_id for t in self.trials})},
            "tables": table_fingerprints(),
            "trials": [asdict(t) for t in self.trials],
            "summary": self.summary(),
        }

    @classmethod
    def from_records(cls, top: Fields, envelope: dict[str, Any]) -> RunResults:
        check_tables(top.get("tables"), top.file)
        top.require("trials")
        return cls(trials=[read_trial(t) for t in top.entries("trials")], **envelope)


class NotRescorable(ResultsError):
    """A run cannot show the protocol settings asked for without scoring it again (:meth:`RunResults.rescored`)."""

    def __init__(self, message: str, short: str) -> None:
        super().__init__(message)
        self.short = short
        """A few words for a table cell: what is missing."""


def _rescored_trial(run: RunResults, t: TrialResult, made: ProtocolSettings, wanted: ProtocolSettings) -> TrialResult:
    """One trial under ``wanted`` (see :meth:`RunResults.rescored`)."""
    share = 1.0 / t.suspects
    taus = t.taus if wanted.last_point == made.last_point else wanted.taus(t.horizon)
    cut = [wanted.is_cut(t.horizon, tau) for tau in taus]
    if t.query_taus is not None:
        labelings = [_recombined(t, lab, taus, cut, wanted.rules) for lab in t.labelings]
        if None in labelings:
            raise _looser_cutoff(run, made, wanted)
        return replace(t, taus=taus, p_culprit=culprit_mean(labelings), labelings=labelings)
    if (wanted.combine, wanted.eta) != (made.combine, made.eta) and run.stores_query_probabilities is not False:
        raise NotRescorable(
            f"{run.label}: no query probabilities stored (results version 1, or a run scored before they were), "
            f"so it cannot show the {wanted.combine} rule with eta {wanted.eta:g}: score it again",
            "not stored: new run",
        )
    if taus != t.taus:  # another last point: the method was never asked at its points
        raise NotRescorable(
            f"{run.label}: answers were asked at the evidence points of last point {made.last_point} only; last "
            f"point {wanted.last_point} needs a new run (--last-point {wanted.last_point})",
            f"last point {made.last_point} only: new run",
        )
    for tau, c in zip(taus, cut):
        if not c and made.is_cut(t.horizon, tau):
            raise _looser_cutoff(run, made, wanted)

    def kept(values: list[float]) -> list[float]:
        return [share if c else x for c, x in zip(cut, values)]

    labelings = [{**lab, **{k: kept(lab[k]) for k in lab if _is_answer_key(k)}} for lab in t.labelings]
    return replace(t, p_culprit=kept(t.p_culprit), labelings=labelings)


def _recombined(
    t: TrialResult, labeling: dict[str, Any], taus: list[int], cut: list[bool], rules: QueryRules
) -> dict[str, Any] | None:
    """A labeling's answers at ``taus`` from its stored query probabilities, by ``rules``; None where a point
    that is not cut was never estimated (the run was scored with a tighter cutoff)."""
    labels = [label.lower() for label in suspect_labels(t.suspects)]
    stored = dict(zip(t.query_taus, zip(*(labeling[f"q_{label}"] for label in labels))))
    answers = []
    for tau, c in zip(taus, cut):
        q = stored.get(tau)
        if c:
            answers.append((1.0 / t.suspects,) * t.suspects)
        elif q is None or None in q:
            return None
        else:
            answers.append(combined_answer(q, rules))
    return {**labeling, **{f"p_{label}": [a[k] for a in answers] for k, label in enumerate(labels)}}


def _looser_cutoff(run: RunResults, made: ProtocolSettings, wanted: ProtocolSettings) -> NotRescorable:
    return NotRescorable(
        f"{run.label}: scored with cutoff {made.cutoff}; a looser cutoff ({wanted.cutoff}) needs the run scored "
        "again with --cutoff none",
        f"scored with cutoff {made.cutoff}",
    )


def _is_answer_key(key: str) -> bool:
    """``p_a``, ``p_b``, ...: a labeling's answers under one label."""
    return len(key) == 3 and key.startswith("p_") and key[2].isalpha() and key[2].islower()


def read_trial(t: Fields) -> TrialResult:
    """One trial entry (of a results file or a run's journal): every field typed, probabilities finite and in
    [0, 1], one per evidence point (and one per query point, or null where the cutoff spared the rollouts)."""
    t.allow(f.name for f in fields(TrialResult)).require("episode_id", "scenario", "horizon", "taus", "p_culprit")
    taus = _steps(t, "taus")
    p_culprit = _probabilities(t, "p_culprit", len(taus))
    suspects = t.int("suspects", 2, low=2, high=26)
    query_taus = _steps(t, "query_taus") if t.get("query_taus") is not None else None
    labels = [label.lower() for label in suspect_labels(suspects)]
    answer_keys = [f"p_{label}" for label in labels]
    query_keys = [f"q_{label}" for label in labels] if query_taus is not None else []
    labelings = []
    for lab in t.entries("labelings"):  # a model's placements, or a human answer's participant
        lab.allow(("swap", "culprit_as", "participant", *answer_keys, *query_keys))
        lab.bool("swap", None)
        lab.str("culprit_as", None, choices=suspect_labels(suspects))
        lab.str("participant", None)
        for key in answer_keys:
            if lab.has(key):
                _probabilities(lab, key, len(taus))
        for key in query_keys:
            lab.require(key)
            _probabilities(lab, key, len(query_taus), missing_allowed=True)
        labelings.append(dict(lab.raw))
    return TrialResult(
        t.str("episode_id"),
        t.str("scenario"),
        t.int("horizon", low=0),
        taus,
        p_culprit,
        labelings,
        suspects,
        query_taus,
    )


def _steps(t: Fields, key: str) -> list[int]:
    steps = t.list(key)
    for i, tau in enumerate(steps):
        t.check_int(f"{key}[{i}]", tau, low=0)
    return steps


def _probabilities(f: Fields, key: str, n: int, missing_allowed: bool = False) -> list[float | None]:
    values = f.list(key)
    if len(values) != n:
        raise f.fail(key, f"expected {n} values (one per evidence point), got {len(values)}")
    for i, p in enumerate(values):
        if not (missing_allowed and p is None):
            f.check_number(f"{key}[{i}]", p, low=0.0, high=1.0)
    return [None if p is None else float(p) for p in values]
