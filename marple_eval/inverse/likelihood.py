"""The exact likelihood of an agent's actions under a mission, from the planner that generated them.

The planner (``marple_gym.planner``) works on one subgoal at a time. For each it
builds a :class:`PlanRequest` from the world as it is (targets, passable cells,
goal cells, closed doors) and draws a plan: a path uniform among all shortest
paths to the nearest goal cells, the fewest turns before each step (a U-turn
two lefts or two rights by a fair coin), an ``open`` before a closed door, at
the end a target uniform among those in front of the last cell, the turns to
face it and the subgoal's action. It plans again after each achieved subgoal,
after a failed action and when a plan runs out.

:class:`PlanLikelihood` scores one such plan action by action. Since every
shortest path is equally likely, the chance that the path goes on from cell
``c`` to neighbour ``n`` is ``N(n) / N(c)``, where ``N`` counts the shortest
paths from a cell to the goals (a backward pass over the breadth-first layers);
turns, doors, targets and coins add their own exact factors. The few plans
still consistent with the actions seen are kept as weighted branches, so the
probability of the next action is a ratio of their weights.

:class:`MissionTracker` drives the planner's own mission logic (its subgoal
state machine, the furniture it binds to, its feasibility checks) over the
observed actions, scoring each action with the current plan's likelihood:
log P(a_0..a_t | mission) exactly, one action at a time.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from marple_eval.success import SuccessRule
from marple_gym.episode import AgentStep
from marple_gym.missions.mission import Mission, Subgoal
from marple_gym.missions.progress import MissionProgress
from marple_gym.planner.planner import HierarchicalPlanner, MissionHistory, PlanRequest, SharingPlanner
from marple_gym.world.actions import Outcome
from marple_gym.world.house import House
from marple_gym.world.sampling import weighted_index
from marple_gym.world.state import WorldState
from marple_gym.world.world import World


@dataclass(frozen=True)
class _Branch:
    """A plan still consistent with the actions seen: where its current chunk of actions leads and what is left of it.

    A chunk is one step of the path (turns, maybe ``open``, ``forward``) or, when
    ``final``, the turns to the target and the subgoal's action.
    """

    cell: int  # where the agent stands once the chunk is done
    facing: int  # and which way it faces then
    pending: tuple[int, ...]
    final: bool
    weight: float


class PlanLikelihood:
    """The probability of each next action under the planner's plan for one :class:`PlanRequest`."""

    def __init__(self, request: PlanRequest, dist: dict[int, int], reached: list[int]) -> None:
        self.request = request
        self.dist = dist
        self.length = dist[reached[0]]
        self.paths_to_goal = self._paths_to_goal(request, dist, reached)
        self.branches = [_Branch(request.start, request.facing, (), False, 1.0)]
        self._from: dict[tuple[int, int], PlanRequest] = {}

    @classmethod
    def of(cls, request: PlanRequest) -> PlanLikelihood | None:
        """The likelihood of the plans for ``request``; None when the planner finds no path (no plan)."""
        dist, _, reached = request.search
        return cls(request, dist, reached) if reached else None

    @staticmethod
    def _paths_to_goal(request: PlanRequest, dist: dict[int, int], reached: list[int]) -> dict[int, int]:
        """Shortest paths from each cell of the search to the nearest goals (0 for cells on none)."""
        width = request.width
        count = dict.fromkeys(reached, 1)
        for cell in sorted(dist, key=dist.get, reverse=True):
            if cell in count:
                continue
            d = dist[cell] + 1
            count[cell] = sum(count.get(cell + s, 0) for s in (1, -1, width, -width) if dist.get(cell + s) == d)
        return count

    @property
    def finished(self) -> bool:
        """Every consistent plan has been carried out to its last action."""
        return all(b.final and not b.pending for b in self.branches)

    def _chunks(self, facing: int, wanted: int, build) -> list[tuple[list[int], float]]:
        """The chunks of actions turning from ``facing`` to ``wanted`` (two equally likely ones for a U-turn)."""
        if (wanted - facing) % 4 == 2:
            return [(build(True), 0.5), (build(False), 0.5)]
        return [(build(False), 1.0)]

    def _expand(self, branch: _Branch) -> list[_Branch]:
        """The next chunk's possibilities for a branch that has finished its current chunk."""
        r, cell, facing = self.request, branch.cell, branch.facing
        out = []
        if self.dist[cell] == self.length:
            options = r.goals[cell]
            for target in options:
                wanted = r.direction(cell, target[1] * r.width + target[0])
                for actions, p in self._chunks(
                    facing, wanted, lambda left, t=target: r.final_actions(facing, cell, t, left)
                ):
                    out.append(_Branch(cell, wanted, tuple(actions), True, branch.weight * p / len(options)))
            return out
        total = self.paths_to_goal[cell]
        step = self.dist[cell] + 1
        for n in (cell + 1, cell - 1, cell + r.width, cell - r.width):
            through = self.paths_to_goal.get(n, 0)
            if self.dist.get(n) != step or not through:
                continue
            wanted = r.direction(cell, n)
            for actions, p in self._chunks(facing, wanted, lambda left, n=n: r.move_actions(facing, cell, n, left)):
                out.append(_Branch(n, wanted, tuple(actions), False, branch.weight * p * through / total))
        return out

    def _ready(self) -> None:
        """Expand branches whose chunk is done, and merge branches that now agree on everything."""
        merged: dict[tuple, float] = {}
        for branch in self.branches:
            for b in [branch] if branch.pending else self._expand(branch):
                key = (b.cell, b.facing, b.pending, b.final)
                merged[key] = merged.get(key, 0.0) + b.weight
        self.branches = [_Branch(*key, weight) for key, weight in merged.items()]

    def probability(self, action: int) -> float:
        """P(next action | the plan's actions so far)."""
        if self.finished:
            return 0.0
        self._ready()
        total = sum(b.weight for b in self.branches)
        return sum(b.weight for b in self.branches if b.pending[0] == action) / total

    def consume(self, action: int) -> None:
        """Keep the plans that take ``action`` next (call :meth:`probability` first)."""
        kept = [replace(b, pending=b.pending[1:]) for b in self.branches if b.pending and b.pending[0] == action]
        total = sum(b.weight for b in kept)
        self.branches = [replace(b, weight=b.weight / total) for b in kept]

    def sample_rest(self, rng: np.random.Generator) -> list[int]:
        """The rest of the plan, drawn from its exact conditional distribution given the actions seen."""
        weights = np.array([b.weight for b in self.branches])
        branch = self.branches[weighted_index(rng, weights / weights.sum())]
        if branch.final:
            return list(branch.pending)
        key = (branch.cell, branch.facing)
        if key not in self._from:  # the same request from where the chunk ends: its search is then done once
            self._from[key] = replace(self.request, start=branch.cell, facing=branch.facing)
        return list(branch.pending) + (self._from[key].sample(rng) or [])


class MissionTracker(HierarchicalPlanner):
    """The planner on one mission, following observed actions instead of choosing them, and scoring each.

    It runs the planner's own mission logic; only the low level differs: where
    the planner draws a plan, the tracker keeps the :class:`PlanLikelihood` of
    every plan the planner could have drawn.

    Not modelled: a mission that becomes infeasible part-way (the planner would
    then sample another one). Actions after that point get probability 0; the
    generated test episodes never need it (every house serves both missions).
    """

    segment: PlanLikelihood | None = None

    def __init__(self, start: World, mission: Mission, agent: int = 0) -> None:
        self.abandoned = False
        self.log_likelihood = 0.0
        self.actions = 0
        super().__init__(start.clone(), agent, mission=mission, rng=np.random.default_rng(0))

    def _make_plan(self) -> bool:
        request = self.plan_request()
        self.segment = None if request is None else PlanLikelihood.of(request)
        return self.segment is not None

    def observe_action(self, action: int) -> float:
        """Take the observed ``action``; add and return log P(action | the actions before it, the mission)."""
        log_p = self._score(int(action))
        self.log_likelihood += log_p
        self.actions += 1
        return log_p

    def _score(self, action: int) -> float:
        if self.done or self.abandoned or self.log_likelihood == -math.inf:
            return -math.inf
        if self.segment is None and not self._prepare():
            self.abandoned = True
            return -math.inf
        p = self.segment.probability(action)
        if p <= 0.0:
            return -math.inf
        self.segment.consume(action)
        outcome, achieved = self._act(action)  # the episode moves the progress on
        if not outcome.success or self.segment.finished:
            self.segment = None
        if achieved is not None:
            sg = self.mission.subgoals[achieved]
            if outcome.fur >= 0:
                self._binding[(sg.fur, sg.room)] = outcome.fur
            self.segment = None
            if not self._prepare():
                self.abandoned = True
        return math.log(p)

    def continuation(self, world: World, rng: np.random.Generator, cache: dict | None = None) -> CachingPlanner:
        """A planner that carries on from here in ``world`` (the tracked world; left unchanged, the planner
        copies its state before changing it), its current plan drawn from the exact conditional distribution
        given the actions seen. Continuations sharing a ``cache`` share their planning work where they meet the
        same world state."""
        history = MissionHistory(self.progress.copy(), dict(self._binding))
        plan = self.segment.sample_rest(rng) if self.segment is not None and not self.segment.finished else None
        own = World(world.house, world.state)
        cache = {} if cache is None else cache
        return CachingPlanner(own, self.agent, history=history, rng=rng, cache=cache, plan=plan, borrowed=True)


class CachingPlanner(SharingPlanner):
    """The planner, sharing its work with the planners of a ``cache``: plan requests (with their shortest-path
    searches), the carrying out of plans, and single actions.

    Rollouts from one state meet the same states again and again: this is what
    makes many rollouts affordable. Plan requests are shared as
    :class:`SharingPlanner` shares them. Carrying out a plan up to the next
    time the planner must choose (the plan achieves a subgoal, fails or runs
    out) is a function of the same and the plan: nothing is drawn on the way,
    so :meth:`reaches` takes those actions' outcomes and the state they lead to
    from the cache when another planner carried out the same plan from the same
    state; a plan met for the first time takes each action's outcome and the
    world it leaves from the cache where some planner took that action in that
    world. World states in the cache are shared, and copied before they change.
    Every choice, and every random number drawn for it, is the planner's.
    """

    def __init__(
        self, *args: Any, cache: dict, plan: list[int] | None = None, borrowed: bool = False, **kwargs: Any
    ) -> None:
        """``plan``: the first plan (instead of drawing one); ``borrowed``: the world's state is someone else's,
        to copy before changing it."""
        self._first_plan = plan
        self._world_key: bytes | None = None  # the world state as a key, until it changes
        self._borrowed = borrowed
        super().__init__(*args, cache=cache, **kwargs)

    def _make_plan(self) -> bool:
        """The first plan is the one given (the rest of the plan the agent is believed to be part-way through)."""
        if self._first_plan is None:
            return super()._make_plan()
        self._plan = deque(self._first_plan)
        self._first_plan = None
        return True

    def _world(self) -> bytes:
        """The world state as a key (the grid is painted from these arrays)."""
        if self._world_key is None:
            self._world_key = super()._world()
        return self._world_key

    def _act(self, action: int) -> AgentStep:
        """The episode transition of ``action``: its outcome and the world it leaves from the cache where a
        planner of the cache took the same action in the same world (the progress, this planner's own, follows
        the outcome in the episode either way)."""
        key = (self.agent, self._world(), action)
        cached = self.cache.get(key)
        if cached is None:
            if self._borrowed:
                self._use_state(self.world.state.copy())
                self._borrowed = False
            step = super()._act(action)
            self._world_key = None
            self.cache[key] = (step.outcome, self.world.state.copy(), self._world())
            return step
        outcome, state, self._world_key = cached
        self._use_state(state)
        self._borrowed = True
        (step,) = self.episode.follow(self.world.house, (outcome,))
        return step

    def reaches(self, query: SuccessRule, steps: int) -> bool:
        """Does the agent reach ``query`` within ``steps`` actions, taken as :meth:`step` takes them?

        After the action that ends a plan the planner plans what comes next before
        the query is checked, as after :meth:`step`; so the random numbers drawn are
        the same as with :meth:`step`, action by action.
        """
        house = self.world.house
        left = steps
        while left > 0:
            if self.next_action() is None:  # plans (drawing) when the plan has run out, as step() does
                return False
            run = self._carry_out_plan()
            taken, reached = len(run.outcomes), run.reaches_at(query, house)
            if taken > left:
                return reached < left
            if reached < taken - 1:
                return True
            if run.achieved is not None and not self._prepare():
                self._abandon()
            if reached == taken - 1:
                return True
            left -= taken
        return False

    def _carry_out_plan(self) -> _CarriedOut:
        """Take the plan's actions until it achieves a subgoal, fails or runs out (planning what comes next is
        the caller's)."""
        key = (self.agent, self._state_key(), tuple(self.progress.achieved), tuple(self.progress.skipped))
        key += (tuple(self._plan),)
        run = self.cache.get(key)
        if run is None:
            outcomes = []
            while True:
                step = self._act(self._plan[0])
                achieved = self._follow(step)
                outcomes.append(step.outcome)
                if achieved is not None or not self._plan:
                    break
            run = _CarriedOut(
                tuple(outcomes), achieved, self.world.state, self._world(), self.progress.copy(), dict(self._binding)
            )
            self._borrowed = True  # the run keeps this state: a later action copies it first
            self.cache[key] = run
        else:
            self._use_state(run.state)
            self._world_key, self._borrowed = run.world_key, True
            self.progress = run.progress.copy()
            self._binding = dict(run.binding)
            self._plan.clear()
        return run


@dataclass(eq=False)
class _CarriedOut:
    """A plan carried out from one state up to the next time the planner must choose: the outcomes of its
    actions, the subgoal the last one achieved, and where that left the world and the mission."""

    outcomes: tuple[Outcome, ...]
    achieved: int | None
    state: WorldState
    world_key: bytes
    progress: MissionProgress
    binding: dict[tuple[str, str], int]
    first_reached: dict[Subgoal | SuccessRule, int] = field(default_factory=dict)

    def reaches_at(self, query: Subgoal | SuccessRule, house: House) -> int:
        """The index of the first outcome that reaches ``query`` (the number of outcomes if none does)."""
        at = self.first_reached.get(query)
        if at is None:
            hits = (i for i, o in enumerate(self.outcomes) if query.matches(o, house))
            at = self.first_reached[query] = next(hits, len(self.outcomes))
        return at
