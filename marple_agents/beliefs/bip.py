"""``bip`` for belief questions: Bayesian inverse planning with the learned belief policy as the likelihood.

The analogue of MMToM-QA's BIP-ALM: the same inverse planning over goal and belief as the exact observer
(:mod:`marple_gym.beliefs.questions.posterior`: prior beliefs, beliefs revised by what the agent perceived, goals
with an even prior), with each action's probability taken from a goal- and belief-conditioned policy learned
from searching agents (:mod:`marple_agents.beliefs.policy`) instead of the agents' own planner. Every input a
hypothesis needs is asked of the network at once, each distinct one once. A floor mixes a little of the
uniform distribution into the network's answer, so that one action it finds surprising does not rule a
hypothesis out.

Like BIP-ALM it reads what a model could: the states (the vision arrays up to the cut), the actions, how the
searcher perceives, and the question. It starts the searcher's belief even over every place of the house that
holds objects, and takes its hypotheses from the question: the two options' goals, or the two beliefs about one
container that a belief question's options (or a premise) name (:class:`~marple_gym.beliefs.questions.posterior.UniformPriors`).
:class:`BeliefBipPrivileged` is the same given the searchers' own priors, which only the generator knows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from marple_agents.beliefs.policy import BeliefPolicy, belief_marks, last_code, load_belief_policy, policy_vision
from marple_eval.beliefs.methods import BeliefInversePlanning
from marple_gym.beliefs.belief import ObjectBelief
from marple_gym.beliefs.episodes import EXCLUSION, EpisodeTrace
from marple_gym.beliefs.questions.posterior import ActionModel, Priors, UniformPriors
from marple_gym.beliefs.questions.question import BeliefQuestion
from marple_gym.world.actions import NUM_ACTIONS

SMOOTHING = 1e-3
"""The share of the uniform distribution mixed into the learned policy's answer."""


class LearnedModel:
    """The learned belief policy as an :class:`~marple_gym.beliefs.questions.posterior.ActionModel`."""

    name = "learned"

    def __init__(self, policy: BeliefPolicy, smoothing: float = SMOOTHING) -> None:
        self.policy = policy
        self.smoothing = smoothing

    def action_probabilities(
        self, trace: EpisodeTrace, goal: int, steps: Sequence[int], beliefs: Sequence[Sequence[ObjectBelief]]
    ) -> np.ndarray:
        episode, house = trace.episode, trace.house
        rows: dict[tuple[int, int, tuple[int, int] | None], int] = {}
        for h in beliefs:
            for k, t in enumerate(steps):
                rows.setdefault((t, h[k].support, h[k].cell), len(rows))
        keys = list(rows)
        visions: dict[int, np.ndarray] = {t: policy_vision(house, trace.states[t]) for t in steps}
        p = self.policy.probabilities(
            np.stack([visions[t] for t, _, _ in keys]),
            np.stack([belief_marks(house, ObjectBelief(support, cell)) for _, support, cell in keys]),
            [goal] * len(keys),
            [last_code(trace.last_outcome(t)) for t, _, _ in keys],
        )
        p = (1.0 - self.smoothing) * p + self.smoothing / NUM_ACTIONS
        taken = {t: int(episode.actions[t, episode.searcher]) for t in steps}
        out = np.empty((len(beliefs), len(steps)))
        for i, h in enumerate(beliefs):
            for k, t in enumerate(steps):
                out[i, k] = p[rows[(t, h[k].support, h[k].cell)], taken[t]]
        return out


class BeliefBip(BeliefInversePlanning):
    """Inverse planning with a learned belief policy, from what a model can read (see the module docs): give it
    a trained policy or the path of its checkpoint (``policy=``)."""

    name = "bip"
    reads = frozenset({"symbolic"})
    prior_name = "uniform over the house's places; the options' two beliefs"

    def __init__(self, policy: BeliefPolicy | str | Path, exclusion: float = EXCLUSION, device: str = "cpu") -> None:
        super().__init__(exclusion)
        self.source = str(policy) if not isinstance(policy, BeliefPolicy) else "(in memory)"
        self.policy = policy if isinstance(policy, BeliefPolicy) else load_belief_policy(policy, device)

    def action_model(self) -> ActionModel:
        return LearnedModel(self.policy)

    def horizon(self, question: BeliefQuestion) -> int | None:
        """The question's cut: the network weighs no action after it (a balanced set asks few questions of an
        episode, so sharing the whole episode's work would cost more than it saves)."""
        return question.end_time

    def priors(self, question: BeliefQuestion) -> Priors | None:
        """A belief even over the house's places, and the two its options (or premise) name of one container."""
        about = [s for s in (*question.options, question.given) if s is not None and not s.is_goal]
        return UniformPriors(about[0].piece if about else -1)

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "policy": self.source, "smoothing": SMOOTHING, "priors": self.prior_name}


class BeliefBipPrivileged(BeliefBip):
    """``bip`` given what no model could read: the searchers' own priors (every place the generator could put
    the object, or all but one, weighted as searchers draw them), as the answer key has them."""

    name = "bip-privileged"
    label = "bip (privileged: the generator's priors)"
    prior_name = "the generator's (privileged)"

    def priors(self, question: BeliefQuestion) -> Priors | None:
        return None
