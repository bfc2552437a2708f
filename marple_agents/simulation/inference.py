"""Simulation inference with learned agent models (paper section 5, Algorithm E.1).

For each agent, restore its world at tau, roll out its agent model ``m`` times
with the true simulator as the world model, and count how often it reaches the
query state within the protocol's horizon (T + margin); the protocol's rule
then combines the two (softmax with eta = 5 by default; see
:class:`marple_eval.protocol.ProtocolSettings`, which also applies the cutoff).

Variants: ``vision`` (vision-only policy), ``audio`` (+ the sound at tau
refines the first action), ``language`` (language-conditioned policy, latest
intent), ``all`` (language + audio). The agent model of each agent is set up
from the run's resources: a checkpoint path (a learned policy) or
``{"planner": preferences}`` (the true planner: a perfect agent model, the
upper bound).
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from marple_agents.simulation.agent_models import PlannerAgent, PolicyAgent, RolloutAgent
from marple_agents.simulation.rollouts import query_probability
from marple_eval.evidence import AUDIO, LANGUAGE, VISION, AgentEvidence, TrialEvidence
from marple_eval.models.base import QueryModel
from marple_eval.protocol import ModelFile

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


class SimulationModel(QueryModel):
    """Monte Carlo simulation inference (see module docs)."""

    def __init__(
        self,
        variant: str = "vision",
        rollouts: int = 100,
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
        self.seed = int(seed)
        self.device = device
        self.agents: dict[str, RolloutAgent] = {}

    def settings(self) -> dict[str, Any]:
        return {
            **super().settings(),
            "variant": self.variant,
            "rollouts": self.rollouts,
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

        if isinstance(resource, ModelFile):
            resource = io.BytesIO(resource.content)
        policy = resource if hasattr(resource, "action_probs") else load_policy(resource, device=self.device)
        return PolicyAgent(policy, use_language=LANGUAGE in self.modalities, use_audio=AUDIO in self.modalities)

    def query_probability(self, agent: AgentEvidence, trial: TrialEvidence) -> float:
        """P(query | agent): 1 if the evidence shows the agent reaching it, else the fraction of rollouts that do."""
        if agent.identity not in self.agents:
            raise ValueError(f"no agent model was set up for {agent.identity}; the run must provide one per agent")
        world, outcomes = agent.replay()
        if any(trial.query.matches(o, world.house) for o in outcomes):
            return 1.0
        # Seeded by what was observed, never by the identity: identities are salted per run,
        # and the figures must not depend on the salt.
        first, last = agent.vision[0], agent.vision[-1]
        rng = np.random.default_rng([self.seed, trial.tau, zlib.crc32(first.tobytes()), zlib.crc32(last.tobytes())])
        agent_model = self.agents[agent.identity]
        return query_probability(world, agent_model, agent, trial.query, trial.steps_left, self.rollouts, rng)
