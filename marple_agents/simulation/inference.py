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
upper bound). Learned policies run on ``device`` (a :class:`torch.device` or its
name, resolved by whoever chose it: :func:`marple_agents.device.resolve_device`)
in ``precision`` (see :mod:`marple_agents.device`), one copy per process shared by
every trial scored in it.

``agent="mcts"`` (our extension, not the paper's method) rolls out the
:class:`~marple_agents.simulation.mcts.MCTSAgent` instead of the plain policy:
``simulations`` steps of PUCT search over the true world before each action,
the learned policy as the prior, each rollout's mission drawn from the
posterior over the agent's missions given its observed actions (from the run's
mission prior: uniform over the scenario's missions by default). Its resource
per agent is ``{"policy": checkpoint, "prior": mission prior}``.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import numpy as np

from marple_agents.device import kind, resolve_precision
from marple_agents.search.puct import PuctSettings
from marple_agents.simulation.agent_models import PlannerAgent, PolicyAgent, RolloutAgent
from marple_agents.simulation.mcts import MCTSAgent
from marple_agents.simulation.rollouts import query_probabilities
from marple_eval.evidence import AUDIO, LANGUAGE, VISION, AgentEvidence, TrialEvidence
from marple_eval.inverse.base import as_prior
from marple_eval.methods.whodunit import QueryMethod
from marple_gym.validation import describe, is_int
from marple_gym.world.actions import Outcome
from marple_gym.world.world import World

if TYPE_CHECKING:
    import torch

VARIANTS: dict[str, frozenset[str]] = {
    "vision": frozenset({VISION}),
    "audio": frozenset({VISION, AUDIO}),
    "language": frozenset({VISION, LANGUAGE}),
    "all": frozenset({VISION, AUDIO, LANGUAGE}),
}
POLICY_OF_VARIANT = {"vision": "vision", "audio": "vision", "language": "language", "all": "language"}
"""Which learned policy each variant rolls out: vision-only, or language-conditioned."""
AGENT_MODELS = ("policy", "mcts")
"""How a learned policy is rolled out: as it is (the paper), or improved by tree search (our extension)."""
VARIANT_LABELS = {
    "vision": "Vision only",
    "audio": "Vision+Audio",
    "language": "Vision+Language",
    "all": "Vision+Audio+Language",
}


class SimulationMethod(QueryMethod):
    """Monte Carlo simulation inference (see module docs)."""

    needs_agent_models = True

    def __init__(
        self,
        variant: str = "vision",
        rollouts: int = 100,
        seed: int = 0,
        device: str | torch.device = "cpu",
        precision: str = "auto",
        agent: str = "policy",
        simulations: int = 16,
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
        if not is_int(rollouts) or rollouts < 1:  # not 1.5 or true, which int() would make 1
            raise ValueError(f"rollouts must be a whole number >= 1, got {describe(rollouts)}")
        if agent not in AGENT_MODELS:
            raise ValueError(f"unknown agent model {agent!r}; choose from {', '.join(AGENT_MODELS)}")
        self.variant = variant
        self.reads = VARIANTS[variant]
        self.agent = agent
        self.search = PuctSettings(simulations=simulations) if agent == "mcts" else None
        self.name = (
            f"simulation-{variant}" if self.search is None else f"simulation-mcts{self.search.simulations}-{variant}"
        )
        self.rollouts = int(rollouts)
        self.seed = int(seed)
        self.device = device
        self.precision = resolve_precision(self.device, precision)
        self.agents: dict[str, RolloutAgent] = {}

    def settings(self) -> dict[str, Any]:
        search = {} if self.search is None else {"agent": self.agent, **asdict(self.search)}
        return {
            **super().settings(),
            "variant": self.variant,
            "rollouts": self.rollouts,
            "seed": self.seed,
            "device": kind(self.device),
            "precision": self.precision,
            **search,
        }

    def setup(self, agents: Mapping[str, Any]) -> None:
        self.agents = {identity: self._agent_model(resource) for identity, resource in agents.items()}

    def _agent_model(self, resource: Any) -> RolloutAgent:
        if isinstance(resource, RolloutAgent):
            return resource
        if isinstance(resource, dict) and "planner" in resource:
            return PlannerAgent(resource["planner"])
        from marple_agents.policy import shared_policy  # torch (the agents extra): only when a policy runs

        language, audio = LANGUAGE in self.reads, AUDIO in self.reads
        if self.search is None:
            policy = self._checked(shared_policy(resource, self.device, self.precision))
            return PolicyAgent(policy, use_language=language, use_audio=audio)
        if not isinstance(resource, Mapping) or not {"policy", "prior"} <= set(resource):
            raise ValueError("agent=mcts needs a policy checkpoint and a mission prior per agent")
        prior = as_prior(resource["prior"], "agent=mcts").probabilities
        policy = self._checked(shared_policy(resource["policy"], self.device, self.precision))
        return MCTSAgent(policy, prior, self.search, use_language=language, use_audio=audio)

    def _checked(self, policy: Any) -> Any:
        """``policy``, if it is conditioned as this variant rolls policies out (a stand-in that does not say is
        taken as it is): a language checkpoint under ``variant=vision`` would fail at its first step."""
        wants = "language" if LANGUAGE in self.reads else "vision"
        has = getattr(policy, "conditioning", wants)
        if has != wants:
            fits = "language or all" if has == "language" else "vision or audio"
            raise ValueError(
                f"variant {self.variant!r} rolls out {wants}-conditioned policies, but a checkpoint given is "
                f"{has}-conditioned: use --model-arg variant={fits.split()[0]} (or {fits.split()[-1]}), or "
                f"{wants}-conditioned checkpoints"
            )
        return policy

    def query_probability(self, agent: AgentEvidence, trial: TrialEvidence) -> float:
        """P(query | agent): 1 if the evidence shows the agent reaching it, else the fraction of rollouts that do."""
        return self.query_probabilities([agent], [trial])[0]

    def query_probabilities(self, agents: Sequence[AgentEvidence], trials: Sequence[TrialEvidence]) -> list[float]:
        """:meth:`query_probability` of one agent at several evidence points (``agents[k]`` in ``trials[k]``), all
        rolled out in one batch when the agent model can (the answers are the same either way)."""
        if not agents:
            return []
        identity = agents[0].identity
        if identity not in self.agents or any(a.identity != identity for a in agents):
            raise ValueError(f"no agent model was set up for {identity}; the run must provide one per agent")
        agent_model = self.agents[identity]
        answers: list[float] = [1.0] * len(agents)
        todo: list[tuple[int, World, np.random.Generator]] = []
        for k, (agent, trial, (world, outcomes)) in enumerate(zip(agents, trials, _replays(agents))):
            if any(trial.success.matches(o, world.house) for o in outcomes):
                continue
            # Seeded by what was observed, never by the identity: identities are salted per run,
            # and the figures must not depend on the salt.
            first, last = agent.vision[0], agent.vision[-1]
            seed = [self.seed, trial.tau, zlib.crc32(first.tobytes()), zlib.crc32(last.tobytes())]
            todo.append((k, world, np.random.default_rng(seed)))
        # One batch per query (the evidence points of one trial share theirs), or one per point.
        groups: dict[object, list] = {}
        for item in todo:
            key = trials[item[0]].success if agent_model.groups_starts else item[0]
            groups.setdefault(key, []).append(item)
        for group in groups.values():
            ks, worlds, rngs = zip(*group)
            query = trials[ks[0]].success
            steps = [trials[k].steps_left for k in ks]
            evidences = [agents[k] for k in ks]
            found = query_probabilities(worlds, agent_model, evidences, query, steps, self.rollouts, rngs)
            for k, p in zip(ks, found):
                answers[k] = p
        return answers

    def query_probabilities_at(self, trials: Sequence[TrialEvidence]) -> list[tuple[float, ...]]:
        """Every evidence point of one trial, each suspect's rollouts at all of them in one batch."""
        if not trials:
            return []
        suspects = range(len(trials[0].agents))
        per_suspect = [self.query_probabilities([t.agents[k] for t in trials], trials) for k in suspects]
        return list(zip(*per_suspect))


def _replays(agents: Sequence[AgentEvidence]) -> list[tuple[World, list[Outcome]]]:
    """Each agent evidence's :meth:`~AgentEvidence.replay`: one replay for all when they are one agent's evidence
    at several points of one trial (one start, each one's actions a prefix of the longest one's)."""
    longest = max(agents, key=lambda a: a.tau)
    if not all(a.start == longest.start and np.array_equal(a.actions, longest.actions[: a.tau]) for a in agents):
        return [agent.replay() for agent in agents]
    order = sorted(range(len(agents)), key=lambda k: agents[k].tau)
    found = dict(zip(order, longest.replays([agents[k].tau for k in order])))
    return [found[k] for k in range(len(agents))]
