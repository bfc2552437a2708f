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
    language: the harness hands over only those) and implement :meth:`predict`,
    which answers one probability per suspect shown (two in the paper's
    scenarios; a model made for two keeps working there unchanged, and sets
    ``suspects = 2`` so the harness refuses it a trial with more).
    Methods that learn a model per agent receive, once per scenario, the
    resources the run configured for each agent, keyed by the agents' opaque
    identities (:meth:`setup`).
    """

    name: str = "model"
    modalities: frozenset[str] = frozenset()
    suspects: int | None = None
    """The most suspects the model can answer for (None: any number)."""
    device: str | None = None
    """Where the model's learned parts run (``"cpu"``, ``"cuda:0"``; None: it has none). A model whose constructor
    takes a ``device`` keyword receives the run's ``--device``, resolved, and sets this; on a CUDA device the
    harness scores several trials at a time in one process with the model's calls batched
    (:mod:`marple_eval.lockstep`)."""

    def setup(self, agents: Mapping[str, Any]) -> None:  # noqa: B027  (optional hook)
        """Receive per-agent resources (e.g. learned policies) keyed by agent identity."""

    @abstractmethod
    def predict(self, trial: TrialEvidence) -> Sequence[float]:
        """P(the agent shown as A did it), P(... as B did it), ... : one per agent of ``trial.agents``."""

    def predict_all(self, trials: Sequence[TrialEvidence]) -> list[Sequence[float]]:
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
    """Check a two-suspect answer and scale it to sum to one."""
    a, b = normalise_answer((p_a, p_b), 2, model)
    return a, b


def normalise_answer(answer: Sequence[float], suspects: int, model: str = "model") -> tuple[float, ...]:
    """Check a model's answer (one probability per suspect) and scale it to sum to one."""
    try:
        values = [float(p) for p in answer]
    except (TypeError, ValueError):
        raise ValueError(f"{model} returned non-numeric probabilities {answer!r}") from None
    if len(values) != suspects:
        raise ValueError(f"{model} returned {len(values)} probabilities for {suspects} suspects")
    total = sum(values)
    if not all(p >= 0 for p in values) or total <= 0 or total == float("inf"):
        shown = ", ".join(str(p) for p in values)
        raise ValueError(f"{model} returned invalid probabilities ({shown}): need finite, non-negative, not all zero")
    return tuple(p / total for p in values)


def combine_query_probabilities(p_a: float, p_b: float, rules: QueryRules) -> tuple[float, float]:
    """(P(A), P(B)) from each agent's P(query | agent), by the protocol's rule (:func:`combine_suspects`)."""
    a, b = combine_suspects((p_a, p_b), rules)
    return a, b


def combine_suspects(p: Sequence[float], rules: QueryRules) -> tuple[float, ...]:
    """P(suspect i did it) from each suspect's P(query | suspect i), by the protocol's rule.

    ``softmax``: softmax(eta * p_1, ..., eta * p_N), the paper's text. ``ratio``:
    p_i / sum_j p_j, the original code. Both give 1/N each when no suspect is
    expected to reach the query state (with two suspects: 0.5 each).
    """
    q = np.asarray(p, dtype=float)
    if rules.combine == "ratio":
        total = q.sum()
        return tuple([1.0 / len(q)] * len(q)) if total <= 0 else tuple((q / total).tolist())
    e = np.exp(rules.eta * (q - q.max()))
    return tuple((e / e.sum()).tolist())


class QueryModel(InferenceModel):
    """A method that estimates, for each agent, the probability that it reaches the query state within the
    protocol's horizon (``trial.steps_left`` steps after tau), and answers by the protocol's combination rule.

    Simulation inference, inverse planning and the Bayes-optimal observer share this shape, so they obey the
    same protocol settings (margin, eta, combination) by construction.
    """

    @abstractmethod
    def query_probability(self, agent: AgentEvidence, trial: TrialEvidence) -> float:
        """P(query | agent, evidence to tau): reaching the query state within ``trial.steps_left`` steps."""

    def predict(self, trial: TrialEvidence) -> tuple[float, ...]:
        return combine_suspects([self.query_probability(agent, trial) for agent in trial.agents], trial.rules)
