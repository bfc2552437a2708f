"""The typed state of one episode: the world, each acting agent's mission progress, the step count.

An :class:`EpisodeState` is everything that changes while an episode runs, so a
snapshot of it restores the episode exactly. It carries the fingerprint of the
house it belongs to, and refuses to be restored into another house.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from marple_gym.errors import MarpleError
from marple_gym.missions.mission import Mission
from marple_gym.missions.progress import MissionProgress
from marple_gym.world.actions import Outcome
from marple_gym.world.house import House
from marple_gym.world.state import WorldState


class SnapshotMismatchError(MarpleError):
    """An episode snapshot was restored into a house other than the one it was taken in."""


@dataclass(eq=False)
class EpisodeState:
    """One episode in one house, for any number of acting agents.

    ``agents[i]`` is the world's index of acting agent ``i``; ``progress[i]`` is
    its mission progress (None for an agent whose mission nobody scores, such as
    a recorded planner that keeps its own) and ``last_outcomes[i]`` what its last
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

    def copy(self) -> EpisodeState:
        """An independent copy (the world arrays and the progress trackers are copied)."""
        return replace(self, world=self.world.copy(), progress=tuple(p and p.copy() for p in self.progress))

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
