"""The utility planner: an agent that weighs what it wants against what getting it costs.

An agent values objects (a reward per object type) and pays for its actions (a
cost per action: a step forward, a quarter turn, a pickup). In a house it
chooses one of the objects it can reach, or to stay where it is, by a Boltzmann
choice over utilities::

    U(g)    = reward(type of g) - C(g)        C(g): the cost of the cheapest way to pick g up
    U(stay) = 0
    P(g)    = exp(beta * U(g)) / (exp(beta * U(stay)) + sum_h exp(beta * U(h)))

then walks a cheapest way there and picks it up: at every step one of the
actions that start a cheapest way from where it stands (:meth:`GoalPlan.efficient`),
uniformly among them, and finally ``pickup``. Staying is one ``idle``. C(g)
comes from :class:`GoalPlan`, a Dijkstra search over poses (cell and heading)
backwards from the poses that face the object, so a turn costs what it costs
and a cheapest way may be longer than a shortest one when it turns less.

Agents walk on free floor and through open doors (never onto furniture, an
object, another agent or a closed door): the cells :func:`walkable_cells`
reads from a vision array, so an observer holding only the array plans the
same way. Every action goes through the episode transition
(:meth:`marple_gym.episode.EpisodeState.advance`) like any other agent's.

Scripted agents are the same planner told its goal (``goal=`` another object
than the one it would choose) or walking a given route
(:func:`marple_gym.planner.scripted.route_actions`).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from marple_gym.episode.state import AgentStep, EpisodeState
from marple_gym.world.actions import Action, Outcome
from marple_gym.world.assets import ASSETS
from marple_gym.world.house import DIR_VEC
from marple_gym.world.navigation import walkable_grid
from marple_gym.world.sampling import weighted_index
from marple_gym.world.state import CH_AGENT, CH_OBJ_ID
from marple_gym.world.world import World

STAY = -1
"""The goal of an agent that chooses to stay where it is (no object is worth its cost)."""
GOAL_ACTIONS: tuple[int, ...] = (int(Action.left), int(Action.right), int(Action.forward), int(Action.pickup))
"""The actions a utility agent uses on its way to a goal; staying is ``idle``."""
TIE = 1e-9
"""Costs closer than this are equal: every cheapest action is a tie, drawn uniformly."""

_LEFT, _RIGHT, _FORWARD, _PICKUP = GOAL_ACTIONS


@dataclass(frozen=True)
class ActionCosts:
    """What each action costs the agent (non-negative; a turn is a quarter turn, left or right)."""

    forward: float = 1.0
    turn: float = 0.5
    pickup: float = 0.0

    def __post_init__(self) -> None:
        for name in ("forward", "turn", "pickup"):
            value = getattr(self, name)
            if not np.isfinite(value) or value < 0:
                raise ValueError(f"action cost {name} must be finite and >= 0, got {value}")
        if self.forward <= 0:
            raise ValueError("a step forward must cost something (forward > 0), or no way is cheaper than another")

    def scaled(self, factor: float) -> ActionCosts:
        """Every cost times ``factor`` (the same cheapest ways, dearer or cheaper)."""
        return ActionCosts(self.forward * factor, self.turn * factor, self.pickup * factor)


@dataclass(frozen=True)
class Preferences:
    """A utility agent: rewards per object type, costs per action, and how sharply it chooses (``beta``).

    Object types missing from ``rewards`` are worth 0. ``beta`` -> infinity is an
    agent that always takes the best option.
    """

    rewards: Mapping[str, float]
    costs: ActionCosts = field(default_factory=ActionCosts)
    beta: float = 1.0

    def __post_init__(self) -> None:
        unknown = sorted(set(self.rewards) - set(ASSETS.object_code))
        if unknown:
            raise ValueError(f"rewards name unknown object types {unknown}")
        if not np.isfinite(self.beta) or self.beta < 0:
            raise ValueError(f"beta must be finite and >= 0, got {self.beta}")
        object.__setattr__(self, "rewards", dict(self.rewards))

    def reward(self, object_type: str) -> float:
        return float(self.rewards.get(object_type, 0.0))


def walkable_cells(grid: np.ndarray, agent_cell: tuple[int, int] | None = None) -> np.ndarray:
    """(H, W) bool: where a utility agent can walk in a vision array (its own cell, ``agent_cell``, included)."""
    walkable = walkable_grid(grid)
    if agent_cell is not None:
        walkable[agent_cell[1], agent_cell[0]] = True
    return walkable


class GoalPlan:
    """The cheapest ways to pick up one goal in one layout.

    ``walkable`` is the (H, W) mask of cells the agent may stand on (the border
    must not be walkable: houses have walls); ``targets`` the cells of the goal
    (an agent facing one of them picks the goal up). :attr:`values` holds the
    cost-to-go of every pose, ``values[y, x, d]`` (inf where the goal cannot be
    reached), found by one Dijkstra search backwards from the poses that face a
    target.
    """

    def __init__(self, walkable: np.ndarray, targets: Iterable[tuple[int, int]], costs: ActionCosts) -> None:
        self.walkable = np.asarray(walkable, dtype=bool)
        self.height, self.width = self.walkable.shape
        self.targets = frozenset((int(x), int(y)) for x, y in targets)
        self.costs = costs
        self._efficient: dict[int, tuple[int, ...]] = {}

    @cached_property
    def _flat(self) -> list[float]:
        """Cost-to-go per flat pose ``(y * width + x) * 4 + d``."""
        w, walk = self.width, self.walkable.ravel().tolist()
        steps = [dx + dy * w for dx, dy in DIR_VEC]
        c = self.costs
        inf = float("inf")
        value = [inf] * (len(walk) * 4)
        heap: list[tuple[float, int]] = []
        for x, y in self.targets:
            for d, (dx, dy) in enumerate(DIR_VEC):  # stand next to the target, facing it
                cell = (y - dy) * w + (x - dx)
                if 0 <= cell < len(walk) and walk[cell] and c.pickup < value[cell * 4 + d]:
                    value[cell * 4 + d] = c.pickup
                    heap.append((c.pickup, cell * 4 + d))
        heapq.heapify(heap)
        while heap:
            v, pose = heapq.heappop(heap)
            if v > value[pose]:
                continue
            cell, d = divmod(pose, 4)
            # Predecessors: a turn into d from either side, or a step forward into this cell along d.
            back = cell - steps[d]
            for before, cost in (
                (cell * 4 + (d + 1) % 4, c.turn),
                (cell * 4 + (d + 3) % 4, c.turn),
                (back * 4 + d if walk[back] else -1, c.forward),
            ):
                if before >= 0 and v + cost < value[before]:
                    value[before] = v + cost
                    heapq.heappush(heap, (v + cost, before))
        return value

    @cached_property
    def values(self) -> np.ndarray:
        """(H, W, 4) float: the cost-to-go of every pose (inf: the goal cannot be reached from it)."""
        return np.array(self._flat).reshape(self.height, self.width, 4)

    def cost(self, x: int, y: int, d: int) -> float:
        """The cost of the cheapest way from pose (x, y, facing d) to picking the goal up."""
        return self._flat[(y * self.width + x) * 4 + d]

    def successor(self, x: int, y: int, d: int, action: int) -> tuple[int, int, int] | None:
        """The pose after ``action`` on the way (None after ``pickup``, or for a step onto an unwalkable cell)."""
        if action == _LEFT:
            return x, y, (d + 3) % 4
        if action == _RIGHT:
            return x, y, (d + 1) % 4
        if action == _FORWARD:
            dx, dy = DIR_VEC[d]
            return (x + dx, y + dy, d) if self.walkable[y + dy, x + dx] else None
        return None

    def action_costs(self, x: int, y: int, d: int) -> dict[int, float]:
        """For each of :data:`GOAL_ACTIONS` possible from this pose: its cost plus the cost-to-go after it."""
        c = self.costs
        out = {}
        for action, cost in ((_LEFT, c.turn), (_RIGHT, c.turn), (_FORWARD, c.forward)):
            after = self.successor(x, y, d, action)
            if after is not None:
                out[action] = cost + self.cost(*after)
        dx, dy = DIR_VEC[d]
        if (x + dx, y + dy) in self.targets:
            out[_PICKUP] = c.pickup
        return out

    def efficient(self, x: int, y: int, d: int) -> tuple[int, ...]:
        """The actions that start a cheapest way from this pose (empty where the goal cannot be reached)."""
        pose = (y * self.width + x) * 4 + d
        found = self._efficient.get(pose)
        if found is None:
            best = self._flat[pose]
            if best == float("inf"):
                found = ()
            else:
                found = tuple(a for a, v in self.action_costs(x, y, d).items() if v <= best + TIE)
            self._efficient[pose] = found
        return found


def choice_probabilities(utilities: Sequence[float], beta: float) -> np.ndarray:
    """Boltzmann probabilities of the goals with ``utilities`` (-inf: out of reach) and, last, of staying (0)."""
    u = np.append(np.asarray(utilities, dtype=float), 0.0)
    logits = beta * np.where(np.isfinite(u), u, -np.inf)
    logits -= logits.max()
    p = np.exp(logits)
    return p / p.sum()


def goal_objects(world: World) -> list[int]:
    """The objects of ``world`` an agent could go for: those lying in the house (not held)."""
    return [int(i) for i in np.flatnonzero(world.state.obj_pos[:, 0] >= 0)]


def object_cells(grid: np.ndarray) -> dict[int, tuple[int, int]]:
    """Object id (index + 1, channel 5) -> its cell, for every object a vision array shows lying somewhere."""
    ys, xs = np.nonzero((grid[..., CH_OBJ_ID] > 0) & (grid[..., CH_AGENT] == 0))
    return {int(grid[y, x, CH_OBJ_ID]) - 1: (int(x), int(y)) for y, x in zip(ys, xs)}


class UtilityPlanner:
    """A utility agent acting in a world (see module docs), one action at a time.

    ``goal``: the object to go for (an object index; :data:`STAY` to stay), or
    None to choose by the agent's utilities: a Boltzmann draw (``choice="sample"``)
    or the option of highest utility (``choice="best"``). The planner acts on
    ``world.state`` in place, through its own one-agent episode (:attr:`episode`).
    """

    def __init__(
        self,
        world: World,
        preferences: Preferences,
        *,
        rng: np.random.Generator,
        agent: int = 0,
        goal: int | None = None,
        choice: str = "sample",
    ) -> None:
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"UtilityPlanner needs rng, a numpy.random.Generator, got {type(rng).__name__}")
        if choice not in ("sample", "best"):
            raise ValueError(f"choice must be 'sample' or 'best', got {choice!r}")
        self.world = world
        self.preferences = preferences
        self.rng = rng
        self.agent = agent
        self.episode = EpisodeState(world.state, (agent,), (None,), (None,), world.house.fingerprint)
        self.options = goal_objects(world)
        walkable = walkable_cells(world.state.grid, tuple(world.state.agent_pos[agent].tolist()))
        self.plans = {
            o: GoalPlan(walkable, [tuple(world.state.obj_pos[o].tolist())], preferences.costs) for o in self.options
        }
        if goal is not None and goal != STAY and goal not in self.plans:
            raise ValueError(f"goal {goal} is not an object lying in the house (objects {self.options})")
        self.goal = goal if goal is not None else self._choose(choice)
        self.done = False
        self.succeeded = False

    @property
    def pose(self) -> tuple[int, int, int]:
        x, y = self.episode.world.agent_pos[self.agent].tolist()
        return x, y, int(self.episode.world.agent_dir[self.agent])

    def utilities(self) -> list[float]:
        """The utility of each of :attr:`options` from where the agent stands (-inf: out of reach)."""
        house = self.world.house
        x, y, d = self.pose
        return [
            self.preferences.reward(ASSETS.object_names[int(house.obj_type[o])]) - self.plans[o].cost(x, y, d)
            for o in self.options
        ]

    def probabilities(self) -> np.ndarray:
        """P(each of :attr:`options`), then P(stay): the agent's Boltzmann choice."""
        return choice_probabilities(self.utilities(), self.preferences.beta)

    def _choose(self, choice: str) -> int:
        p = self.probabilities()
        # "best": the first of equal bests (options in object order, staying last)
        k = int(np.argmax(p)) if choice == "best" else weighted_index(self.rng, p)
        return STAY if k == len(self.options) else self.options[k]

    def next_action(self) -> int | None:
        """The next action (None when done): one of the cheapest, uniformly; ``idle`` to stay."""
        if self.done:
            return None
        if self.goal == STAY:
            return int(Action.idle)
        options = self.plans[self.goal].efficient(*self.pose)
        if not options:  # the way closed behind the agent's back: nothing left to do
            self.done = True
            return None
        return options[0] if len(options) == 1 else options[int(self.rng.integers(len(options)))]

    def observe(self, outcome: Outcome) -> None:
        """Take note of what the last action did: a pickup (or the stay's idle) ends the episode."""
        if outcome.action == int(Action.idle) and self.goal == STAY:
            self.done = self.succeeded = True
        elif outcome.action == int(Action.pickup) and outcome.success:
            self.done = True
            self.succeeded = outcome.obj == self.goal

    def step(self) -> Outcome | None:
        """Take the next action through the episode transition and observe it (None when done)."""
        action = self.next_action()
        if action is None:
            return None
        step: AgentStep
        (step,) = self.episode.advance(self.world.house, (action,))
        self.observe(step.outcome)
        return step.outcome

    def run(self, max_steps: int = 1000) -> list[Outcome]:
        """Act until done (at most ``max_steps`` actions); the outcomes in order."""
        outcomes = []
        while len(outcomes) < max_steps:
            outcome = self.step()
            if outcome is None:
                break
            outcomes.append(outcome)
        return outcomes
