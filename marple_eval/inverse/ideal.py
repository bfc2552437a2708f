"""The Bayes-optimal observer: exact Bayesian inverse planning with the true generative model.

For each agent, with the prior P(m) over its missions estimated from its
training split (:mod:`marple_eval.inverse.priors`)::

    P(m | actions to tau)  ~  P(m) * P(actions to tau | m)          (exact: MissionTracker)
    P(query | agent)        =  sum_m P(m | actions) * P(the planner on m, carrying on from tau,
                                                      reaches the query state in the protocol's steps)

The second factor comes from rollouts of the true planner, each starting with
the rest of the plan the agent is part-way through drawn from its exact
conditional distribution (so the rollouts are draws from the true predictive
distribution); it is 0 without rolling out for missions that never produce
the query state. By default the answer follows the protocol of simulation
inference: the paper's horizon and cutoff, then
``softmax(eta * P(query | A), eta * P(query | B))``; ``answer`` and
``max_remaining=None`` give the exact posterior or the score-maximising answer
without the cutoff (see :data:`ANSWERS`).

It reads only vision (the actions, the house) and is the benchmark's ceiling:
no method that learns the agents from the same data can do better in
expectation. Its assumption, shared with the data: agents are the planner,
and each episode's mission is the first one sampled (a mission abandoned
part-way is not modelled).
"""

from __future__ import annotations

import logging
import math
import zlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from marple_eval.evidence import VISION, AgentEvidence, TrialEvidence
from marple_eval.inverse.likelihood import MissionTracker
from marple_eval.inverse.priors import MissionPrior
from marple_eval.models.base import InferenceModel, rollout_steps, softmax_answer
from marple_gym.missions.mission import Subgoal, get_mission
from marple_gym.missions.scenarios import same_state_change
from marple_gym.world.world import World

log = logging.getLogger(__name__)

ANSWERS = ("softmax", "posterior", "map")
"""How P(query | A), P(query | B) become the answer: the protocol's softmax with ``eta`` (as simulation
inference answers); the posterior that A rather than B is the one who did it, given that exactly one did; or
all on the more probable agent, which maximises the expected score of the benchmark's linear metric (the mean
probability given to the culprit) and so is the ceiling of every method."""


def mission_posterior(prior: Mapping[str, float], log_likelihoods: Mapping[str, float]) -> dict[str, float] | None:
    """P(m | actions) from P(m) and log P(actions | m) (None when no mission of positive prior explains them)."""
    logs = {m: math.log(prior[m]) + ll for m, ll in log_likelihoods.items() if prior.get(m, 0) > 0}
    top = max(logs.values(), default=-math.inf)
    if top == -math.inf:
        return None
    weights = {m: math.exp(v - top) for m, v in logs.items()}
    total = sum(weights.values())
    return {m: w / total for m, w in weights.items()}


class IdealObserver(InferenceModel):
    """Exact Bayesian inverse planning with the true planner (see module docs)."""

    name = "ideal"
    modalities = frozenset({VISION})

    def __init__(
        self,
        rollouts: int = 200,
        eta: float = 5.0,
        margin: int = 10,
        max_remaining: int | None = 40,
        seed: int = 0,
        answer: str = "softmax",
    ) -> None:
        if rollouts < 1:
            raise ValueError(f"rollouts must be at least 1, got {rollouts}")
        if answer not in ANSWERS:
            raise ValueError(f"answer must be one of {', '.join(ANSWERS)}, got {answer!r}")
        self.answer = answer
        self.rollouts = int(rollouts)
        self.eta = float(eta)
        self.margin = int(margin)
        self.max_remaining = None if max_remaining is None else int(max_remaining)
        self.seed = int(seed)
        self.priors: dict[str, MissionPrior] = {}
        self._trackers: dict[str, tuple[bytes, dict[str, MissionTracker]]] = {}
        self._plans: dict[str, dict] = {}  # per agent: plan requests its rollouts share (reset with the episode)

    def settings(self) -> dict[str, Any]:
        return {
            **super().settings(),
            "rollouts": self.rollouts,
            "eta": self.eta,
            "margin": self.margin,
            "max_remaining": self.max_remaining,
            "seed": self.seed,
            "answer": self.answer,
            "prior": "mission frequencies of each agent's training split",
        }

    def setup(self, agents: Mapping[str, Any]) -> None:
        """Receive each agent's :class:`MissionPrior` (or a ``{mission: probability}`` mapping)."""
        priors = {}
        for identity, resource in agents.items():
            if isinstance(resource, Mapping) and "planner" not in resource:
                resource = MissionPrior({m: float(p) for m, p in resource.items()}, "given", 0)
            if not isinstance(resource, MissionPrior):
                raise ValueError(f"the ideal observer needs a mission prior per agent, got {type(resource).__name__}")
            priors[identity] = resource
        self.priors = priors
        self._trackers = {}
        self._plans = {}

    # ---- the posterior over missions ---------------------------------------------------------------------
    def _trackers_for(self, agent: AgentEvidence) -> dict[str, MissionTracker]:
        """One tracker per mission of the agent's prior, advanced to the evidence's tau (reused across taus)."""
        if agent.identity not in self.priors:
            raise ValueError(f"no mission prior was set up for {agent.identity}; the run must provide one per agent")
        key = agent.vision[0].tobytes()
        actions = agent.actions.tolist()
        cached_key, trackers = self._trackers.get(agent.identity, (None, {}))
        if cached_key != key or any(t.actions > len(actions) for t in trackers.values()):
            start = agent.world(0)
            prior = self.priors[agent.identity].probabilities
            trackers = {m: MissionTracker(start, get_mission(m)) for m, p in prior.items() if p > 0}
            self._trackers[agent.identity] = (key, trackers)
            self._plans[agent.identity] = {}
        for tracker in trackers.values():
            for action in actions[tracker.actions :]:
                tracker.observe_action(action)
        return trackers

    def posterior(self, agent: AgentEvidence) -> dict[str, float]:
        """P(mission | the agent's actions to tau)."""
        return self._posterior(agent, self._trackers_for(agent))

    def _posterior(self, agent: AgentEvidence, trackers: dict[str, MissionTracker]) -> dict[str, float]:
        prior = self.priors[agent.identity].probabilities
        posterior = mission_posterior(prior, {m: t.log_likelihood for m, t in trackers.items()})
        if posterior is None:
            log.warning("%s: no mission of the prior explains the actions; answering with the prior", agent.identity)
            return {m: prior[m] for m in trackers}
        return posterior

    # ---- the query probability -------------------------------------------------------------------------------
    def query_probability(self, agent: AgentEvidence, trial: TrialEvidence) -> float:
        """P(query | agent, evidence to tau) (see module docs)."""
        steps = rollout_steps(trial, self.margin, self.max_remaining)
        if steps is None:
            return 0.0
        trackers = self._trackers_for(agent)
        world, outcomes = agent.replay()
        if any(trial.query.matches(o, world.house) for o in outcomes):
            return 1.0
        total = 0.0
        for mission, weight in self._posterior(agent, trackers).items():
            if weight > 0:
                rng = np.random.default_rng(
                    [self.seed, zlib.crc32(agent.identity.encode()), trial.tau, zlib.crc32(mission.encode())]
                )
                tracker, cache = trackers[mission], self._plans[agent.identity]
                total += weight * self._reach_probability(tracker, world, trial.query, steps, rng, cache)
        return total

    def _reach_probability(
        self,
        tracker: MissionTracker,
        world: World,
        query: Subgoal,
        steps: int,
        rng: np.random.Generator,
        cache: dict,
    ) -> float:
        """P(the planner on the tracker's mission reaches ``query`` within ``steps`` actions from here)."""
        if tracker.done or tracker.abandoned or steps <= 0:
            return 0.0
        remaining = tracker.mission.subgoals[tracker.progress.index :]
        if not any(same_state_change(sg, query) for sg in remaining):
            return 0.0
        hits = 0
        for _ in range(self.rollouts):
            clone = world.clone()
            planner = tracker.continuation(clone, rng, cache)
            for _ in range(steps):
                outcome = planner.step()
                if outcome is None:
                    break
                if query.matches(outcome, clone.house):
                    hits += 1
                    break
        return hits / self.rollouts

    def predict(self, trial: TrialEvidence) -> tuple[float, float]:
        p_a, p_b = (self.query_probability(agent, trial) for agent in trial.agents)
        if self.answer == "softmax":
            return softmax_answer(p_a, p_b, self.eta)
        a, b = p_a * (1 - p_b), p_b * (1 - p_a)  # exactly one of them did it
        if a == b:
            return 0.5, 0.5
        if self.answer == "map":
            return (1.0, 0.0) if a > b else (0.0, 1.0)
        return a / (a + b), b / (a + b)
