"""Many episodes stepped together: the batched shape of :class:`~marple_gym.episode.state.EpisodeState`.

An :class:`EpisodeBatch` is ``N`` episodes of one house (or of houses of equal
shapes, a :class:`~marple_gym.world.house_batch.HouseBatch`) as stacked arrays,
with the same verbs as one episode: :meth:`~EpisodeBatch.start`,
:meth:`~EpisodeBatch.advance` (the vectorised rules, then each acting agent's
mission progress over arrays), :meth:`~EpisodeBatch.observe` and
:meth:`~EpisodeBatch.copy`. The vectorised rules are the scalar ones action for
action (the equivalence tests compare them over random episodes), so a batch of
one steps exactly as the episode would.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from marple_gym.episode.observe import OBSERVATION_KEYS, observe
from marple_gym.missions.batch import BatchProgress, MissionTable
from marple_gym.world.batch import apply_actions
from marple_gym.world.batched_state import BatchedState, BatchOutcome
from marple_gym.world.house import House
from marple_gym.world.house_batch import HouseBatch
from marple_gym.world.state import WorldState


class BatchStep(NamedTuple):
    """What one acting agent's actions did in every episode: the outcomes, and the subgoal each achieved
    ((N,) int, -1: none; None when the agent's mission is not tracked)."""

    outcome: BatchOutcome
    achieved: np.ndarray | None


@dataclass(eq=False)
class EpisodeBatch:
    """``N`` episodes, each field of :class:`EpisodeState` with a leading episode axis.

    ``agents[i]`` is the world's index of acting agent ``i``; ``progress[i]`` its
    missions' progress in every episode (None where nobody scores it, such as
    rollouts whose agent models keep their own) and ``last_outcomes[i]`` what its
    last actions did (None before the first). ``step_count[e]`` counts episode
    ``e``'s steps since it (re)started.
    """

    world: BatchedState
    agents: tuple[int, ...]
    progress: tuple[BatchProgress | None, ...]
    last_outcomes: tuple[BatchOutcome | None, ...]
    step_count: np.ndarray

    @classmethod
    def start(
        cls,
        world: BatchedState,
        table: MissionTable | None = None,
        missions: Sequence[np.ndarray | None] = (None,),
        agents: tuple[int, ...] | None = None,
    ) -> EpisodeBatch:
        """The first states of ``N`` episodes (``world`` is taken, not copied): acting agent ``i`` works on
        ``table.missions[missions[i][e]]`` in episode ``e`` (None: no mission tracked); agents 0.. by default."""
        agents = tuple(range(len(missions))) if agents is None else tuple(agents)
        if len(agents) != len(missions):
            raise ValueError(f"{len(agents)} acting agents need {len(agents)} mission arrays, got {len(missions)}")
        if table is None and any(m is not None for m in missions):
            raise ValueError("tracking missions needs their MissionTable")
        progress = tuple(None if m is None else BatchProgress(table, m) for m in missions)
        n = len(world)
        return cls(world, agents, progress, (None,) * len(agents), np.zeros(n, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.world)

    def advance(self, house: House | HouseBatch, actions: np.ndarray) -> tuple[BatchStep, ...]:
        """Apply one action of each acting agent in every episode in place (the rules), then update each one's
        mission progress. ``actions`` is (N,) for one acting agent, or (N, acting agents); agents act in order."""
        actions = np.asarray(actions)
        if len(self.agents) == 1 and actions.ndim == 1:
            columns = (actions,)  # one acting agent: the common case, without a strided column view
        elif actions.ndim == 2 and actions.shape[1] == len(self.agents):
            columns = tuple(np.ascontiguousarray(actions[:, i]) for i in range(len(self.agents)))
        else:
            raise ValueError(
                f"expected actions of shape ({len(self)}, {len(self.agents)}), one per episode and acting agent, "
                f"got {actions.shape}"
            )
        outcomes = tuple(apply_actions(house, self.world, agent, a) for agent, a in zip(self.agents, columns))
        steps = tuple(
            BatchStep(out, None if p is None else p.update(house, self.world, agent, out))
            for p, agent, out in zip(self.progress, self.agents, outcomes)
        )
        self.last_outcomes = outcomes
        self.step_count += 1
        return steps

    def restart(self, rows: np.ndarray, start: WorldState, missions: Sequence[np.ndarray] = ()) -> None:
        """Start episodes ``rows`` over from ``start`` with new missions (one array per tracked acting agent)."""
        self.world.assign(rows, start)
        tracked = [p for p in self.progress if p is not None]
        if len(missions) != len(tracked):
            raise ValueError(f"restarting needs {len(tracked)} mission arrays (one per tracked agent)")
        for p, m in zip(tracked, missions):
            p.restart(rows, m)
        self.step_count[rows] = 0

    def observe(
        self, house: House | HouseBatch, agent: int = 0, keys: Sequence[str] = OBSERVATION_KEYS, **options: Any
    ) -> dict[str, Any]:
        """Acting agent ``agent``'s observations in every episode (:func:`marple_gym.episode.observe.observe`)."""
        return observe(house, self, agent, keys, **options)

    def copy(self) -> EpisodeBatch:
        """An independent copy (the arrays and the progress trackers are copied)."""
        return replace(
            self,
            world=self.world.copy(),
            progress=tuple(p and p.copy() for p in self.progress),
            step_count=self.step_count.copy(),
        )
