"""Mission progress of many episodes at once: :class:`MissionProgress`'s rules over arrays.

The subgoals of the missions in play are encoded as integer tables, so matching
a batch of outcomes against each episode's current subgoal is a handful of
numpy operations. Passing over infeasible skippable subgoals needs a
reachability check per episode; it runs through the scalar
:func:`~marple_gym.missions.feasibility.is_feasible` on a view of that episode,
and only for the few episodes whose current subgoal is skippable after an
interaction.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from marple_gym.missions.feasibility import is_feasible
from marple_gym.missions.mission import Mission, Subgoal
from marple_gym.world.actions import Action
from marple_gym.world.batched_state import BatchedState, BatchOutcome
from marple_gym.world.house import House
from marple_gym.world.house_batch import HouseBatch
from marple_gym.world.world import World

_FORWARD = int(Action.forward)
DONE_CODES = (-1, -1, -1, -1)
"""The subgoal codes of a complete mission, as datasets and policies write them."""
_POLICY_CODES = [0, 3, 1, 2]
"""A mission table's code columns (action, furniture, room, object) in :attr:`Subgoal.codes`' order (action,
object, furniture, room)."""


def outcomes_match(codes: np.ndarray, house: House | HouseBatch, out: BatchOutcome, rows: np.ndarray) -> np.ndarray:
    """:meth:`Subgoal.matches` for outcome rows ``rows``: ``codes`` is (len(rows), 5) or (5,), as ``Subgoal._codes``.

    ``house`` is the episodes' one house or a :class:`HouseBatch` of one house per episode.
    """
    houses = HouseBatch.of(house)
    action, fur_code, room_code, obj_code, value = np.asarray(codes).T
    fur, obj = out.fur[rows], out.obj[rows]
    ok = out.success[rows] & (out.action[rows] == action) & (fur >= 0)
    ok &= houses.fur_code(rows, fur) == fur_code
    ok &= houses.room_type_at(rows, out.x[rows], out.y[rows]) == room_code
    ok &= (obj_code == 0) | ((obj >= 0) & (houses.obj_code(rows, obj) == obj_code))
    return ok & ((value < 0) | (out.value[rows] == value))


def subgoal_reached(subgoal: Subgoal, house: House | HouseBatch, out: BatchOutcome) -> np.ndarray:
    """(N,) bool: which outcomes of a batch achieve ``subgoal`` (a whodunit query, say)."""
    # Only successful interactions can: the codes are compared for those rows alone.
    reached = np.zeros(len(out.action), dtype=bool)
    rows = np.flatnonzero(out.success & (out.action == subgoal._codes[0]))
    if rows.size:
        reached[rows] = outcomes_match(np.array(subgoal._codes), house, out, rows)
    return reached


class MissionTable:
    """The subgoals of a list of missions as padded integer arrays (mission id = index in ``missions``)."""

    def __init__(self, missions: Sequence[Mission]) -> None:
        self.missions = tuple(missions)
        if not self.missions:
            raise ValueError("a mission table needs at least one mission")
        width = max(len(m.subgoals) for m in self.missions)
        self.length = np.array([len(m.subgoals) for m in self.missions], dtype=np.int64)
        # Columns of codes: action, furniture, room, object (0: none), value (-1: any); padding never matches.
        self.codes = np.full((len(self.missions), width + 1, 5), -2, dtype=np.int64)
        self.skippable = np.zeros((len(self.missions), width + 1), dtype=bool)
        for m, mission in enumerate(self.missions):
            for j, sg in enumerate(mission.subgoals):
                self.codes[m, j] = sg._codes
                self.skippable[m, j] = sg.skippable

    def policy_codes(self, mission: np.ndarray, index: np.ndarray) -> np.ndarray:
        """(R, 4) the codes of subgoal ``index[r]`` of mission ``mission[r]`` as :attr:`Subgoal.codes` gives them
        (:data:`DONE_CODES` once the mission is complete): what a language-conditioned policy is given."""
        codes = self.codes[mission, index][:, _POLICY_CODES]
        done = index >= self.length[mission]
        return np.where(done[:, None], np.array(DONE_CODES), codes)


class BatchProgress:
    """The current subgoal of each of ``N`` episodes, each with its own mission from a :class:`MissionTable`.

    ``index`` resumes the missions part-way (episode ``e`` at subgoal ``index[e]``; copied); by default each starts
    at its first subgoal.
    """

    def __init__(self, table: MissionTable, mission: np.ndarray, index: np.ndarray | None = None) -> None:
        self.table = table
        self.mission = np.asarray(mission, dtype=np.int64).copy()
        if index is None:
            self.index = np.zeros(len(self.mission), dtype=np.int64)
        else:
            self.index = np.array(index, dtype=np.int64)
            if self.index.shape != self.mission.shape:
                raise ValueError(f"{len(self.mission)} episodes need {len(self.mission)} subgoal indices")

    @property
    def complete(self) -> np.ndarray:
        return self.index >= self.table.length[self.mission]

    def copy(self) -> BatchProgress:
        """An independent copy (the table is shared)."""
        return BatchProgress(self.table, self.mission, self.index)

    def restart(self, rows: np.ndarray, mission: np.ndarray) -> None:
        """Start episodes ``rows`` over on missions ``mission``."""
        self.mission[rows] = mission
        self.index[rows] = 0

    def update(self, house: House | HouseBatch, batch: BatchedState, agent: int, out: BatchOutcome) -> np.ndarray:
        """Record one outcome per episode; return the index of the subgoal each achieved (-1: none)."""
        achieved = np.full(len(self.index), -1, dtype=np.int64)
        # Subgoals are never navigation, so only successful interactions can achieve or unblock one.
        rows = self._unfinished(np.flatnonzero(out.success & (out.action > _FORWARD)))
        searching, offset = rows, 0
        while searching.size:
            at = np.minimum(self.index[searching] + offset, self.table.codes.shape[1] - 1)
            hit = outcomes_match(self.table.codes[self.mission[searching], at], house, out, searching)
            achieved[searching[hit]] = at[hit]
            # Look further only past skippable subgoals, as far as the mission goes.
            go_on = ~hit & self.table.skippable[self.mission[searching], at]
            searching, offset = searching[go_on], offset + 1
        won = achieved >= 0
        self.index[won] = achieved[won] + 1
        self._skip_infeasible(house, batch, agent, rows)
        return achieved

    def _unfinished(self, rows: np.ndarray) -> np.ndarray:
        """Those of episodes ``rows`` whose mission is not complete (:attr:`complete` of a few, not of all)."""
        return rows[self.index[rows] < self.table.length[self.mission[rows]]]

    def _skip_infeasible(self, house: House | HouseBatch, batch: BatchedState, agent: int, rows: np.ndarray) -> None:
        rows = self._unfinished(rows)
        rows = rows[self.table.skippable[self.mission[rows], self.index[rows]]]
        for i in rows.tolist():
            world = World(HouseBatch.of(house).house(i), batch.view(i))
            mission = self.table.missions[self.mission[i]]
            while self.index[i] < len(mission.subgoals):
                subgoal = mission.subgoals[self.index[i]]
                if not subgoal.skippable or is_feasible(world, agent, subgoal):
                    break
                self.index[i] += 1
