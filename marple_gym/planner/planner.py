"""The hierarchical planner that generates agent behaviour (paper supplement B.2): :class:`HierarchicalPlanner`.

* High level, mission choice (:mod:`~marple_gym.planner.mission_choice`): draw a mission from the agent's
  preferences; if it becomes infeasible, drop it and draw again.
* Mid level: the subgoal state machine (:class:`MissionProgress`): work on the
  first subgoal neither achieved nor skipped; pass over skippable subgoals that
  are infeasible; an infeasible required subgoal ends the mission. Which piece of
  furniture a subgoal uses is its binding (:mod:`~marple_gym.planner.binding`).
* Low level, path following (:mod:`~marple_gym.planner.routes`): walk a shortest path, drawn uniformly among all
  shortest paths, to a cell next to a target of the subgoal, turn to face the target and act. Closed doors on
  the way are opened.

This module holds the state machine that joins them. The planner only decides. Every action it takes goes
through the episode transition (:meth:`marple_gym.episode.EpisodeState.advance`, the function ``env.step`` and
the dataset recorder wrap), one action at a time, like MiniGrid's BabyAI bot. The planner's mission progress is
its agent's in the episode it acts in (:attr:`HierarchicalPlanner.episode`: its own, or the recorder's or a shared
house's after :meth:`HierarchicalPlanner.act_in`), the one record of it; the planner's tracker has the policy
``skips_infeasible=False`` (it passes over infeasible subgoals itself, when it finds no plan for them)::

    planner = HierarchicalPlanner(world, mission="do_laundry", rng=np.random.default_rng(0))
    while not planner.done:
        outcome = planner.step()          # or: a = planner.next_action(); env.step(a); planner.observe(outcome)

Who advances the planner's episode hands it each :class:`~marple_gym.episode.AgentStep`
(:meth:`HierarchicalPlanner.follow`); who takes its action elsewhere (an env, a
batch of rollouts over its world) hands it the outcome
(:meth:`HierarchicalPlanner.observe`), and its progress follows that.

In a house shared with other agents (see :mod:`marple_gym.recording.shared_house`) the planner hears of their
actions through :meth:`HierarchicalPlanner.notice`, waits for them or steps aside, passes over subgoals they
accomplished and goes back to those they undid, within bounds (:mod:`~marple_gym.planner.coordination`).
Otherwise the same rules apply: impossible skippable subgoals are passed over, an impossible mission is dropped
and another one drawn (after :data:`~marple_gym.planner.mission_choice.MAX_MISSION_ATTEMPTS` missions the planner
is done, without success).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from marple_gym.episode.state import AgentStep, EpisodeState
from marple_gym.missions.mission import Mission, Subgoal
from marple_gym.missions.progress import MissionProgress
from marple_gym.planner.binding import Binding, bind, bound_targets
from marple_gym.planner.coordination import (
    MAX_REWINDS,
    MAX_WAITS,
    done_by_others,
    plan_survives,
    step_aside,
    undone_by_others,
    wait_or_step_aside,
)
from marple_gym.planner.mission_choice import (
    MAX_MISSION_ATTEMPTS,
    MissionHistory,
    draw_mission,
    follow_history,
    mission_preferences,
)
from marple_gym.planner.routes import PlanRequest, plan_request, turn_actions
from marple_gym.world.actions import Outcome
from marple_gym.world.state import WorldState
from marple_gym.world.world import World

# The planner's pieces as this module has always offered them, each defined in the module of its level.
__all__ = ["HierarchicalPlanner", "MissionHistory", "PlanRequest", "follow_history", "turn_actions"]


class HierarchicalPlanner:
    """An agent that carries out missions in a :class:`World` (see module docs).

    Every draw (the mission, the path among shortest paths, the turn, stepping aside) comes from ``rng``, which
    is required: one generator seeded by the caller makes an episode reproducible.
    """

    def __init__(
        self,
        world: World,
        agent: int = 0,
        *,
        mission: str | Mission | None = None,
        preferences: dict[str, float] | None = None,
        rng: np.random.Generator,
        history: MissionHistory | None = None,
    ) -> None:
        if not isinstance(rng, np.random.Generator):  # an unseeded fallback would make behaviour irreproducible
            raise TypeError(
                f"HierarchicalPlanner needs rng, a numpy.random.Generator (np.random.default_rng(seed)), "
                f"got {type(rng).__name__}"
            )
        if history is not None:
            mission = history.progress.mission
        self._known, self.preferences = mission_preferences(mission, preferences)
        self.world = world
        self.agent = agent
        self.rng = rng
        self.episode = EpisodeState(world.state, (agent,), (None,), (None,), world.house.fingerprint)
        """The episode the planner acts in, which holds its mission progress (see :meth:`act_in`)."""
        self._slot = 0  # the planner's agent among the episode's acting agents
        self.missions: list[Mission] = []
        self.failed_missions: list[str] = []
        self._plan: deque[int] = deque()
        self._binding: Binding = {}
        self._rewinds = 0  # this mission's returns to an earlier subgoal
        self._waits = 0  # plans in a row that wait for others
        self.waiting = False
        """Did the last plan wait for other agents to clear the way (see :meth:`_make_way`)?"""
        if history is None:
            self._start_mission()
        else:
            self._resume(history)

    # ---- state ----------------------------------------------------------------------------------------
    @property
    def progress(self) -> MissionProgress | None:
        """The mission's progress: the planner's agent's in :attr:`episode` (None when no mission could be
        carried out)."""
        return self.episode.progress[self._slot]

    @progress.setter
    def progress(self, progress: MissionProgress | None) -> None:
        self.episode.track(self._slot, progress)

    def act_in(self, episode: EpisodeState) -> None:
        """Act in ``episode`` from now on (a recorder's, a shared house's), which holds the planner's world
        state: the planner's progress becomes its agent's progress there, the one record of it."""
        if episode.world is not self.world.state:
            raise ValueError("a planner can only act in an episode of its own world state")
        slot = episode.agents.index(self.agent)
        episode.track(slot, self.progress)
        self.episode, self._slot = episode, slot

    def _use_state(self, state: WorldState) -> None:
        """Carry on from world state ``state`` (a caching planner's shared states)."""
        self.world.state = self.episode.world = state

    @property
    def mission(self) -> Mission | None:
        return self.progress.mission if self.progress else None

    @property
    def current_subgoal(self) -> Subgoal | None:
        """The subgoal the agent works on now (None when done)."""
        return None if self.done else self.progress.current

    @property
    def done(self) -> bool:
        """The mission is complete, or no mission could be carried out."""
        return self.progress is None or self.progress.complete

    @property
    def succeeded(self) -> bool:
        return self.progress is not None and self.progress.complete

    # ---- high level: missions ---------------------------------------------------------------------------
    def _start_mission(self) -> None:
        """Sample missions until one can be started (at most MAX_MISSION_ATTEMPTS in all)."""
        while len(self.missions) + len(self.failed_missions) < MAX_MISSION_ATTEMPTS:
            name = draw_mission(self.rng, self.preferences)
            self.progress = MissionProgress(self._known[name], self.agent, skips_infeasible=False)
            self._binding = {}
            self._plan.clear()
            self._rewinds = self._waits = 0
            if self._prepare():
                self.missions.append(self.progress.mission)
                return
            self.failed_missions.append(name)
        self.progress = None

    def _resume(self, history: MissionHistory) -> None:
        """Carry on a mission part-way through, as recorded in ``history``."""
        self.progress = history.progress.copy(skips_infeasible=False)
        self._binding = dict(history.binding)
        self.missions.append(self.progress.mission)
        if not self._prepare():
            self._abandon()

    def _abandon(self) -> None:
        """The mission became infeasible: drop it and sample another."""
        self.failed_missions.append(self.mission.name)
        self._start_mission()

    # ---- mid level: the next subgoal ----------------------------------------------------------------------
    def _prepare(self) -> bool:
        """Plan the current subgoal, passing over skippable ones that cannot be done.

        Returns False if a required subgoal cannot be done. A subgoal can be done
        exactly when a path to one of its targets exists, so planning doubles as
        the feasibility check (the same answer :func:`is_feasible` gives).
        """
        gone_back: set[int] = set()
        while not self.progress.complete:
            if self._make_plan():
                return True
            if done_by_others(self.world, self.progress.current, self._binding):
                self.progress.pass_over()
                continue
            if self.progress.current.skippable:
                self.progress.skip_current()
                continue
            j = undone_by_others(self.world, self.mission, self.progress.index, self._binding)
            if j is None or j in gone_back or self._rewinds >= MAX_REWINDS:
                return False  # nothing to go back to, or going back again cannot help: the mission cannot go on
            gone_back.add(j)
            self._rewinds += 1
            self.progress.rewind(j)
        return True

    # ---- acting -----------------------------------------------------------------------------------------
    def next_action(self) -> int | None:
        """The next primitive action (None when done)."""
        if self.done:
            return None
        if not self._plan and not self._prepare():
            self._abandon()
            return self.next_action()
        # In a shared house the others may have done the mission's last subgoals: then it is complete, unplanned.
        return self._plan[0] if self._plan else self.next_action()

    def observe(self, outcome: Outcome) -> int | None:
        """The outcome of the action last returned, taken outside :attr:`episode` (an env's, rollouts'): the
        progress follows it, then the plan (:meth:`follow`). Returns the subgoal index it achieved."""
        return self.follow(AgentStep(outcome, self.progress.update(outcome, self.world)))

    def follow(self, step: AgentStep) -> int | None:
        """What the action last returned did in :attr:`episode`, which moved the progress on: follow it with the
        plan (and plan again when needed). Returns the subgoal index it achieved."""
        achieved = self._follow(step)
        if achieved is not None and not self._prepare():
            self._abandon()
        return achieved

    def _follow(self, step: AgentStep) -> int | None:
        """:meth:`follow` up to planning the next subgoal: the plan follows the outcome (nothing random happens
        here: the planner draws only when it plans)."""
        outcome, achieved = step
        if self._plan and outcome.action == self._plan[0]:
            self._plan.popleft()
        if not outcome.success:
            self._plan.clear()  # the world surprised us: plan again
        if achieved is not None:
            bind(self._binding, self.mission.subgoals[achieved], outcome)
            self._plan.clear()
        return achieved

    def notice(self, outcome: Outcome) -> None:
        """Hear what another agent's action did to the shared world, and drop the plan if it no longer holds.

        A state change (an object taken or put down, something opened, closed, switched or cleaned) may
        have achieved or ruined what the plan is for; a step onto the plan's path blocks it. Turns, idling,
        failed actions and steps elsewhere leave the plan as it is.
        """
        if self._plan and not plan_survives(outcome, self._plan, self.world.state, self.agent):
            self._plan.clear()

    def step(self) -> Outcome | None:
        """Take the next action in the world and observe its outcome (None when done)."""
        action = self.next_action()
        if action is None:
            return None
        step = self._act(action)
        self.follow(step)
        return step.outcome

    def _act(self, action: int) -> AgentStep:
        """Take ``action`` in :attr:`episode` (the planner's own, one agent) through the episode transition."""
        (step,) = self.episode.advance(self.world.house, (action,))
        return step

    # ---- low level: targets and paths -----------------------------------------------------------------
    def _targets(self, sg: Subgoal) -> dict[tuple[int, int], int]:
        """Target cells for ``sg``, narrowed to the piece of furniture the mission uses
        (:func:`~marple_gym.planner.binding.bound_targets`)."""
        return bound_targets(self.world, self.agent, self.mission, sg, self._binding)

    def plan_request(self) -> PlanRequest | None:
        """The low-level problem of the current subgoal in the world as it is now (None if no target is reachable
        in principle: no target cell). Planning and exact inverse planning start from the same request."""
        return self._request(through_agents=False)

    def _request(self, through_agents: bool) -> PlanRequest | None:
        """:meth:`plan_request`; with ``through_agents`` other agents' cells count as free (the problem once they
        have moved on), which is how a planner in a shared house tells a blocked way from an impossible one."""
        sg = self.progress.current
        return plan_request(self.world, self.agent, self._targets(sg), sg.action, through_agents)

    def _make_plan(self) -> bool:
        """Plan the current subgoal: path, turns, the action. False if it cannot be reached."""
        request = self.plan_request()
        if request is None:
            return False
        self.waiting = False
        plan = request.sample(self.rng)
        if plan is None and self.world.house.num_agents > 1:
            plan = self._make_way()
        self._waits = self._waits + 1 if self.waiting else 0
        if self._waits > MAX_WAITS:  # the way has stayed blocked: treat the subgoal as out of reach
            self._waits = 0
            return False
        if plan is None:
            return False
        self._plan = deque(plan)
        return True

    def _make_way(self) -> list[int] | None:
        """When only other agents block every way to the subgoal: wait a step, or half the time step aside.

        None when the subgoal stays out of reach with the other agents gone. Stepping aside breaks the
        deadlock of two agents waiting for each other in a doorway.
        """
        request = self._request(through_agents=True)
        if request is None or not request.search[2]:
            return None
        self.waiting = True
        return wait_or_step_aside(self.world.state, self.agent, self.rng)

    def step_aside(self) -> list[int]:
        """The actions to step onto a free neighbouring cell drawn at random (idle if there is none)."""
        return step_aside(self.world.state, self.agent, self.rng)


class SharingPlanner(HierarchicalPlanner):
    """The planner, sharing its plan requests (each with its shortest-path search) with the other planners of a
    ``cache`` that pose the same problem.

    Many planners of a batch of rollouts or of an inference plan from the same
    states. A request depends only on the house, the agent, the world state,
    the mission, its progress and bindings (the key); every draw from it is each
    planner's own, so sharing changes no plan and no random number.
    """

    def __init__(self, *args: Any, cache: dict, **kwargs: Any) -> None:
        self.cache = cache
        super().__init__(*args, **kwargs)

    def _world(self) -> bytes:
        """The world state as a key (the grid is painted from these arrays)."""
        s = self.world.state
        arrays = (s.fur_state, s.obj_pos, s.obj_state, s.agent_pos, s.agent_dir, s.carrying)
        return b"".join([a.tobytes() for a in arrays])

    def _state_key(self) -> tuple:
        """The house, the agent, the mission, its progress and bindings, and the world state."""
        # id(house): a cache lives no longer than the houses of its planners, so no id is reused meanwhile
        bindings = tuple(sorted(self._binding.items()))
        return (id(self.world.house), self.agent, self.mission.name, self.progress.index, bindings, self._world())

    def plan_request(self) -> PlanRequest | None:
        key = self._state_key()
        if key not in self.cache:
            self.cache[key] = super().plan_request()
        return self.cache[key]
