"""The inference-model interface every method (and the human baseline) is scored through."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from marple_eval.evidence import MODALITIES, AgentEvidence, QueryRules, TrialEvidence


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

    def predict_all(self, trials: Sequence[TrialEvidence]) -> list[tuple[float, float]]:
        """:meth:`predict` at several evidence points of one trial (ascending tau), in order.

        The harness asks through this, so a method that answers several points at
        once (simulation inference rolls all of them out in one batch) overrides it;
        its answers must equal :meth:`predict`'s.
        """
        return [self.predict(trial) for trial in trials]

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


def combine_query_probabilities(p_a: float, p_b: float, rules: QueryRules) -> tuple[float, float]:
    """(P(A), P(B)) from each agent's P(query | agent), by the protocol's rule.

    ``softmax``: softmax(eta * p_A, eta * p_B), the paper's text. ``ratio``:
    p_A / (p_A + p_B), the original code. Both give 0.5 each when neither agent
    is expected to reach the query state.
    """
    if rules.combine == "ratio":
        total = p_a + p_b
        return (0.5, 0.5) if total <= 0 else (p_a / total, p_b / total)
    p = np.array([p_a, p_b], dtype=float)
    e = np.exp(rules.eta * (p - p.max()))
    return float(e[0] / e.sum()), float(e[1] / e.sum())


class QueryModel(InferenceModel):
    """A method that estimates, for each agent, the probability that it reaches the query state within the
    protocol's horizon (``trial.steps_left`` steps after tau), and answers by the protocol's combination rule.

    Simulation inference, inverse planning and the Bayes-optimal observer share this shape, so they obey the
    same protocol settings (margin, eta, combination) by construction.
    """

    @abstractmethod
    def query_probability(self, agent: AgentEvidence, trial: TrialEvidence) -> float:
        """P(query | agent, evidence to tau): reaching the query state within ``trial.steps_left`` steps."""

    def predict(self, trial: TrialEvidence) -> tuple[float, float]:
        a, b = (self.query_probability(agent, trial) for agent in trial.agents)
        return combine_query_probabilities(a, b, trial.rules)
