"""Methods that answer belief and goal questions: the family's call, ``answer(question) -> (P(a), P(b))``, on the
one method contract (:class:`~marple_eval.methods.base.Method`).

Every method reads what its ``reads`` names of a question (``"text"``: the house description and the
narration; ``"symbolic"``: the vision arrays and scene graphs up to the cut, with the options' symbols;
``"frames"``: rendered pictures) and returns its probabilities of the two options, which the scoring
(:mod:`marple_eval.beliefs.scoring`) turns into accuracy and calibration. Here: ``uniform`` (chance) and
``observer``, the exact observer (inverse planning with the true searching policy: the normative answer and
the ceiling: the family's answer key). The LLM baseline is in :mod:`marple_eval.beliefs.llm` (all three by name:
:mod:`marple_eval.methods.registry`); ``bip``, with a learned policy, in ``marple_agents.beliefs``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from marple_eval.methods.base import Method
from marple_gym.beliefs.episodes import EXCLUSION
from marple_gym.beliefs.questions.posterior import ActionModel, InversePlanner, PlannerModel, Priors
from marple_gym.beliefs.questions.question import BeliefQuestion, option_probabilities

CONDITIONS = ("text", "symbolic", "frames")
"""What a method may read of a question (see the module docs)."""


class BeliefMethod(Method, ABC):
    """Answers two-option questions about a searching agent's belief and goal."""

    family = "beliefs"
    reads: frozenset[str] = frozenset({"symbolic"})

    @abstractmethod
    def answer(self, question: BeliefQuestion) -> tuple[float, float]:
        """P(option a), P(option b), summing to one."""

    def answer_all(self, questions: Sequence[BeliefQuestion]) -> list[tuple[float, float]]:
        """:meth:`answer` of every question, in order (a method that answers many at once overrides it)."""
        return [self.answer(q) for q in questions]


class BeliefUniform(BeliefMethod):
    """Chance: one half to each option."""

    name = "uniform"
    reads = frozenset()

    def answer(self, question: BeliefQuestion) -> tuple[float, float]:
        return 0.5, 0.5


class BeliefInversePlanning(BeliefMethod):
    """Bayesian inverse planning over goal and belief with an action model (:mod:`marple_gym.beliefs.questions.posterior`),
    from the symbols of the episode up to the cut. One inverse planner per episode serves all its questions."""

    reads = frozenset({"symbolic"})

    def __init__(self, exclusion: float = EXCLUSION) -> None:
        self.exclusion = exclusion
        self._planners: dict[str, InversePlanner] = {}

    def action_model(self) -> ActionModel:
        raise NotImplementedError

    def priors(self, question: BeliefQuestion) -> Priors | None:
        """The searcher's prior beliefs as this method assumes them for ``question`` (None: the searchers' own,
        with :attr:`exclusion`)."""
        return None

    def horizon(self, question: BeliefQuestion) -> int | None:
        """Weigh the actions before this step only (None: all, so one planner serves every question of an
        episode; a costly action model weighs those before the question's cut alone)."""
        return None

    def planner(self, question: BeliefQuestion) -> InversePlanner:
        episode = question.episode
        key = (episode.id, self.priors(question), self.horizon(question))
        found = self._planners.get(key)
        if found is None or found.episode is not episode:
            if any(k[0] != episode.id or p.episode is not episode for k, p in self._planners.items()):
                self._planners.clear()  # questions come episode by episode: keep one episode's work at a time
            found = InversePlanner(episode, self.action_model(), self.exclusion, key[1], key[2])
            self._planners[key] = found
        return found

    def answer(self, question: BeliefQuestion) -> tuple[float, float]:
        return option_probabilities(self.planner(question), question.options, question.end_time, question.given)

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "exclusion": self.exclusion}


class BeliefObserver(BeliefInversePlanning):
    """The exact observer: inverse planning with the searching agent's own policy and priors (what only the
    generator knows). It makes the answers, so it is the family's answer key and the ceiling, shown apart from
    the methods, never as a method's row."""

    name = "observer"
    label = "answer key (ceiling)"
    role = "answer_key"

    def action_model(self) -> ActionModel:
        return PlannerModel()
