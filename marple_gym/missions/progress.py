"""Which subgoal of a mission an agent is on: the mid-level state machine's memory."""

from __future__ import annotations

from marple_gym.missions.feasibility import is_feasible
from marple_gym.missions.mission import Mission, Subgoal
from marple_gym.world.actions import NAVIGATION, Outcome
from marple_gym.world.world import World

_NAVIGATION = frozenset(int(a) for a in NAVIGATION)


def moves_progress(outcome: Outcome) -> bool:
    """Whether an outcome can change a mission's progress: only a successful interaction can (a navigation
    outcome names no furniture, so it matches no subgoal, and it changes nothing a subgoal needs)."""
    return outcome.success and outcome.action not in _NAVIGATION


class MissionProgress:
    """Tracks an agent through a mission's subgoals.

    The current subgoal is the first one neither achieved nor skipped. An action
    outcome achieves the current subgoal, or a later one if every subgoal in
    between is skippable (those are then skipped). After any change to the world,
    skippable subgoals that are no longer feasible are passed over. The mission
    is complete once every subgoal is achieved or skipped.

    ``skips_infeasible`` is the tracker's policy for that last rule: True (the
    default, an env scoring an agent) passes over infeasible skippable subgoals
    after every change; False leaves them to the one who acts, the
    :class:`~marple_gym.planner.HierarchicalPlanner`, which passes them over
    when it finds no plan for them.
    """

    __slots__ = ("mission", "agent", "index", "achieved", "skipped", "skips_infeasible")

    def __init__(self, mission: Mission, agent: int = 0, skips_infeasible: bool = True) -> None:
        self.mission = mission
        self.agent = agent
        self.skips_infeasible = skips_infeasible
        self.index = 0
        self.achieved: list[int] = []
        self.skipped: list[int] = []

    @property
    def complete(self) -> bool:
        return self.index >= len(self.mission.subgoals)

    @property
    def current(self) -> Subgoal | None:
        """The subgoal the agent works on now (None once complete)."""
        return None if self.complete else self.mission.subgoals[self.index]

    def match(self, outcome: Outcome, world: World) -> int | None:
        """Index of the subgoal this outcome achieves, without changing the tracker."""
        for j in range(self.index, len(self.mission.subgoals)):
            sg = self.mission.subgoals[j]
            if sg.matches(outcome, world.house):
                return j
            if not sg.skippable:
                return None
        return None

    def update(self, outcome: Outcome, world: World) -> int | None:
        """Record one action outcome; return the index of the subgoal it achieved, if any."""
        if not moves_progress(outcome):
            return None
        j = self.match(outcome, world)
        if j is not None:
            self.skipped.extend(range(self.index, j))
            self.achieved.append(j)
            self.index = j + 1
        if self.skips_infeasible:
            self.skip_infeasible(world)
        return j

    def skip_current(self) -> None:
        """Pass over the current subgoal (only a skippable one may be passed over)."""
        if not self.current.skippable:
            raise ValueError(f"subgoal {self.current.name} is required and cannot be skipped")
        self.skipped.append(self.index)
        self.index += 1

    def pass_over(self) -> None:
        """Pass over the current subgoal, required or not, because its state already holds.

        Only a house shared with other agents needs this: another agent may have done it (opened the
        laundry this agent was about to open).
        """
        self.skipped.append(self.index)
        self.index += 1

    def rewind(self, index: int) -> None:
        """Go back to subgoal ``index`` (an earlier one) and forget what was achieved or passed over since.

        Only a house shared with other agents needs this: another agent may undo what an earlier subgoal did.
        """
        if not 0 <= index <= self.index:
            raise ValueError(f"can only rewind to an earlier subgoal (0..{self.index}), got {index}")
        self.index = index
        self.achieved = [j for j in self.achieved if j < index]
        self.skipped = [j for j in self.skipped if j < index]

    def skip_infeasible(self, world: World) -> None:
        """Pass over skippable subgoals the agent cannot do in the current world."""
        while not self.complete and self.current.skippable and not is_feasible(world, self.agent, self.current):
            self.skip_current()

    def copy(self, skips_infeasible: bool | None = None) -> MissionProgress:
        """An independent copy, with the policy ``skips_infeasible`` (by default this tracker's)."""
        policy = self.skips_infeasible if skips_infeasible is None else skips_infeasible
        out = MissionProgress(self.mission, self.agent, policy)
        out.index = self.index
        out.achieved = list(self.achieved)
        out.skipped = list(self.skipped)
        return out
