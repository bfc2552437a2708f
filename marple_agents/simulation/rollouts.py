"""Monte Carlo rollouts: how often an agent model reaches the query state (Algorithm E.1).

The ``m`` rollouts of one agent at one evidence point run in lockstep: each
step asks the agent model for a batch of actions (one policy forward pass) and
applies them with the true world rules to cheap clones of the world at tau.
"""

from __future__ import annotations

import numpy as np

from marple_agents.simulation.agent_models import RolloutAgent
from marple_eval.evidence import AgentEvidence
from marple_gym.missions.mission import Subgoal
from marple_gym.world.rules import apply_action
from marple_gym.world.world import World


def query_probability(
    world: World,
    agent: RolloutAgent,
    evidence: AgentEvidence,
    query: Subgoal,
    steps: int,
    rollouts: int,
    rng: np.random.Generator,
) -> float:
    """Fraction of ``rollouts`` in which the agent reaches ``query`` within ``steps`` actions."""
    if steps <= 0 or rollouts <= 0:
        return 0.0
    worlds = [world.clone() for _ in range(rollouts)]
    agent.reset(worlds, evidence, rng)
    house = world.house
    active = list(range(rollouts))
    hits = 0
    for _ in range(steps):
        actions = agent.act(active, rng)
        outcomes = [apply_action(house, worlds[i].state, 0, a) for i, a in zip(active, actions)]
        agent.observe(active, outcomes)
        still = []
        for i, outcome in zip(active, outcomes):
            if query.matches(outcome, house):
                hits += 1
            else:
                still.append(i)
        active = still
        if not active:
            break
    return hits / rollouts
