"""The one transition of an episode: every acting agent's action, then every agent's mission progress.

The Gymnasium env, the planner's recorder and the simulation rollouts all step
episodes through :func:`step` (or :func:`advance`, the same rule applied in place
where the caller owns the state and a copy per step would be waste).

Simultaneous actions are resolved in agent order: acting agent 0's action
applies first and agent 1's sees its effects (two agents cannot step into one
cell, or pick up one object: the second finds it taken and fails). A door never
closes on an agent standing in it (see the rules in docs/world.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from marple_gym.episode.state import EpisodeState
from marple_gym.world.actions import Outcome
from marple_gym.world.house import House
from marple_gym.world.rules import apply_action
from marple_gym.world.world import World


class AgentStep(NamedTuple):
    """What one acting agent's action did: its outcome and the subgoal it achieved (None if none)."""

    outcome: Outcome
    achieved: int | None


def step(house: House, episode: EpisodeState, actions: Sequence[int]) -> tuple[EpisodeState, tuple[AgentStep, ...]]:
    """The episode after one action of each acting agent; ``episode`` itself is left unchanged."""
    after = episode.copy()
    return after, advance(house, after, actions)


def advance(house: House, episode: EpisodeState, actions: Sequence[int]) -> tuple[AgentStep, ...]:
    """Apply one action of each acting agent to ``episode`` in place; the rule :func:`step` applies."""
    if len(actions) != len(episode.agents):
        raise ValueError(f"expected {len(episode.agents)} actions (one per acting agent), got {len(actions)}")
    state = episode.world
    outcomes = tuple([apply_action(house, state, agent, int(a)) for agent, a in zip(episode.agents, actions)])
    view = World(house, state)
    steps = tuple([AgentStep(o, None if p is None else p.update(o, view)) for p, o in zip(episode.progress, outcomes)])
    episode.last_outcomes = outcomes
    episode.step_count += 1
    return steps
