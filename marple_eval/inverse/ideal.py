"""The Bayes-optimal observer: exact Bayesian inverse planning with the true generative model.

Both factors of :mod:`marple_eval.inverse.base` come from the planner that
generated the data: P(actions to tau | m) exactly, action by action
(:class:`MissionTracker`), and P(reach the query | m) from rollouts of the true
planner, each starting with the rest of the plan the agent is part-way through
drawn from its exact conditional distribution (so the rollouts are draws from
the true predictive distribution).

It reads only vision (the actions, the house) and is the benchmark's ceiling:
no method that learns the agents from the same data can do better in
expectation (with ``answer="map"`` and the protocol's cutoff off, on the benchmark's metric).
Its assumption, shared with the data: agents are the planner, and each
episode's mission is the first one sampled (a mission abandoned part-way is not
modelled).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marple_eval.evidence import AgentEvidence
from marple_eval.inverse.base import ReachTerm, WhodunitInversePlanning, as_prior
from marple_eval.inverse.likelihood import MissionTracker
from marple_eval.success import SuccessRule
from marple_gym.missions.mission import get_mission
from marple_gym.world.actions import Outcome
from marple_gym.world.world import World


class IdealObserver(WhodunitInversePlanning):
    """Exact Bayesian inverse planning with the true planner (see module docs): the family's answer key."""

    name = "ideal"
    role = "answer_key"

    def __init__(self, rollouts: int = 100, **protocol: Any) -> None:
        super().__init__(rollouts, **protocol)

    def setup(self, agents: Mapping[str, Any]) -> None:
        """Receive each agent's :class:`MissionPrior` (or a ``{mission: probability}`` mapping)."""
        self.priors = {identity: as_prior(resource, "the ideal observer") for identity, resource in agents.items()}
        self._episodes = {}

    def _state(self, agent: AgentEvidence) -> tuple[dict[str, MissionTracker], dict, World]:
        """One tracker per mission of the agent's prior, the planning work its rollouts share (see
        :class:`~marple_eval.inverse.likelihood.CachingPlanner`) and its world at the start."""
        prior, n = self.prior_of(agent), len(agent.actions)

        def fresh() -> tuple[dict[str, MissionTracker], dict, World]:
            start = agent.world(0)
            return {m: MissionTracker(start, get_mission(m)) for m in prior}, {}, start

        return self.episode_state(agent, fresh, lambda state: any(t.actions > n for t in state[0].values()))

    def trackers(self, agent: AgentEvidence) -> dict[str, MissionTracker]:
        """The trackers advanced to the evidence's tau (reused across an episode's evidence points)."""
        trackers = self._state(agent)[0]
        actions = agent.actions.tolist()
        for tracker in trackers.values():
            for action in actions[tracker.actions :]:
                tracker.observe_action(action)
        return trackers

    def replay(self, agent: AgentEvidence) -> tuple[World, list[Outcome]]:
        return agent.replays([agent.tau], start=self._state(agent)[2])[0]

    def log_likelihoods(self, agent: AgentEvidence) -> dict[str, float]:
        return {m: t.log_likelihood for m, t in self.trackers(agent).items()}

    def progress_index(self, agent: AgentEvidence, mission: str) -> int:
        tracker = self.trackers(agent)[mission]
        done = tracker.done or tracker.abandoned
        return len(tracker.mission.subgoals) if done else tracker.progress.index

    def reach_probability(self, agent: AgentEvidence, term: ReachTerm, query: SuccessRule) -> float:
        tracker, cache = self.trackers(agent)[term.mission], self._state(agent)[1]
        hits = 0
        for _ in range(term.rollouts):
            hits += tracker.continuation(term.world, term.rng, cache).reaches(query, term.steps)
        return hits / term.rollouts
