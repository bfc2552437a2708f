"""Monte Carlo rollouts: how often an agent model reaches the query state (Algorithm E.1).

The ``m`` rollouts of one agent at one evidence point are ``m`` episodes of one
batch (:class:`~marple_gym.episode.EpisodeBatch`), stepped in lockstep: each
step asks the agent model for a batch of actions (one policy forward pass) and
advances every episode at once, the vectorised world rules, then each rollout's
mission progress. The batch carries the missions: an agent model that works on
one says so when it starts (over arrays, :meth:`EpisodeBatch.track`, or a
planner per rollout acting in its episode, :meth:`EpisodeBatch.one_by_one`),
reads the progress from the batch and moves none on itself. Finished rollouts
idle, and their missions stay where they are.

:func:`query_probabilities` puts the rollouts of several evidence points of one
agent (a group of ``m`` rows per point, each from the agent's world at that
point) into one batch, so one policy call serves all of them. Each group keeps
its own random generator, step budget and count, and draws from its generator
exactly as it would alone (:class:`RowRandom`): the answers equal those of one
:func:`query_probability` per point.

Agent models see the rollouts as :class:`~marple_gym.world.world.World` objects
whose states are views into the batch (the planner steps nothing itself; a
learned policy reads the stacked grids directly).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from marple_agents.simulation.agent_models import RolloutAgent
from marple_agents.simulation.worlds import RolloutWorlds
from marple_eval.evidence import AgentEvidence
from marple_gym.missions.batch import subgoal_reached
from marple_gym.missions.mission import Subgoal
from marple_gym.world.actions import Action
from marple_gym.world.world import World

IDLE = int(Action.idle)


class RowRandom:
    """Uniform draws for batches of rollout rows, each group's from its own generator.

    ``random(n)`` draws for the rows of :attr:`rows` (ascending, ``n`` of them):
    group by group, from the group's generator, as many as it has rows there,
    which is exactly what each group's generator would give alone.
    """

    def __init__(self, rngs: Sequence[np.random.Generator], groups: Sequence[slice]) -> None:
        self.rngs = tuple(rngs)
        self.bounds = np.array([g.start for g in groups] + [groups[-1].stop])
        self.rows = np.arange(0)

    def random(self, n: int) -> np.ndarray:
        if n != len(self.rows):
            raise ValueError(f"asked for {n} draws for {len(self.rows)} active rows")
        if len(self.rngs) == 1:
            return self.rngs[0].random(n)
        cuts = np.searchsorted(self.rows, self.bounds).tolist()
        out = np.empty(n)
        for rng, lo, hi in zip(self.rngs, cuts, cuts[1:]):
            if hi > lo:
                out[lo:hi] = rng.random(hi - lo)
        return out


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
    return query_probabilities([world], agent, [evidence], query, [steps], rollouts, [rng])[0]


def query_probabilities(
    worlds: Sequence[World],
    agent: RolloutAgent,
    evidences: Sequence[AgentEvidence],
    query: Subgoal,
    steps: Sequence[int],
    rollouts: int,
    rngs: Sequence[np.random.Generator],
) -> list[float]:
    """:func:`query_probability` for several starts of one agent (its worlds at several evidence points), in one
    batch; several starts need an agent model that can start groups (:attr:`RolloutAgent.groups_starts`)."""
    if rollouts <= 0:
        return [0.0] * len(worlds)
    # Points with no steps left reach nothing: they take no part (and draw nothing).
    live = [g for g, s in enumerate(steps) if s > 0]
    answers = [0.0] * len(worlds)
    if not live:
        return answers
    if len(live) > 1 and not agent.groups_starts:
        raise ValueError(f"{type(agent).__name__} cannot roll out several starts in one batch")
    starts = RolloutWorlds([worlds[g] for g in live], rollouts)
    if len(live) == 1:
        agent.reset(starts, evidences[live[0]], rngs[live[0]])
    else:
        agent.reset_groups(starts, [evidences[g] for g in live], [rngs[g] for g in live])
    budget = np.repeat([steps[g] for g in live], rollouts)
    hits = _roll_out(starts, agent, query, budget, RowRandom([rngs[g] for g in live], starts.groups))
    for g, count in zip(live, np.add.reduceat(hits, [s.start for s in starts.groups]).tolist()):
        answers[g] = count / rollouts
    return answers


def _roll_out(worlds: RolloutWorlds, agent: RolloutAgent, query: Subgoal, budget: np.ndarray, draws: RowRandom):
    """(N,) int: 1 for each rollout row that reached ``query`` within its budget of steps."""
    house, episodes = worlds.house, worlds.episodes
    n = len(episodes)
    actions = np.full(n, IDLE, dtype=np.int64)  # finished rollouts idle: idling changes nothing
    hits = np.zeros(n, dtype=np.int64)
    active = np.arange(n)
    for t in range(int(budget.max())):
        draws.rows = active
        actions[active] = agent.act(active, draws)
        (step,) = episodes.advance(house, actions, acting=active)  # the rules, then each rollout's progress
        agent.observe(active, step)
        reached = subgoal_reached(query, house, step.outcome)[active]
        hits[active[reached]] = 1
        actions[active] = IDLE
        active = active[~reached & (budget[active] > t + 1)]
        if not active.size:
            break
    return hits
