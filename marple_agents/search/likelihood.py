"""How likely an agent's observed actions are under each of its possible missions, for a searching agent model.

Under mission ``m`` the agent at observed step ``t`` is in the world its
actions so far made, part-way through ``m`` (its progress tracked by the
mission's own state machine on the true world, as the environment tracks it),
and draws its action from the search's distribution there
(:meth:`MissionSearch.policy <marple_agents.search.missions.MissionSearch.policy>`)::

    log P(actions to tau | m) = sum_t log pi_K(a_t | s_t, m)

Each probability is floored at :data:`MIN_PROBABILITY`, so one surprising action
does not rule a mission out. With no simulation the search's distribution is
the policy's, which does not depend on the mission (the mission sets only the
search's reward): the likelihood is then the same under every mission and the
posterior is the prior.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from marple_agents.search.missions import MissionSearch
from marple_gym.episode import EpisodeState
from marple_gym.missions.mission import Mission
from marple_gym.world.batched_state import BatchedState
from marple_gym.world.state import WorldState
from marple_gym.world.world import World

MIN_PROBABILITY = 1e-6
"""A floor on a learned agent model's action probabilities, so one surprising action does not rule a mission out."""


@dataclass(frozen=True)
class MissionTrace:
    """An agent's observed actions replayed under one mission: the world before each action (``states[t]``) and
    how many of the mission's subgoals were behind it there (``indices[t]``, one more entry: after the last)."""

    states: tuple[WorldState, ...]
    indices: tuple[int, ...]


def mission_trace(start: World, actions: Sequence[int], mission: Mission) -> MissionTrace:
    """Replay ``actions`` from ``start`` (a copy is stepped), tracking ``mission``'s progress as the environment does."""
    episode = EpisodeState.start(start.house, start.state.copy(), (mission,))
    episode.skip_infeasible(start.house)
    states, indices = [], []
    for action in np.asarray(actions, dtype=np.int64).tolist():
        states.append(episode.world.copy())
        indices.append(episode.progress[0].index)
        episode.advance(start.house, (action,))
    indices.append(episode.progress[0].index)
    return MissionTrace(tuple(states), tuple(indices))


def step_log_likelihoods(
    search: MissionSearch,
    start: World,
    actions: Sequence[int],
    traces: Sequence[MissionTrace],
    subgoals: np.ndarray | None = None,
) -> np.ndarray:
    """(missions, steps): log pi_K(a_t | s_t, m) for each mission of ``search``'s table (``traces[m]``, its trace)
    and observed step ``t``, all in one search. ``subgoals``: with a search that carries a subgoal down its trees,
    the (steps, 4) codes its prior is given at each step's root (None: a vision-only prior)."""
    actions = np.asarray(actions, dtype=np.int64)
    steps, missions = len(actions), len(traces)
    if not steps:
        return np.zeros((missions, 0))
    states = BatchedState.stack([s for trace in traces for s in trace.states])
    mission = np.repeat(np.arange(missions, dtype=np.int64), steps)
    index = np.array([i for trace in traces for i in trace.indices[:steps]], dtype=np.int64)
    roots = None if subgoals is None else np.tile(np.asarray(subgoals, dtype=np.int64)[:steps], (missions, 1))
    probs = search.policy(start.house, states, mission, index, roots)
    taken = probs[np.arange(len(probs)), np.tile(actions, missions)]
    return np.log(np.maximum(taken, MIN_PROBABILITY)).reshape(missions, steps)
