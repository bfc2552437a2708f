"""Searching by belief: the policy of an agent that wants an object it may not see.

The agent wants one object (by type) and believes it is on or in one of a set of pieces of furniture
(:class:`~marple_gym.beliefs.belief.ObjectBelief`). At every step it chooses anew, from its pose, its belief
and the world as it is (Markov, so an observer can replay the choice exactly):

1. holding the object: done (idle);
2. it knows the cell the object is on: walk to face it; there, open the container if it is closed, else
   pick the object up;
3. it has just opened a container and the object is not inside: close it again;
4. otherwise, **greedy on expected cost**: check next the piece ``l`` of its support that minimises
   ``cost(l) + M * (1 - b(l))``, where ``cost(l)`` counts the actions to face ``l`` (turns included, see
   :mod:`marple_gym.beliefs.distances`) plus one to open it if it is a closed container, ``b(l)`` is the
   belief's probability of ``l`` and ``M`` the expected cost of a miss (default: the house's width plus its
   height). With an even belief, as every agent starts with, this is the nearest possible place. The agent
   takes an action that starts an optimal route to the best piece; ties (routes, pieces) are broken
   uniformly at random. Checking a piece is seeing it whole (:mod:`marple_gym.beliefs.perception`), which
   revises the belief, and the next step chooses again: a lookahead of one piece, replanned every step.

With probability ``lapse`` the agent instead takes a turn or a step forward uniformly at random (a slip:
people dawdle), which also keeps every action an observer may see possible under every hypothesis.

The policy only decides; its agent acts through the episode transition like every other planner
(:class:`Searcher` and :mod:`marple_gym.beliefs.episodes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from marple_gym.beliefs.belief import ObjectBelief
from marple_gym.beliefs.distances import UNREACHABLE, Ground, HouseDistances, house_distances, pose
from marple_gym.beliefs.locations import locations_of, pieces_of
from marple_gym.beliefs.perception import VIEW_SIZE, check_perception
from marple_gym.world.actions import NUM_ACTIONS, Action, Outcome
from marple_gym.world.house import DIR_VEC, House
from marple_gym.world.state import WorldState

LEFT, RIGHT, FORWARD = int(Action.left), int(Action.right), int(Action.forward)
OPEN, CLOSE, PICKUP, IDLE = int(Action.open), int(Action.close), int(Action.pickup), int(Action.idle)
SLIPS = (LEFT, RIGHT, FORWARD)
"""What a lapse does: a turn or a step, uniformly."""
_INF = float(UNREACHABLE)


@dataclass(frozen=True)
class SearchSettings:
    """How a searching agent perceives and chooses (see the module docs)."""

    perception: str = "room"
    view_size: int = VIEW_SIZE
    lapse: float = 0.05
    miss_cost: float | None = None
    """``M``: the expected cost of checking a piece in vain; None: the house's width plus its height."""

    def __post_init__(self) -> None:
        check_perception(self.perception, self.view_size)
        if not 0.0 <= self.lapse < 1.0:
            raise ValueError(f"lapse must be in [0, 1), got {self.lapse!r}")
        if self.miss_cost is not None and not self.miss_cost >= 0:
            raise ValueError(f"miss_cost must be >= 0, got {self.miss_cost!r}")

    def to_json(self) -> dict:
        return {
            "perception": self.perception,
            "view_size": self.view_size,
            "lapse": self.lapse,
            "miss_cost": self.miss_cost,
        }


class Moment:
    """What the policy reads of one state for one agent, worked out once for every belief asked about: where
    it stands, what it faces, and each target's cost after each move it could make."""

    __slots__ = (
        "house",
        "state",
        "agent",
        "ground",
        "x",
        "y",
        "direction",
        "front",
        "last",
        "holding",
        "moves",
        "closed",
        "_after",
    )

    def __init__(self, house: House, state: WorldState, agent: int, last: Outcome | None) -> None:
        self.house, self.state, self.agent, self.last = house, state, agent, last
        self.ground: Ground = house_distances(house).ground(house, state, agent)
        self.x, self.y = state.agent_pos[agent].tolist()
        self.direction = d = int(state.agent_dir[agent])
        dx, dy = DIR_VEC[d]
        self.front = fx, fy = (self.x + dx, self.y + dy)
        self.holding = [house.obj_type_list[o] for o in state.carrying[agent].tolist() if o >= 0]
        w = house.width
        front = fy * w + fx
        # (action, its price, the pose it leads to): the two turns, and a step into the faced cell (opening a
        # closed door first: two actions) when it can be walked on.
        self.moves = [
            (LEFT, 1.0, pose(w, self.x, self.y, (d + 3) % 4)),
            (RIGHT, 1.0, pose(w, self.x, self.y, (d + 1) % 4)),
        ]
        if self.ground.mask[fy, fx] and front != self.y * w + self.x:
            door = front in self.ground.closed_doors
            self.moves.append((OPEN if door else FORWARD, 2.0 if door else 1.0, pose(w, fx, fy, d)))
        self.closed = locations_of(house).closed(state)
        """Bits of the closed containers."""
        self._after: dict[tuple[int, ...], tuple[float, ...]] = {}

    def after(self, distances: HouseDistances, targets: tuple[int, ...]) -> tuple[float, ...]:
        """For each of :attr:`moves`, its price plus the cost of facing one of ``targets`` from where it leads."""
        found = self._after.get(targets)
        if found is None:
            table = distances.costs(self.ground, targets)
            found = self._after[targets] = tuple(
                price + float(table[p]) if table[p] < UNREACHABLE else _INF for _, price, p in self.moves
            )
        return found


class SearchPolicy:
    """The action distribution of a searching agent (see the module docs), for one house."""

    def __init__(self, house: House, settings: SearchSettings | None = None) -> None:
        self.house = house
        self.settings = settings = SearchSettings() if settings is None else settings
        self.locations = locations_of(house)
        self.distances = house_distances(house)
        self.miss_cost = float(house.width + house.height if settings.miss_cost is None else settings.miss_cost)
        self._cells = {f: self._flat_cells(f) for f in pieces_of(self.locations.all)}

    def _flat_cells(self, piece: int) -> tuple[int, ...]:
        ys, xs = self.house.fur_cells[piece]
        return tuple((ys * self.house.width + xs).tolist())

    def cells(self, piece: int) -> tuple[int, ...]:
        """The flat cells (``y * width + x``) of a piece of furniture: facing one of them checks it."""
        return self._cells.get(piece) or self._flat_cells(piece)

    def moment(self, state: WorldState, agent: int, last: Outcome | None = None) -> Moment:
        """What the policy needs of ``state`` for agent ``agent`` (``last``: its last action's outcome)."""
        return Moment(self.house, state, agent, last)

    def probabilities(self, moment: Moment, goal: int, beliefs: Sequence[ObjectBelief]) -> np.ndarray:
        """(len(beliefs), 10): the action distribution of an agent that wants an object of type ``goal`` and
        holds each of ``beliefs`` about where it is (beliefs asked about twice are worked out once)."""
        rows: dict[tuple[int, tuple[int, int] | None], list[float]] = {}
        out = []
        for belief in beliefs:
            key = (belief.support, belief.cell)
            row = rows.get(key)
            if row is None:
                row = rows[key] = self._with_lapses(self._choice(moment, goal, belief))
            out.append(row)
        return np.array(out, dtype=float).reshape(len(beliefs), NUM_ACTIONS)

    def sample(self, moment: Moment, goal: int, belief: ObjectBelief, rng: np.random.Generator) -> int:
        """One action drawn from the policy."""
        p = self.probabilities(moment, goal, (belief,))[0]
        return int(rng.choice(NUM_ACTIONS, p=p))

    # ---- the choice (as lists of ten probabilities: small, and built by the thousand) --------------------------

    def _with_lapses(self, choice: list[float]) -> list[float]:
        lapse = self.settings.lapse
        if not lapse or choice[IDLE] == 1.0:
            return choice
        out = [p * (1.0 - lapse) for p in choice]
        for a in SLIPS:
            out[a] += lapse / len(SLIPS)
        return out

    def _choice(self, m: Moment, goal: int, belief: ObjectBelief) -> list[float]:
        """The distribution of the rational choice (no lapse)."""
        if goal in m.holding:
            return _only(IDLE)
        if belief.cell is not None:
            return self._fetch(m, belief.cell)
        opened = self._just_opened(m)
        if opened >= 0 and not belief.holds(opened):
            return _only(CLOSE)
        if not belief.support:
            return _only(IDLE)
        return self._search(m, belief)

    def _just_opened(self, m: Moment) -> int:
        """The container the agent faces, opened by its last action and open still; -1 if none."""
        last = m.last
        if last is None or not last.success or last.action != OPEN or last.fur < 0:
            return -1
        piece = last.fur
        if not self.locations.gated >> piece & 1 or m.closed >> piece & 1:
            return -1
        fx, fy = m.front
        return piece if self.house.fur_at[fy][fx] == piece else -1

    def _fetch(self, m: Moment, cell: tuple[int, int]) -> list[float]:
        """Go and take the object from ``cell``: face it, open its container if closed, pick it up."""
        if m.front == cell:
            piece = self.locations.piece_at(*cell)
            closed = piece >= 0 and m.closed >> piece & 1
            return _only(OPEN if closed else PICKUP)
        return self.approach(m, (cell[1] * self.house.width + cell[0],))

    def approach(self, m: Moment, cells: tuple[int, ...]) -> list[float]:
        """The rational distribution of an agent walking to face one of the flat ``cells`` (uniform over the
        actions that start a cheapest route; idle when facing one already, or when none can be reached)."""
        fx, fy = m.front
        if fy * self.house.width + fx in cells:
            return _only(IDLE)
        return _best(self._costs(m, [(m.after(self.distances, cells), 0.0)]))

    def _search(self, m: Moment, belief: ObjectBelief) -> list[float]:
        """Greedy on expected cost over the pieces the belief holds possible."""
        closed = m.closed
        probability = belief.probabilities()
        options = []
        for piece, b in probability.items():
            check = 1.0 if closed >> piece & 1 else 0.0
            options.append((m.after(self.distances, self._cells[piece]), check + self.miss_cost * (1.0 - b)))
        q = self._costs(m, options)
        fx, fy = m.front
        faced = self.house.fur_at[fy][fx]
        if faced >= 0 and closed >> faced & 1 and belief.holds(faced):
            q[OPEN] = 1.0 + self.miss_cost * (1.0 - probability[faced])
        return _best(q)

    @staticmethod
    def _costs(m: Moment, options: list[tuple[tuple[float, ...], float]]) -> dict[int, float]:
        """The expected cost of each move: its price, then the best option from where it leads (each option:
        the costs after each move, and what checking it adds)."""
        return {action: min(after[k] + offset for after, offset in options) for k, (action, _, _) in enumerate(m.moves)}


def _only(action: int) -> list[float]:
    out = [0.0] * NUM_ACTIONS
    out[action] = 1.0
    return out


def _best(q: dict[int, float]) -> list[float]:
    """Uniform over the actions of least cost (idle when nothing can be reached)."""
    low = min(q.values(), default=_INF)
    if low >= _INF:
        return _only(IDLE)
    best = [a for a, v in q.items() if v <= low + 1e-9]
    out = [0.0] * NUM_ACTIONS
    for a in best:
        out[a] = 1.0 / len(best)
    return out
