"""Monte Carlo rollouts: how often an agent model reaches the query state (Algorithm E.1).

The ``m`` rollouts of one agent at one evidence point are ``m`` episodes of one
batched world (:class:`~marple_gym.world.batch.BatchedState`), stepped in
lockstep: each step asks the agent model for a batch of actions (one policy
forward pass) and applies them all at once with the vectorised world rules.
Agent models see the rollouts as :class:`~marple_gym.world.world.World` objects
whose states are views into the batch (the planner steps nothing itself; a
learned policy reads the stacked grids directly).
"""

from __future__ import annotations

import numpy as np

from marple_agents.simulation.agent_models import RolloutAgent
from marple_eval.evidence import AgentEvidence
from marple_gym.missions.batch import subgoal_reached
from marple_gym.missions.mission import Subgoal
from marple_gym.world.actions import Action
from marple_gym.world.batch import BatchedState, apply_actions
from marple_gym.world.world import World

IDLE = int(Action.idle)


class RolloutWorlds(list):
    """The rollouts' worlds, views into one :class:`BatchedState` (``batch``)."""

    def __init__(self, world: World, rollouts: int) -> None:
        self.batch = BatchedState.repeat(world.state, rollouts)
        super().__init__(World(world.house, self.batch.view(i)) for i in range(rollouts))


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
    worlds = RolloutWorlds(world, rollouts)
    agent.reset(worlds, evidence, rng)
    house, batch = world.house, worlds.batch
    active = list(range(rollouts))
    actions = np.full(rollouts, IDLE, dtype=np.int64)  # finished rollouts idle: idling changes nothing
    hits = 0
    for _ in range(steps):
        actions[active] = agent.act(active, rng)
        out = apply_actions(house, batch, 0, actions)
        agent.observe(active, [out.row(i) for i in active])
        reached = subgoal_reached(query, house, out)[active]
        hits += int(reached.sum())
        actions[active] = IDLE
        active = [i for i, hit in zip(active, reached.tolist()) if not hit]
        if not active:
            break
    return hits / rollouts
