"""The whodunit family's methods: the interface every whodunit method (and the human baseline) is scored through,
and the combination of each agent's P(query | agent) that simulation inference, inverse planning and the ideal
observer share."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from marple_eval.evidence import AgentEvidence, QueryRules, TrialEvidence
from marple_eval.methods.base import Method
from marple_eval.methods.guard import InvalidAnswerError, check_answer


class WhodunitMethod(Method, ABC):
    """Answers "which agent did it?" from evidence up to tau.

    Subclasses set ``name`` and ``reads`` (a subset of vision, audio, language: the harness hands over only those)
    and implement :meth:`predict`, which answers one probability per suspect shown (two in the paper's scenarios;
    a method made for two keeps working there unchanged, and sets ``suspects = 2`` so the harness refuses it a
    trial with more). Methods that learn a model per agent receive, once per scenario, the resources the run
    configured for each agent, keyed by the agents' opaque identities (:meth:`setup`).
    """

    family = "whodunit"
    suspects: int | None = None
    """The most suspects the method can answer for (None: any number)."""
    needs_agent_models: bool = False
    """Whether the method needs an agent model for every suspect (``--agent ROLE=MODEL``), handed to :meth:`setup`:
    a run without them is refused before it starts, with the options to pass."""
    combines_query_probabilities: bool = False
    """Whether the answer is the protocol's combination of each agent's P(query | agent) (:class:`QueryMethod`),
    which the harness then asks for and stores; other methods answer in their own way."""
    device: Any = None
    """Where the method's learned parts run: a ``torch.device`` or its name (``"cpu"``, ``"cuda:0"``; None: it has
    none). A method whose constructor takes a ``device`` keyword receives the run's ``--device``, resolved once by
    the application's method runner, and sets this; on a CUDA device the harness scores several trials at
    a time in one process with the method's calls batched (:mod:`marple_eval.lockstep`)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "modalities" in vars(cls):  # the attribute's old name: the harness would hand such a method nothing
            raise TypeError(f"{cls.__qualname__}: a whodunit method names what it reads in `reads`, not `modalities`")

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


def normalise(p_a: float, p_b: float, method: str = "method") -> tuple[float, float]:
    """Check a two-suspect answer and scale it to sum to one."""
    a, b = normalise_answer((p_a, p_b), 2, method)
    return a, b


def normalise_answer(answer: Sequence[float], suspects: int, method: str = "method") -> tuple[float, ...]:
    """Check a method's answer (one probability per suspect, :func:`~marple_eval.methods.guard.check_answer`) and
    scale it to sum to one, silently (the harness warns through :class:`~marple_eval.methods.guard.AnswerCheck`)."""
    values = check_answer(answer, suspects, method)
    total = sum(values)
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


def check_query_probabilities(q: Sequence[float], suspects: int, method: str = "method") -> tuple[float, ...]:
    """Check one P(query | agent) per suspect: each a finite number in [0, 1] (they need not sum to one)."""
    try:
        values = tuple(float(p) for p in q)
    except (TypeError, ValueError):
        raise InvalidAnswerError(f"method {method!r} returned non-numeric query probabilities {q!r}") from None
    if len(values) != suspects:
        raise InvalidAnswerError(
            f"method {method!r} returned {len(values)} query probabilities for {suspects} suspects"
        )
    if not all(0.0 <= p <= 1.0 for p in values):  # NaN fails both comparisons
        raise InvalidAnswerError(f"method {method!r} returned query probabilities {values} outside [0, 1]")
    return values


def combined_answer(q: Sequence[float], rules: QueryRules) -> tuple[float, ...]:
    """The answer a method that combines P(query | agent) gives, exactly as the harness records it: the
    protocol's combination (:func:`combine_suspects`), checked and normalised like every answer. Rescoring a
    stored run under another rule goes through here too, so both give the same figures to the last digit."""
    return normalise_answer(combine_suspects(q, rules), len(q))


class QueryMethod(WhodunitMethod):
    """A method that estimates, for each agent, the probability that it reaches the query state within the
    protocol's horizon (``trial.steps_left`` steps after tau), and answers by the protocol's combination rule.

    Simulation inference, inverse planning and the Bayes-optimal observer share this shape, so they obey the
    same protocol settings (margin, eta, combination) by construction. The harness asks them for the
    probabilities themselves (:meth:`query_probabilities_at`), combines them, and stores them with the
    results, so a run shows every combination rule, cutoff and last evidence point without new rollouts.
    """

    combines_query_probabilities = True

    @abstractmethod
    def query_probability(self, agent: AgentEvidence, trial: TrialEvidence) -> float:
        """P(query | agent, evidence to tau): reaching the query state within ``trial.steps_left`` steps."""

    def query_probabilities(self, agents: Sequence[AgentEvidence], trials: Sequence[TrialEvidence]) -> list[float]:
        """:meth:`query_probability` of one agent at several evidence points (``agents[k]`` in ``trials[k]``). A method
        that estimates them together overrides this; its answers must be the same."""
        return [self.query_probability(agent, trial) for agent, trial in zip(agents, trials)]

    def query_probabilities_at(self, trials: Sequence[TrialEvidence]) -> list[tuple[float, ...]]:
        """P(query | agent) of every agent shown, at several evidence points of one trial (ascending tau). A method
        that estimates several points at once overrides this; its answers must equal :meth:`query_probability`'s."""
        return [tuple(self.query_probability(agent, trial) for agent in trial.agents) for trial in trials]

    def predict(self, trial: TrialEvidence) -> tuple[float, ...]:
        return self.predict_all([trial])[0]

    def predict_all(self, trials: Sequence[TrialEvidence]) -> list[tuple[float, ...]]:
        return [combined_answer(q, t.rules) for q, t in zip(self.query_probabilities_at(trials), trials)]
