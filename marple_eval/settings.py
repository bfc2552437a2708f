"""The evaluation protocol's settings and its three named bundles (docs/evaluation.md, "The protocols").

The paper's text and the original research code disagree on six settings
that move the headline figure (SPEC section 9): how the agents' P(query |
agent) combine into an answer, the softmax temperature, how far past T the
rollouts look (the margin), the cutoff, the last evidence point, and what a
rollout must do to count as reaching the query state. Each is a field of
:class:`ProtocolSettings`; :data:`PROTOCOLS` names the bundles:

* ``paper``: the paper's text: softmax with eta = 5, rollouts to T exactly
  (Algorithm E.1, margin 0), no cutoff, last point T, the query state itself;
* ``original``: the released code's command-line defaults: the ratio
  p_A / (p_A + p_B), margin 5 (``extra_steps``), cutoff 40
  (``last_step + extra_steps - i > 40``), last point T - 1, a rollout counted
  by its action match on (target type, action type) (``np.all(rollouts_actions
  == target_action)``; :mod:`marple_eval.success`);
* ``ours``: this project's default, chosen on the measurements in
  docs/evaluation.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

import numpy as np

from marple_eval.evidence import QueryRules
from marple_gym.recording.records import evidence_steps

LAST_POINTS = ("T", "T-1")
BUNDLE = ("combine", "eta", "margin", "cutoff", "last_point", "success")
"""The fields a named protocol fixes (the others, seed, labelings and points, are the run's)."""
PROTOCOLS: dict[str, dict[str, Any]] = {
    "paper": {
        "combine": "softmax",
        "eta": 5.0,
        "margin": 0,
        "cutoff": None,
        "last_point": "T",
        "success": "query-state",
    },
    "original": {
        "combine": "ratio",
        "eta": 5.0,
        "margin": 5,
        "cutoff": 40,
        "last_point": "T-1",
        "success": "action-match",
    },
    "ours": {"combine": "softmax", "eta": 5.0, "margin": 10, "cutoff": 40, "last_point": "T", "success": "query-state"},
}
RESCORED_ONLY_BY_A_NEW_RUN = ("margin", "points", "success")
"""Settings that change what a method answers (how far its rollouts look, where it is asked, what a rollout must
do to count): a run shows another value of them only when scored again."""
DEFAULT_PROTOCOL = "ours"


@dataclass(frozen=True)
class ProtocolSettings:
    """The protocol's choices, recorded in every results file (see docs/evaluation.md for their sources).

    The defaults are the ``ours`` bundle; :meth:`named` builds any bundle of :data:`PROTOCOLS`.
    """

    seed: int = 0
    labelings: str = "random"  # "random": one seeded placement per trial; "both": the culprit under every label
    points: int = 11
    last_point: str = PROTOCOLS[DEFAULT_PROTOCOL]["last_point"]  # T (the paper's text) or T-1 (the original code)
    margin: int = PROTOCOLS[DEFAULT_PROTOCOL]["margin"]  # look for the query state up to T + margin
    cutoff: int | None = PROTOCOLS[DEFAULT_PROTOCOL]["cutoff"]  # 1/N each where T + margin - tau > cutoff
    eta: float = PROTOCOLS[DEFAULT_PROTOCOL]["eta"]  # softmax temperature of the combination (paper)
    combine: str = PROTOCOLS[DEFAULT_PROTOCOL]["combine"]  # "softmax" (the paper's text) or "ratio" (original code)
    # What a rollout must do to count (marple_eval.success): "query-state" (the paper's text) or "action-match"
    # (original code). Results files that predate the field read as "query-state", the rule they were scored by.
    success: str = PROTOCOLS[DEFAULT_PROTOCOL]["success"]

    def __post_init__(self) -> None:
        if self.labelings not in ("random", "both"):
            raise ValueError(f"labelings must be 'random' or 'both', got {self.labelings!r}")
        if self.points < 2:
            raise ValueError(f"need at least 2 evidence points, got {self.points}")
        if self.last_point not in LAST_POINTS:
            raise ValueError(f"last_point must be one of {LAST_POINTS}, got {self.last_point!r}")
        if self.cutoff is not None and self.cutoff < 0:
            raise ValueError(f"cutoff must be at least 0 or None, got {self.cutoff}")
        if not np.isfinite(self.eta) or self.eta < 0:
            raise ValueError(f"eta must be a finite number at least 0, got {self.eta}")
        QueryRules(self.margin, self.eta, self.combine, self.success)  # checks margin, combine and success

    @classmethod
    def named(cls, name: str, **changes: Any) -> ProtocolSettings:
        """The bundle ``name`` of :data:`PROTOCOLS` (paper, original, ours), with any field changed."""
        if name not in PROTOCOLS:
            raise ValueError(f"unknown protocol {name!r}; choose from {', '.join(PROTOCOLS)}")
        return cls(**{**PROTOCOLS[name], **changes})

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> ProtocolSettings:
        """The settings a results file recorded (:meth:`record`); fields it lacks take the defaults."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in record.items() if k in known})

    def record(self) -> dict[str, Any]:
        """What a results file records: every field, and the name of the bundle they make (:attr:`name`)."""
        return {**asdict(self), "name": self.name}

    @property
    def bundle(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in BUNDLE}

    @property
    def name(self) -> str:
        """The bundle's name (``paper``, ``original``, ``ours``), or the nearest one with the fields that differ:
        ``original-margin-10-cutoff-none``. Readable, and the same for the same settings."""

        def differences(preset: str) -> list[str]:
            return [key for key in BUNDLE if getattr(self, key) != PROTOCOLS[preset][key]]

        # Ties go to our default first: "--margin 5" on its own reads "ours-margin-5".
        nearest = min((DEFAULT_PROTOCOL, *PROTOCOLS), key=lambda preset: len(differences(preset)))
        return "-".join(
            [nearest, *(f"{key.replace('_', '-')}-{_text(getattr(self, key))}" for key in differences(nearest))]
        )

    @property
    def rules(self) -> QueryRules:
        return QueryRules(self.margin, self.eta, self.combine, self.success)

    def taus(self, horizon: int) -> list[int]:
        """The evidence points of a trial whose culprit reached the query state after ``horizon`` actions."""
        last = horizon if self.last_point == "T" else max(0, horizon - 1)
        return evidence_steps(last, self.points)

    def query_points(self, horizon: int) -> list[int]:
        """Where methods that combine P(query | agent) are asked: the evidence points of both last-point rules
        (T and T - 1), so a run shows either without rolling anything out again."""
        both = {tau for last_point in LAST_POINTS for tau in replace(self, last_point=last_point).taus(horizon)}
        return sorted(both)

    def is_cut(self, horizon: int, tau: int) -> bool:
        """Whether the cutoff answers 1/N for each of N agents at this point (original code:
        ``last_step + extra_steps - i > 40``)."""
        return self.cutoff is not None and horizon + self.margin - tau > self.cutoff


def _text(value: Any) -> str:
    return "none" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
