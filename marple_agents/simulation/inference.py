"""Simulation inference with learned agent models (paper section 5, Algorithm E.1).

For each agent, restore its world at tau, roll out its agent model ``m`` times
with the true simulator as the world model, and count how often it reaches the
query state; then ``P(A), P(B) = softmax(eta * P(query | A), eta * P(query | B))``
with ``eta = 5``.

Horizon (the paper's rule, kept as the default): roll out until step T + 10,
where T is the step at which the query state was reached; when more than 40
steps remain until T, give probability 0 without rolling out (both agents then
get 0 and the answer is 0.5). ``margin`` and ``max_remaining`` change this;
``max_remaining=None`` always rolls out.

Variants: ``vision`` (vision-only policy), ``audio`` (+ the sound at tau
refines the first action), ``language`` (language-conditioned policy, latest
intent), ``all`` (language + audio). The agent model of each agent is set up
from the run's resources: a checkpoint path (a learned policy) or
``{"planner": preferences}`` (the true planner: a perfect agent model, the
upper bound).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from marple_agents.simulation.agent_models import PlannerAgent, PolicyAgent, RolloutAgent
from marple_agents.simulation.rollouts import query_probability
from marple_eval.evidence import AUDIO, LANGUAGE, VISION, AgentEvidence, TrialEvidence
from marple_eval.models.base import InferenceModel, rollout_steps, softmax_answer

VARIANTS: dict[str, frozenset[str]] = {
    "vision": frozenset({VISION}),
    "audio": frozenset({VISION, AUDIO}),
    "language": frozenset({VISION, LANGUAGE}),
    "all": frozenset({VISION, AUDIO, LANGUAGE}),
}
POLICY_OF_VARIANT = {"vision": "vision", "audio": "vision", "language": "language", "all": "language"}
"""Which learned policy each variant rolls out: vision-only, or language-conditioned."""
VARIANT_LABELS = {
    "vision": "Vision only",
    "audio": "Vision+Audio",
    "language": "Vision+Language",
    "all": "Vision+Audio+Language",
}


class SimulationModel(InferenceModel):
    """Monte Carlo simulation inference (see module docs)."""

    def __init__(
        self,
        variant: str = "vision",
        rollouts: int = 100,
        eta: float = 5.0,
        margin: int = 10,
        max_remaining: int | None = 40,
        seed: int = 0,
        device: str = "cpu",
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
        if rollouts < 1:
            raise ValueError(f"rollouts must be at least 1, got {rollouts}")
        self.variant = variant
        self.modalities = VARIANTS[variant]
        self.name = f"simulation-{variant}"
        self.rollouts = int(rollouts)
        self.eta = float(eta)
        self.margin = int(margin)
        self.max_remaining = None if max_remaining is None else int(max_remaining)
        self.seed = int(seed)
        self.device = device
        self.agents: dict[str, RolloutAgent] = {}

    def settings(self) -> dict[str, Any]:
        return {
            **super().settings(),
            "variant": self.variant,
            "rollouts": self.rollouts,
            "eta": self.eta,
            "margin": self.margin,
            "max_remaining": self.max_remaining,
            "seed": self.seed,
        }

    def setup(self, agents: Mapping[str, Any]) -> None:
        self.agents = {identity: self._agent_model(resource) for identity, resource in agents.items()}

    def _agent_model(self, resource: Any) -> RolloutAgent:
        if isinstance(resource, RolloutAgent):
            return resource
        if isinstance(resource, dict) and "planner" in resource:
            return PlannerAgent(resource["planner"])
        from marple_agents import load_policy

        policy = load_policy(resource, device=self.device) if isinstance(resource, str) else resource
        return PolicyAgent(policy, use_language=LANGUAGE in self.modalities, use_audio=AUDIO in self.modalities)

    def query_probability(self, agent: AgentEvidence, trial: TrialEvidence) -> float:
        """P(query | agent): 1 if the evidence shows the agent reaching it, else the fraction of rollouts that do."""
        steps = rollout_steps(trial, self.margin, self.max_remaining)
        if steps is None:
            return 0.0
        if agent.identity not in self.agents:
            raise ValueError(f"no agent model was set up for {agent.identity}; the run must provide one per agent")
        world, outcomes = agent.replay()
        if any(trial.query.matches(o, world.house) for o in outcomes):
            return 1.0
        last = agent.vision[-1]
        rng = np.random.default_rng(
            [self.seed, zlib.crc32(agent.identity.encode()), trial.tau, zlib.crc32(last.tobytes())]
        )
        return query_probability(world, self.agents[agent.identity], agent, trial.query, steps, self.rollouts, rng)

    def predict(self, trial: TrialEvidence) -> tuple[float, float]:
        return softmax_answer(*(self.query_probability(agent, trial) for agent in trial.agents), self.eta)
