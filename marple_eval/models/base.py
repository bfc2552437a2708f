"""The inference-model interface every method (and the human baseline) is scored through."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import numpy as np

from marple_eval.evidence import MODALITIES, TrialEvidence


class InferenceModel(ABC):
    """Answers "which agent did it?" from evidence up to tau.

    Subclasses set ``name`` and ``modalities`` (a subset of vision, audio,
    language: the harness hands over only those) and implement :meth:`predict`.
    Methods that learn a model per agent receive, once per scenario, the
    resources the run configured for each agent, keyed by the agents' opaque
    identities (:meth:`setup`).
    """

    name: str = "model"
    modalities: frozenset[str] = frozenset()

    def setup(self, agents: Mapping[str, Any]) -> None:  # noqa: B027  (optional hook)
        """Receive per-agent resources (e.g. learned policies) keyed by agent identity."""

    @abstractmethod
    def predict(self, trial: TrialEvidence) -> tuple[float, float]:
        """P(agent shown as A did it), P(agent shown as B did it)."""

    def settings(self) -> dict[str, Any]:
        """What to record about this model in a results file."""
        return {"name": self.name, "modalities": sorted(self.modalities)}

    @classmethod
    def check_modalities(cls, modalities: frozenset[str]) -> frozenset[str]:
        unknown = set(modalities) - MODALITIES
        if unknown:
            raise ValueError(f"{cls.__name__}: unknown modalities {sorted(unknown)}; choose from {sorted(MODALITIES)}")
        return frozenset(modalities)


def normalise(p_a: float, p_b: float, model: str = "model") -> tuple[float, float]:
    """Check a model's answer and scale it to sum to one."""
    try:
        a, b = float(p_a), float(p_b)
    except (TypeError, ValueError):
        raise ValueError(f"{model} returned non-numeric probabilities {p_a!r}, {p_b!r}") from None
    if not (a >= 0 and b >= 0) or a + b <= 0 or a + b == float("inf"):
        raise ValueError(f"{model} returned invalid probabilities ({a}, {b}): need finite, non-negative, not both zero")
    return a / (a + b), b / (a + b)


def rollout_steps(trial: TrialEvidence, margin: int, max_remaining: int | None) -> int | None:
    """How many steps from tau a forward model may take to reach the query state (the paper's rule).

    Until step T + ``margin``; None (the query probability is then 0, whatever
    the evidence shows) when more than ``max_remaining`` steps remain until T.
    ``max_remaining`` None never cuts.
    """
    if max_remaining is not None and trial.horizon - trial.tau > max_remaining:
        return None
    return trial.horizon + margin - trial.tau


def softmax_answer(p_a: float, p_b: float, eta: float) -> tuple[float, float]:
    """P(A), P(B) = softmax(eta * P(query | A), eta * P(query | B)) (paper section 5, eta = 5)."""
    p = np.array([p_a, p_b], dtype=float)
    e = np.exp(eta * (p - p.max()))
    return float(e[0] / e.sum()), float(e[1] / e.sum())
