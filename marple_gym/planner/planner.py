"""The hierarchical planner that generates agent behaviour (paper supplement B.2).

* High level: sample a mission from the agent's preferences; if it becomes
  infeasible, drop it and sample again.
* Mid level: the subgoal state machine (:class:`MissionProgress`): work on the
  first subgoal neither achieved nor skipped; pass over skippable subgoals that
  are infeasible; an infeasible required subgoal ends the mission.
* Low level: walk a shortest path, drawn uniformly among all shortest paths, to
  a cell next to a target of the subgoal, turn to face the target and act.
  Closed doors on the way are opened.

The planner only decides. Every action it takes goes through the episode
transition (:meth:`marple_gym.episode.EpisodeState.advance`, the function
``env.step`` and the dataset recorder wrap), one action at a time, like
MiniGrid's BabyAI bot. The planner's mission progress is its agent's in the
episode it acts in (:attr:`HierarchicalPlanner.episode`: its own, or the
recorder's or a shared house's after :meth:`HierarchicalPlanner.act_in`), the one
record of it; the planner's tracker has the policy
``skips_infeasible=False`` (it passes over infeasible subgoals itself, when it
finds no plan for them)::

    planner = HierarchicalPlanner(world, mission="do_laundry", rng=np.random.default_rng(0))
    while not planner.done:
        outcome = planner.step()          # or: a = planner.next_action(); env.step(a); planner.observe(outcome)

Who advances the planner's episode hands it each :class:`~marple_gym.episode.AgentStep`
(:meth:`HierarchicalPlanner.follow`); who takes its action elsewhere (an env, a
batch of rollouts over its world) hands it the outcome
(:meth:`HierarchicalPlanner.observe`), and its progress follows that.

In a house shared with other agents (see :mod:`marple_gym.recording.shared_house`)
the planner hears of their actions through :meth:`HierarchicalPlanner.notice`
and plans again when one changed the world its plan relied on (took an object,
opened or closed something, stepped onto its path). It treats other agents as
obstacles to route around; when they are the only obstacle it waits a step or,
half the time, steps aside to a free neighbouring cell, and tries again.
A subgoal whose furniture state another agent already produced (the laundry
it was about to open is open) is passed over as accomplished, required or not;
when another agent undid what an earlier subgoal produced (closed the laundry
before this agent put its clothes in), the agent goes back to that subgoal.
Otherwise the same rules apply: impossible skippable subgoals are passed over,
an impossible mission is dropped and another one sampled.

What others do can never make it loop or wait for ever. Going back to an
earlier subgoal happens once per planning (going back again to one it could
not redo, say a "toggle off the laundry" it must skip because the laundry is out
of reach, means the mission cannot go on) and at most
:data:`MAX_REWINDS` times per mission; waiting for others to clear the way
lasts at most :data:`MAX_WAITS` plans in a row. Past either bound the mission
is dropped and another sampled, as for any infeasible mission (after
:data:`MAX_MISSION_ATTEMPTS` missions the planner is done, without success).

Once a piece of furniture serves a subgoal, later subgoals on the same kind of
furniture in the same room use it again when they can ("close the fridge you
opened"). The first choice prefers pieces that can carry the mission's whole
chain of subgoals on them: in the states the mission expects, holding what it
will pick up and with room for what it will put down (open the fridge that has
the sandwich; use the laundry that is off, since the mission will switch it on).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np

from marple_gym.episode.replay import replay
from marple_gym.episode.state import AgentStep, EpisodeState
from marple_gym.missions.feasibility import state_holds, target_cells
from marple_gym.missions.mission import Mission, Subgoal, get_mission
from marple_gym.missions.progress import MissionProgress
from marple_gym.missions.requirements import Requirement, mission_requirements
from marple_gym.planner.paths import draw_shortest_path, passable_cells, shortest_path_counts
from marple_gym.world.actions import Action, Outcome
from marple_gym.world.assets import ASSETS, BIT, DOOR, OPEN_BIT
from marple_gym.world.house import DIR_VEC
from marple_gym.world.navigation import walkable_mask
from marple_gym.world.sampling import weighted_index
from marple_gym.world.state import CH_FUR, CH_FUR_STATE, CH_OBJ, WorldState
from marple_gym.world.world import World

MAX_MISSION_ATTEMPTS = 10
MAX_REWINDS = 20
"""Most times a mission goes back to an earlier subgoal that another agent undid (see module docs)."""
MAX_WAITS = 100
"""Most plans in a row that wait for other agents to clear the way (see module docs)."""
_KEEPS_PLAN = frozenset({int(Action.left), int(Action.right), int(Action.idle)})
_STATE_ACTIONS = frozenset({Action.open, Action.close, Action.toggle})
_DIR_OF_STEP = {v: d for d, v in enumerate(DIR_VEC)}


@dataclass
class MissionHistory:
    """How far an agent got in a mission, and which furniture its subgoals used."""

    progress: MissionProgress
    binding: dict[tuple[str, str], int] = field(default_factory=dict)


@lru_cache(maxsize=256)
def _requirements_by_target(mission: Mission) -> dict[tuple[str, str], Requirement]:
    """What ``mission`` needs of each (furniture, room) it uses: shared by every planner on it, never changed."""
    return {(r.fur, r.room): r for r in mission_requirements(mission)}


def follow_history(start: World, actions, mission: str | Mission, agent: int = 0) -> MissionHistory:
    """Replay observed actions from ``start`` (a copy is stepped) and track a mission's progress.

    Lets a planner resume a mission part-way: the basis of a perfect agent model
    for simulation inference.
    """
    house = start.house
    mission = mission if isinstance(mission, Mission) else get_mission(mission)
    binding: dict[tuple[str, str], int] = {}
    # The episode transition steps the world and updates the mission's progress, as env.step does.
    episode = EpisodeState.start(house, start.state.copy(), (mission,), (agent,))
    episode.skip_infeasible(house)
    for ((outcome, achieved),) in replay(house, episode, actions):
        if achieved is not None and outcome.fur >= 0:
            sg = mission.subgoals[achieved]
            binding[(sg.fur, sg.room)] = outcome.fur
    return MissionHistory(episode.progress[0], binding)


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
        if mission is None and not preferences:
            raise ValueError("give a mission or mission preferences")
        self.world = world
        self.agent = agent
        self.rng = rng
        self.episode = EpisodeState(world.state, (agent,), (None,), (None,), world.house.fingerprint)
        """The episode the planner acts in, which holds its mission progress (see :meth:`act_in`)."""
        self._slot = 0  # the planner's agent among the episode's acting agents
        if mission is not None:
            chosen = mission if isinstance(mission, Mission) else get_mission(mission)
            self._known = {chosen.name: chosen}
            self.preferences = {chosen.name: 1.0}
        else:
            weights = np.array(list(preferences.values()), dtype=float)
            if (weights < 0).any() or weights.sum() <= 0:
                raise ValueError(f"mission preferences must be >= 0 and not all zero, got {preferences}")
            self._known = {n: get_mission(n) for n in preferences}
            self.preferences = {n: w for n, w in zip(preferences, weights / weights.sum()) if w > 0}
        self.missions: list[Mission] = []
        self.failed_missions: list[str] = []
        self._plan: deque[int] = deque()
        self._binding: dict[tuple[str, str], int] = {}
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
            names = list(self.preferences)
            name = names[weighted_index(self.rng, list(self.preferences.values()))]
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
            if self._done_by_others():
                self.progress.pass_over()
                continue
            if self.progress.current.skippable:
                self.progress.skip_current()
                continue
            j = self._undone_by_others()
            if j is None or j in gone_back or self._rewinds >= MAX_REWINDS:
                return False  # nothing to go back to, or going back again cannot help: the mission cannot go on
            gone_back.add(j)
            self._rewinds += 1
            self.progress.rewind(j)
        return True

    def _done_by_others(self) -> bool:
        """In a shared house: has another agent already put the current subgoal's furniture in the wanted state?"""
        if self.world.house.num_agents < 2:
            return False
        sg = self.progress.current
        return state_holds(self.world, sg, self._binding.get((sg.fur, sg.room)))

    def _undone_by_others(self) -> int | None:
        """In a shared house: the latest earlier state subgoal whose state another agent undid (closed the
        laundry this agent opened), to go back to and do again; None if there is none."""
        if self.world.house.num_agents < 2:
            return None
        subgoals = self.mission.subgoals
        for j in reversed(range(self.progress.index)):
            sg = subgoals[j]
            if sg.state is None or sg.action not in _STATE_ACTIONS:
                continue
            return None if state_holds(self.world, sg, self._binding.get((sg.fur, sg.room))) else j
        return None

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
            sg = self.mission.subgoals[achieved]
            if outcome.fur >= 0:
                self._binding[(sg.fur, sg.room)] = outcome.fur
            self._plan.clear()
        return achieved

    def notice(self, outcome: Outcome) -> None:
        """Hear what another agent's action did to the shared world, and drop the plan if it no longer holds.

        A state change (an object taken or put down, something opened, closed, switched or cleaned) may
        have achieved or ruined what the plan is for; a step onto the plan's path blocks it. Turns, idling,
        failed actions and steps elsewhere leave the plan as it is.
        """
        if not outcome.success or outcome.action in _KEEPS_PLAN or not self._plan:
            return
        if outcome.action == Action.forward and (outcome.x, outcome.y) not in self._cells_ahead():
            return
        self._plan.clear()

    def _cells_ahead(self) -> set[tuple[int, int]]:
        """The cells the plan walks into or acts on, from the agent's current cell and direction."""
        state = self.world.state
        x, y = state.agent_pos[self.agent].tolist()
        d = int(state.agent_dir[self.agent])
        cells = set()
        for action in self._plan:
            if action in (Action.left, Action.right):
                d = (d + (3 if action == Action.left else 1)) % 4
                continue
            dx, dy = DIR_VEC[d]
            cells.add((x + dx, y + dy))
            if action == Action.forward:
                x, y = x + dx, y + dy
        return cells

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
        """Target cells for ``sg``, narrowed to the piece of furniture the mission uses (see module docs)."""
        cells = target_cells(self.world, self.agent, sg)
        if not cells:
            return cells
        key = (sg.fur, sg.room)
        bound = self._binding.get(key)
        if bound is not None:
            mine = {c: f for c, f in cells.items() if f == bound}
            if mine:
                return mine
        requirement = _requirements_by_target(self.mission).get(key)
        if requirement is not None:
            suitable = {c: f for c, f in cells.items() if self._serves(f, requirement)}
            if suitable:
                return suitable
        return cells

    def _serves(self, fur: int, requirement: Requirement) -> bool:
        """Can this piece carry the mission's whole chain of subgoals on it (states, contents)?"""
        house, state = self.world.house, self.world.state
        bits = int(state.fur_state[fur])
        if any(bool(bits & BIT[name]) != value for name, value in requirement.initial.items()):
            return False
        ys, xs = house.fur_cells[fur]
        objects = state.grid[ys, xs, CH_OBJ]
        present = {ASSETS.object_names[c] for c in objects.tolist() if c}
        if not all(obj in present for obj in requirement.contains):
            return False
        if not requirement.needs_free_cell:
            return True
        floor = house.open_floor
        return any(
            floor[y + dy, x + dx]
            for x, y, o in zip(xs.tolist(), ys.tolist(), objects.tolist())
            if not o
            for dx, dy in DIR_VEC
        )

    def plan_request(self) -> PlanRequest | None:
        """The low-level problem of the current subgoal in the world as it is now (None if no target is reachable
        in principle: no target cell). Planning and exact inverse planning start from the same request."""
        return self._request(through_agents=False)

    def _request(self, through_agents: bool) -> PlanRequest | None:
        """:meth:`plan_request`; with ``through_agents`` other agents' cells count as free (the problem once they
        have moved on), which is how a planner in a shared house tells a blocked way from an impossible one."""
        sg = self.progress.current
        targets = self._targets(sg)
        if not targets:
            return None
        house, state = self.world.house, self.world.state
        width = house.width
        passable = passable_cells(house, state, self.agent, through_agents)
        goals: dict[int, list[tuple[int, int]]] = {}
        for tx, ty in targets:
            for dx, dy in DIR_VEC:
                c = (ty + dy) * width + (tx + dx)
                if passable[c]:
                    goals.setdefault(c, []).append((tx, ty))
        x, y = state.agent_pos[self.agent].tolist()
        grid = state.grid
        doors = np.flatnonzero(
            (grid[..., CH_FUR] == DOOR) & (((grid[..., CH_FUR_STATE].astype(np.int64) - 1) & OPEN_BIT) == 0)
        )
        return PlanRequest(
            passable,
            width,
            y * width + x,
            int(state.agent_dir[self.agent]),
            goals,
            frozenset(doors.tolist()),
            sg.action,
        )

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
        return self.step_aside() if self.rng.random() < 0.5 else [int(Action.idle)]

    def step_aside(self) -> list[int]:
        """The actions to step onto a free neighbouring cell drawn at random (idle if there is none)."""
        state = self.world.state
        x, y = state.agent_pos[self.agent].tolist()
        free = walkable_mask(state)
        aside = [d for d, (dx, dy) in enumerate(DIR_VEC) if free[y + dy, x + dx]]
        if not aside:
            return [int(Action.idle)]
        d = aside[int(self.rng.integers(len(aside)))]
        return turn_actions(int(state.agent_dir[self.agent]), d) + [int(Action.forward)]


@dataclass(frozen=True)
class PlanRequest:
    """One subgoal's low-level problem: walk a shortest path to a goal cell, face a target next to it, act.

    Cells are flat indices (``y * width + x``). Closed doors on the way are opened
    before stepping into them.
    """

    passable: list[bool]
    width: int
    start: int
    facing: int
    goals: dict[int, list[tuple[int, int]]]
    """Goal cell -> the target cells in front of which an agent standing there can act."""
    closed_doors: frozenset[int]
    action: int

    @cached_property
    def search(self) -> tuple[dict[int, int], dict[int, int], list[int]]:
        """Distances and shortest-path counts from the start, and the nearest goals (computed once)."""
        return shortest_path_counts(self.passable, self.width, self.start, set(self.goals))

    @cached_property
    def _steps_back(self) -> dict:
        """The choices of :func:`draw_shortest_path` on this search, worked out once for every plan drawn."""
        return {}

    @cached_property
    def _routes(self) -> dict[tuple[int, ...], tuple[list[_Turning], int]]:
        """:meth:`_route` of the paths plans drawn from this request took."""
        return {}

    @cached_property
    def _finals(self) -> dict[tuple[int, int, tuple[int, int]], _Turning]:
        """:meth:`final_actions` of the (facing, end, target) plans drawn from this request ended with."""
        return {}

    def direction(self, a: int, b: int) -> int:
        """The direction of the step from flat cell ``a`` to the neighbouring flat cell ``b``."""
        return _DIR_OF_STEP[((b % self.width) - (a % self.width), (b // self.width) - (a // self.width))]

    def move_actions(self, facing: int, a: int, b: int, u_turn_left: bool) -> list[int]:
        """The actions stepping from ``a`` to ``b``: turns, opening a closed door, forward."""
        actions = turn_actions(facing, self.direction(a, b), u_turn_left)
        if b in self.closed_doors:
            actions.append(int(Action.open))
        actions.append(int(Action.forward))
        return actions

    def final_actions(self, facing: int, end: int, target: tuple[int, int], u_turn_left: bool) -> list[int]:
        """At the path's end: turn to face ``target``, then act."""
        tx, ty = target
        return turn_actions(facing, self.direction(end, ty * self.width + tx), u_turn_left) + [int(self.action)]

    def sample(self, rng: np.random.Generator) -> list[int] | None:
        """The planner's random choice of a plan: a path uniform among shortest paths, a target uniform among
        those in front of its end, a U-turn's direction by a fair coin. None if no goal is reachable."""
        path = draw_shortest_path(self.search, self.width, self.start, rng, self._steps_back)
        if path is None:
            return None
        key = tuple(path)
        route = self._routes.get(key)
        if route is None:
            route = self._routes[key] = self._route(path)
        parts, facing = route
        plan: list[int] = []
        for part in parts:
            plan += _turn(part, rng)
        end = path[-1]
        options = self.goals[end]
        # (numpy draws nothing for a choice of one: tests/unit/marple_gym/world/test_sampling.py)
        target = options[0] if len(options) == 1 else options[int(rng.integers(len(options)))]
        final = self._finals.get((facing, end, target))
        if final is None:
            wanted = self.direction(end, target[1] * self.width + target[0])
            final = _turning(lambda left: self.final_actions(facing, end, target, left), facing, wanted)
            self._finals[(facing, end, target)] = final
        return plan + list(_turn(final, rng))

    def _route(self, path: list[int]) -> tuple[list[_Turning], int]:
        """The steps along ``path`` as runs of fixed actions and U-turns either way (the coin decides which,
        in order), and the direction faced at its end."""
        facing = self.facing
        parts: list[_Turning] = []
        for a, b in zip(path, path[1:]):
            wanted = self.direction(a, b)
            part = _turning(lambda left, a=a, b=b, f=facing: self.move_actions(f, a, b, left), facing, wanted)
            if part[1] is None and parts and parts[-1][1] is None:
                parts[-1] = (parts[-1][0] + part[0], None)
            else:
                parts.append(part)
            facing = wanted
        return parts, facing


_Turning = tuple[tuple[int, ...], tuple[int, ...] | None]
"""Actions that turn from one direction to another and go on: (the actions, None), or for a U-turn (turning
left, turning right): a U-turn goes either way with equal chance, and the coin is only tossed for a U-turn."""


def _turning(actions: Callable[[bool], list[int]], facing: int, wanted: int) -> _Turning:
    """The :data:`_Turning` of ``actions(u_turn_left)``, which turn from ``facing`` to ``wanted``."""
    if (wanted - facing) % 4 == 2:
        return tuple(actions(True)), tuple(actions(False))
    return tuple(actions(False)), None


def _turn(turning: _Turning, rng: np.random.Generator) -> tuple[int, ...]:
    """The actions of a :data:`_Turning`, tossing the coin of a U-turn (below one half: left)."""
    actions, right = turning
    return actions if right is None or rng.random() < 0.5 else right


def turn_actions(facing: int, wanted: int, u_turn_left: bool = False) -> list[int]:
    """The fewest turns from ``facing`` to ``wanted``; a U-turn is two lefts or two rights."""
    diff = (wanted - facing) % 4
    if diff == 1:
        return [int(Action.right)]
    if diff == 3:
        return [int(Action.left)]
    if diff == 2:
        return [int(Action.left)] * 2 if u_turn_left else [int(Action.right)] * 2
    return []
