"""The hierarchical planner that generates agent behaviour (paper supplement B.2).

* High level: sample a mission from the agent's preferences; if it becomes
  infeasible, drop it and sample again.
* Mid level: the subgoal state machine (:class:`MissionProgress`): work on the
  first subgoal neither achieved nor skipped; pass over skippable subgoals that
  are infeasible; an infeasible required subgoal ends the mission.
* Low level: walk a shortest path, drawn uniformly among all shortest paths, to
  a cell next to a target of the subgoal, turn to face the target and act.
  Closed doors on the way are opened.

The planner only decides. Every action goes through the world's transition
function (:meth:`World.step`, the same rules ``env.step`` uses), one action at
a time, like MiniGrid's BabyAI bot::

    planner = HierarchicalPlanner(world, mission="do_laundry", rng=np.random.default_rng(0))
    while not planner.done:
        outcome = planner.step()          # or: a = planner.next_action(); env.step(a); planner.observe(outcome)

Once a piece of furniture serves a subgoal, later subgoals on the same kind of
furniture in the same room use it again when they can ("close the fridge you
opened"). The first choice prefers pieces that can carry the mission's whole
chain of subgoals on them: in the states the mission expects, holding what it
will pick up and with room for what it will put down (open the fridge that has
the sandwich; use the laundry that is off, since the mission will switch it on).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from marple_gym.missions.feasibility import target_cells
from marple_gym.missions.mission import Mission, Subgoal, get_mission
from marple_gym.missions.progress import MissionProgress
from marple_gym.missions.requirements import Requirement, mission_requirements
from marple_gym.planner.paths import passable_cells, sample_shortest_path
from marple_gym.world.actions import Action, Outcome
from marple_gym.world.assets import ASSETS, BIT, DOOR, OPEN_BIT
from marple_gym.world.house import DIR_VEC
from marple_gym.world.state import CH_FUR, CH_FUR_STATE, CH_OBJ
from marple_gym.world.world import World

MAX_MISSION_ATTEMPTS = 10
_DIR_OF_STEP = {v: d for d, v in enumerate(DIR_VEC)}


@dataclass
class MissionHistory:
    """How far an agent got in a mission, and which furniture its subgoals used."""

    progress: MissionProgress
    binding: dict[tuple[str, str], int] = field(default_factory=dict)


def follow_history(start: World, actions, mission: str | Mission, agent: int = 0) -> MissionHistory:
    """Replay observed actions from ``start`` (a copy is stepped) and track a mission's progress.

    Lets a planner resume a mission part-way: the basis of a perfect agent model
    for simulation inference.
    """
    world = start.clone()
    progress = MissionProgress(mission if isinstance(mission, Mission) else get_mission(mission), agent)
    binding: dict[tuple[str, str], int] = {}
    progress.skip_infeasible(world)
    for action in actions:
        outcome = world.step(agent, int(action))
        achieved = progress.update(outcome, world)
        if achieved is not None and outcome.fur >= 0:
            sg = progress.mission.subgoals[achieved]
            binding[(sg.fur, sg.room)] = outcome.fur
    return MissionHistory(progress, binding)


class HierarchicalPlanner:
    """An agent that carries out missions in a :class:`World` (see module docs)."""

    def __init__(
        self,
        world: World,
        agent: int = 0,
        *,
        mission: str | Mission | None = None,
        preferences: dict[str, float] | None = None,
        rng: np.random.Generator | None = None,
        history: MissionHistory | None = None,
    ) -> None:
        if history is not None:
            mission = history.progress.mission
        if mission is None and not preferences:
            raise ValueError("give a mission or mission preferences")
        self.world = world
        self.agent = agent
        self.rng = rng if rng is not None else np.random.default_rng()
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
        self.progress: MissionProgress | None = None
        self._plan: deque[int] = deque()
        self._binding: dict[tuple[str, str], int] = {}
        self._requirements: dict[tuple[str, str], Requirement] = {}
        if history is None:
            self._start_mission()
        else:
            self._resume(history)

    # ---- state ----------------------------------------------------------------------------------------
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
            name = names[int(self.rng.choice(len(names), p=list(self.preferences.values())))]
            self.progress = MissionProgress(self._known[name], self.agent)
            self._requirements = {(r.fur, r.room): r for r in mission_requirements(self.progress.mission)}
            self._binding = {}
            self._plan.clear()
            if self._prepare():
                self.missions.append(self.progress.mission)
                return
            self.failed_missions.append(name)
        self.progress = None

    def _resume(self, history: MissionHistory) -> None:
        """Carry on a mission part-way through, as recorded in ``history``."""
        self.progress = history.progress.copy()
        self._requirements = {(r.fur, r.room): r for r in mission_requirements(self.progress.mission)}
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
        while not self.progress.complete:
            if self._make_plan():
                return True
            if not self.progress.current.skippable:
                return False
            self.progress.skip_current()
        return True

    # ---- acting -----------------------------------------------------------------------------------------
    def next_action(self) -> int | None:
        """The next primitive action (None when done)."""
        if self.done:
            return None
        if not self._plan and not self._prepare():
            self._abandon()
            return self.next_action()
        return self._plan[0]

    def observe(self, outcome: Outcome) -> int | None:
        """Record the outcome of the action last returned; return the subgoal index it achieved."""
        if self._plan and outcome.action == self._plan[0]:
            self._plan.popleft()
        if not outcome.success:
            self._plan.clear()  # the world surprised us: plan again
        achieved = self.progress.update(outcome, self.world, skip_infeasible=False)
        if achieved is not None:
            sg = self.mission.subgoals[achieved]
            if outcome.fur >= 0:
                self._binding[(sg.fur, sg.room)] = outcome.fur
            self._plan.clear()
            if not self._prepare():
                self._abandon()
        return achieved

    def step(self) -> Outcome | None:
        """Take the next action in the world and observe its outcome (None when done)."""
        action = self.next_action()
        if action is None:
            return None
        outcome = self.world.step(self.agent, action)
        self.observe(outcome)
        return outcome

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
        requirement = self._requirements.get(key)
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

    def _make_plan(self) -> bool:
        """Plan the current subgoal: path, turns, the action. False if it cannot be reached."""
        sg = self.progress.current
        targets = self._targets(sg)
        if not targets:
            return False
        house, state = self.world.house, self.world.state
        width = house.width
        passable = passable_cells(house, state, self.agent)
        goals: dict[int, list[tuple[int, int]]] = {}
        for tx, ty in targets:
            for dx, dy in DIR_VEC:
                c = (ty + dy) * width + (tx + dx)
                if passable[c]:
                    goals.setdefault(c, []).append((tx, ty))
        x, y = state.agent_pos[self.agent].tolist()
        path = sample_shortest_path(passable, width, y * width + x, set(goals), self.rng)
        if path is None:
            return False
        cells = [(c % width, c // width) for c in path]
        facing = int(state.agent_dir[self.agent])
        plan: list[int] = []
        for (ax, ay), (bx, by) in zip(cells, cells[1:]):
            facing = self._turn_to(plan, facing, _DIR_OF_STEP[(bx - ax, by - ay)])
            cell = state.grid[by, bx]
            if cell[CH_FUR] == DOOR and not (int(cell[CH_FUR_STATE]) - 1) & OPEN_BIT:
                plan.append(int(Action.open))
            plan.append(int(Action.forward))
        end = path[-1]
        options = goals[end]
        tx, ty = options[int(self.rng.integers(len(options)))]
        ex, ey = cells[-1]
        self._turn_to(plan, facing, _DIR_OF_STEP[(tx - ex, ty - ey)])
        plan.append(int(sg.action))
        self._plan = deque(plan)
        return True

    def _turn_to(self, plan: list[int], facing: int, wanted: int) -> int:
        """Append the fewest turns from ``facing`` to ``wanted`` (a U-turn goes either way at random)."""
        diff = (wanted - facing) % 4
        if diff == 1:
            plan.append(int(Action.right))
        elif diff == 3:
            plan.append(int(Action.left))
        elif diff == 2:
            turn = int(Action.left) if self.rng.random() < 0.5 else int(Action.right)
            plan += [turn, turn]
        return wanted
