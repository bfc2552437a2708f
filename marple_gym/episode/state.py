"""One episode: the world, each acting agent's mission progress, the step count, and its one transition.

An :class:`EpisodeState` is everything that changes while an episode runs, so a
snapshot of it restores the episode exactly. It carries the fingerprint of the
house it belongs to, and refuses to be restored into another house.

:meth:`EpisodeState.advance` is the one transition of an episode: every acting
agent's action through the world's rules, then every agent's mission progress.
Simultaneous actions are resolved in agent order: acting agent 0's action
applies first and agent 1's sees its effects (two agents cannot step into one
cell, or pick up one object: the second finds it taken and fails). A door never
closes on an agent standing in it (see the rules in docs/world.md). The batched
shape of the same episode is :class:`~marple_gym.episode.batch.EpisodeBatch`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from marple_gym.episode.observe import OBSERVATION_KEYS, observe
from marple_gym.errors import MarpleError
from marple_gym.missions.mission import Mission
from marple_gym.missions.progress import MissionProgress, moves_progress
from marple_gym.world.actions import Outcome
from marple_gym.world.house import House
from marple_gym.world.rules import apply_action
from marple_gym.world.state import WorldState
from marple_gym.world.world import World


class SnapshotMismatchError(MarpleError):
    """An episode snapshot was restored into a house other than the one it was taken in."""


class AgentStep(NamedTuple):
    """What one acting agent's action did: its outcome and the subgoal it achieved (None if none)."""

    outcome: Outcome
    achieved: int | None


@dataclass(eq=False)
class EpisodeState:
    """One episode in one house, for any number of acting agents.

    ``agents[i]`` is the world's index of acting agent ``i``; ``progress[i]`` is
    its mission progress (None for an agent whose mission nobody scores; a
    planner acting in the episode keeps its own here, with its policy
    :attr:`MissionProgress.skips_infeasible` False) and ``last_outcomes[i]`` what its last
    action did (None before its first). ``house_fingerprint`` names the house the
    state belongs to (:attr:`House.fingerprint`).
    """

    world: WorldState
    agents: tuple[int, ...]
    progress: tuple[MissionProgress | None, ...]
    last_outcomes: tuple[Outcome | None, ...]
    house_fingerprint: str
    step_count: int = 0

    def __post_init__(self) -> None:
        n = len(self.agents)
        if len(self.progress) != n or len(self.last_outcomes) != n:
            raise ValueError(
                f"an episode of {n} acting agents needs {n} progress trackers and {n} last outcomes, "
                f"got {len(self.progress)} and {len(self.last_outcomes)}"
            )

    @classmethod
    def start(
        cls,
        house: House,
        world: WorldState,
        missions: tuple[Mission | None, ...],
        agents: tuple[int, ...] | None = None,
    ) -> EpisodeState:
        """The first state of an episode: ``missions[i]`` for acting agent ``i`` (agents 0.. by default)."""
        agents = tuple(range(len(missions))) if agents is None else tuple(agents)
        progress = tuple(None if m is None else MissionProgress(m, agent=a) for m, a in zip(missions, agents))
        return cls(world, agents, progress, (None,) * len(agents), house.fingerprint)

    def copy(self, world: WorldState | None = None) -> EpisodeState:
        """An independent copy (the world arrays and the progress trackers are copied); ``world``: the copy's
        world instead of a copy of this one's (a view of a copied batch's row)."""
        world = self.world.copy() if world is None else world
        return replace(self, world=world, progress=tuple(p and p.copy() for p in self.progress))

    def advance(self, house: House, actions: Sequence[int]) -> tuple[AgentStep, ...]:
        """Apply one action of each acting agent in place (the rules), then update each one's mission progress."""
        if len(actions) != len(self.agents):
            raise ValueError(f"expected {len(self.agents)} actions (one per acting agent), got {len(actions)}")
        state = self.world
        if len(actions) == 1:  # one acting agent, as in every single env: its step is a tenth cheaper without lists
            outcomes = (apply_action(house, state, self.agents[0], int(actions[0])),)
        else:
            outcomes = tuple([apply_action(house, state, agent, int(a)) for agent, a in zip(self.agents, actions)])
        return self.follow(house, outcomes)

    def follow(self, house: House, outcomes: tuple[Outcome, ...]) -> tuple[AgentStep, ...]:
        """The second half of :meth:`advance`: each acting agent's progress follows its outcome, the world being
        already the one the outcomes left (a transition a caching planner looked up rather than applied)."""
        if len(outcomes) == 1:  # one acting agent, as in advance
            (outcome,), (progress,) = outcomes, self.progress
            # Most outcomes move no progress on: those steps need no view of the world.
            moves = progress is not None and moves_progress(outcome)
            steps = (AgentStep(outcome, progress.update(outcome, World(house, self.world)) if moves else None),)
        else:
            view = World(house, self.world)
            steps = tuple(
                [AgentStep(o, None if p is None else p.update(o, view)) for p, o in zip(self.progress, outcomes)]
            )
        self.last_outcomes = outcomes
        self.step_count += 1
        return steps

    def skip_infeasible(self, house: House) -> None:
        """Pass over the skippable subgoals each tracked mission cannot do in the world as it is (an episode that
        starts, or resumes, where some are already out of reach), for trackers whose policy it is
        (:attr:`MissionProgress.skips_infeasible`); :meth:`advance` does so after every change."""
        view = World(house, self.world)
        for p in self.progress:
            if p is not None and p.skips_infeasible:
                p.skip_infeasible(view)

    def track(self, agent: int, progress: MissionProgress | None) -> None:
        """Make ``progress`` acting agent ``agent``'s mission progress (a planner that takes up a new mission)."""
        self.progress = self.progress[:agent] + (progress,) + self.progress[agent + 1 :]

    def observe(self, house: House, agent: int = 0, keys: Sequence[str] = OBSERVATION_KEYS, **options: Any) -> dict:
        """Acting agent ``agent``'s observation (:func:`marple_gym.episode.observe.observe`, with its options)."""
        return observe(house, self, agent, keys, **options)

    @property
    def complete(self) -> tuple[bool, ...]:
        """For each acting agent: has it achieved or passed over every subgoal (False without a mission)?"""
        return tuple(p is not None and p.complete for p in self.progress)

    def check_house(self, house: House) -> None:
        """Raise :class:`SnapshotMismatchError` unless this state belongs to ``house``."""
        if self.house_fingerprint != house.fingerprint:
            raise SnapshotMismatchError(
                f"this episode state belongs to house {self.house_fingerprint[:12]}, "
                f"not to house {house.fingerprint[:12]}: restore it into the env whose house it was taken in"
            )
