"""Many episodes stepped together: the batched shape of :class:`~marple_gym.episode.state.EpisodeState`.

An :class:`EpisodeBatch` is ``N`` episodes of one house (or of houses of equal
shapes, a :class:`~marple_gym.world.house_batch.HouseBatch`) as stacked arrays,
with the same verbs as one episode: :meth:`~EpisodeBatch.start`,
:meth:`~EpisodeBatch.advance` (the vectorised rules, then each acting agent's
mission progress), :meth:`~EpisodeBatch.observe` and
:meth:`~EpisodeBatch.copy`. The vectorised rules are the scalar ones action for
action (the equivalence tests compare them over random episodes), so a batch of
one steps exactly as the episode would.

Mission progress is kept in one of two ways, and :meth:`~EpisodeBatch.advance`
moves it on either way: over arrays (:class:`~marple_gym.missions.batch.BatchProgress`,
one per acting agent; :meth:`~EpisodeBatch.start` or :meth:`~EpisodeBatch.track`),
or one episode at a time (:meth:`~EpisodeBatch.one_by_one`: each episode an
:class:`EpisodeState` whose world is a view of its row, for trackers that arrays
cannot hold, such as a planner's, which passes over, rewinds and changes
missions as it plans).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from marple_gym.episode.observe import OBSERVATION_KEYS, observe
from marple_gym.episode.state import EpisodeState
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
    missions' progress in every episode over arrays (None where nobody scores it,
    or where ``rows`` hold it) and ``last_outcomes[i]`` what its last actions did
    (None before the first). ``step_count[e]`` counts episode ``e``'s steps since
    it (re)started. ``rows``, once :meth:`one_by_one` made them, are the episodes
    one at a time, each holding its agents' progress.
    """

    world: BatchedState
    agents: tuple[int, ...]
    progress: tuple[BatchProgress | None, ...]
    last_outcomes: tuple[BatchOutcome | None, ...]
    step_count: np.ndarray
    rows: tuple[EpisodeState, ...] | None = None

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

    def advance(
        self, house: House | HouseBatch, actions: np.ndarray, acting: np.ndarray | None = None
    ) -> tuple[BatchStep, ...]:
        """Apply one action of each acting agent in every episode in place (the rules), then update each one's
        mission progress. ``actions`` is (N,) for one acting agent, or (N, acting agents); agents act in order.
        ``acting`` (ascending episode indices, by default all): the episodes whose missions move on; the others
        are over (finished rollouts, their agents idle) and their progress stays as it is."""
        columns = self._columns(np.asarray(actions))
        outcomes = tuple(apply_actions(house, self.world, agent, a) for agent, a in zip(self.agents, columns))
        if self.rows is None:
            achieved = self._update(house, outcomes, acting)
        else:
            achieved = self._follow_rows(house, outcomes, acting)
        self.last_outcomes = outcomes
        self.step_count += 1
        return tuple([BatchStep(out, a) for out, a in zip(outcomes, achieved)])

    def _columns(self, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        """Each acting agent's actions, one (N,) array per agent."""
        if len(self.agents) == 1 and actions.ndim == 1:
            return (actions,)  # one acting agent: the common case, without a strided column view
        if actions.ndim == 2 and actions.shape[1] == len(self.agents):
            return tuple(np.ascontiguousarray(actions[:, i]) for i in range(len(self.agents)))
        raise ValueError(
            f"expected actions of shape ({len(self)}, {len(self.agents)}), one per episode and acting agent, "
            f"got {actions.shape}"
        )

    def _update(
        self, house: House | HouseBatch, outcomes: tuple[BatchOutcome, ...], acting: np.ndarray | None
    ) -> list[np.ndarray | None]:
        """Each tracked agent's progress over arrays follows its outcomes in the ``acting`` episodes."""
        return [
            None if p is None else p.update(house, self.world, agent, _acting_only(out, acting))
            for p, agent, out in zip(self.progress, self.agents, outcomes)
        ]

    def _follow_rows(
        self, house: House | HouseBatch, outcomes: tuple[BatchOutcome, ...], acting: np.ndarray | None
    ) -> list[np.ndarray]:
        """Each ``acting`` episode on its own follows its outcomes (:meth:`EpisodeState.follow`): the subgoal each
        agent achieved in each episode (-1: none)."""
        houses = HouseBatch.of(house)
        achieved = [np.full(len(self), -1, dtype=np.int64) for _ in self.agents]
        for e in range(len(self)) if acting is None else acting.tolist():
            steps = self.rows[e].follow(houses.house(e), tuple([out.row(e) for out in outcomes]))
            for column, step in zip(achieved, steps):
                if step.achieved is not None:
                    column[e] = step.achieved
        return achieved

    def track(self, agent: int, progress: BatchProgress | None) -> None:
        """Make ``progress`` acting agent ``agent``'s missions' progress (rollouts whose agent model says which
        mission each episode is on, and how far it got)."""
        if self.rows is not None:
            raise ValueError("this batch follows its missions one episode at a time (one_by_one)")
        self.progress = self.progress[:agent] + (progress,) + self.progress[agent + 1 :]

    def one_by_one(self, house: House | HouseBatch) -> tuple[EpisodeState, ...]:
        """Follow the missions one episode at a time from now on, and return the episodes: each an
        :class:`EpisodeState` whose world is a view of its row, tracking no mission until someone tracks one in it
        (a planner acting in it, :meth:`~marple_gym.planner.HierarchicalPlanner.act_in`)."""
        if any(p is not None for p in self.progress):
            raise ValueError("this batch tracks its missions over arrays")
        houses, none = HouseBatch.of(house), (None,) * len(self.agents)
        self.rows = tuple(
            EpisodeState(self.world.view(e), self.agents, none, none, houses.house(e).fingerprint)
            for e in range(len(self))
        )
        return self.rows

    def restart(self, rows: np.ndarray, start: WorldState, missions: Sequence[np.ndarray] = ()) -> None:
        """Start episodes ``rows`` over from ``start`` with new missions (one array per tracked acting agent)."""
        if self.rows is not None:
            raise ValueError("a batch that follows its missions one episode at a time restarts none")
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
        world = self.world.copy()
        rows = None
        if self.rows is not None:  # views of the copy's rows, with copies of their trackers
            rows = tuple(r.copy(world.view(e)) for e, r in enumerate(self.rows))
        return replace(
            self,
            world=world,
            progress=tuple(p and p.copy() for p in self.progress),
            step_count=self.step_count.copy(),
            rows=rows,
        )


def _acting_only(out: BatchOutcome, acting: np.ndarray | None) -> BatchOutcome:
    """``out`` as the progress sees it: the episodes other than ``acting`` did nothing (no success)."""
    if acting is None:
        return out
    mine = np.zeros(len(out.success), dtype=bool)
    mine[acting] = True
    return out._replace(success=out.success & mine)
