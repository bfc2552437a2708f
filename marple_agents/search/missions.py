"""PUCT search over copies of the true world, rewarded by progress through a mission's subgoals.

Each tree starts from one world state and one mission (with how far the agent
has got in it). A node is a copy of the world after the actions on its path,
stepped by the batched world rules (the true simulator is the model: nothing
is learnt about the world), with the mission's progress tracked there as the
environment tracks it (:class:`~marple_gym.missions.batch.BatchProgress`):

* **prior**: the learned behaviour-cloning policy's action distribution at the
  node. A language-conditioned policy is given, by default, the mission's
  current subgoal at the node (``bip``: its likelihood is the policy conditioned
  on each mission's subgoals); with a ``follow`` rule, the subgoal the caller
  gives at the root, carried down the tree by that rule (the MCTS agent model
  in ``simulation``: the rule the plain policy agent follows, so every node's
  prior is what the policy agent would be asked there);
* **reward** of a step: how many of the mission's subgoals it got past
  (achieved, or skipped because they became infeasible);
* **leaf value**: a cheap estimate, ``discount ** d`` where ``d`` is the
  number of steps from the agent's cell to the nearest cell beside furniture of
  the current subgoal's type in a room of its type, over the house's fixed
  layout (doors count as passable, objects and turns are ignored), 0 once the
  mission is complete or where no such cell is reachable. One table per house
  and mission, computed once.

The search never looks at the question being asked: it models what the agent
would do on its own mission, not whether it could reach the query state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields

import numpy as np

from marple_agents.search.puct import PuctSettings, run_search, visit_policy
from marple_gym.episode.batch import EpisodeBatch
from marple_gym.missions.batch import BatchProgress, MissionTable
from marple_gym.world.assets import ASSETS, DOOR
from marple_gym.world.batched_state import BatchedState, BatchOutcome
from marple_gym.world.house import House
from marple_gym.world.house_batch import HouseBatch
from marple_gym.world.navigation import bitboard
from marple_gym.world.state import CH_FUR

PriorFn = Callable[[np.ndarray, np.ndarray | None], np.ndarray]
"""``prior(vision, subgoals)``: (R, H, W, 8) grids and (R, 4) subgoal codes (or None) -> (R, 10) action
probabilities."""
FollowFn = Callable[[np.ndarray, HouseBatch, BatchedState, BatchOutcome], np.ndarray]
"""``follow(codes, houses, states, outcomes)``: the (R, 4) subgoal codes the prior is given after a step, from
those it was given before (``codes``), the states the step led to and its outcomes (one row per tree)."""


def take_states(batch: BatchedState, rows: np.ndarray) -> BatchedState:
    """A new batch of copies of episodes ``rows``."""
    return BatchedState(*(np.take(getattr(batch, f.name), rows, axis=0) for f in fields(BatchedState)))


def house_rows(house: House | HouseBatch, rows: np.ndarray) -> HouseBatch:
    """The houses of episodes ``rows`` of a batch, as a batch of their own."""
    houses = HouseBatch.of(house)
    return houses if houses.shared else HouseBatch.of([houses.house(i) for i in rows.tolist()])


class MissionSearch:
    """The search's action distribution at many world states, each on its own mission (see module docs).

    ``follow``: how the prior's subgoal moves on down the tree from the one given at the root (see
    :meth:`policy`); without it, every node's prior is given the mission's current subgoal there.
    """

    def __init__(
        self, table: MissionTable, prior: PriorFn, settings: PuctSettings, follow: FollowFn | None = None
    ) -> None:
        self.table = table
        self.prior = prior
        self.settings = settings
        self.follow = follow
        self.values = SubgoalDistances(table, settings.discount)

    def policy(
        self,
        house: House | HouseBatch,
        states: BatchedState,
        mission: np.ndarray,
        index: np.ndarray,
        subgoals: np.ndarray | None = None,
    ) -> np.ndarray:
        """(R, 10) the search's action distribution at each state (``house``: one house, or one per state), for
        the agent on ``table.missions[mission[r]]`` at subgoal ``index[r]``. With no simulation: the prior.

        ``subgoals``: with a ``follow`` rule, the (R, 4) codes the prior is given at the root (None: a
        vision-only prior, given none anywhere); without one it must be None (the mission's subgoals are given).
        """
        if self.follow is None:
            if subgoals is not None:
                raise ValueError("root subgoals need a follow rule to carry them down the tree")
            subgoals = self.table.policy_codes(mission, index)
        prior = self.prior(states.grid, subgoals)
        if not self.settings.simulations:
            return prior
        houses = HouseBatch.of(house)
        value = self.values.of(houses, states)
        slots = self.settings.simulations + 1
        nodes = _Nodes(states, slots)
        progress = np.zeros((slots, len(states)), dtype=np.int64)
        progress[0] = index
        trees = np.arange(len(states))
        # The subgoal each node's prior was given (slot by slot, as the nodes), to carry on to its children.
        given = None if subgoals is None else np.zeros((slots, *subgoals.shape), dtype=np.int64)
        if given is not None:
            given[0] = subgoals

        def expand(parent: np.ndarray, action: np.ndarray, node: int):
            # Each child resumes its mission at its parent's subgoal, then takes one step through the episode.
            before = progress[parent, trees]
            child = EpisodeBatch.start(nodes.take(parent, trees))
            child.track(0, BatchProgress(self.table, mission, before))
            (step,) = child.advance(houses, action)
            outcomes = step.outcome
            nodes.put(node, child.world)
            progress[node] = after = child.progress[0].index
            if self.follow is None:
                codes = self.table.policy_codes(mission, after)
            elif given is None:
                codes = None
            else:
                codes = given[node] = self.follow(given[parent, trees], houses, child.world, outcomes)
            return self.prior(child.world.grid, codes), value(child.world, mission, after), after - before

        tree = run_search(prior, value(states, mission, index), expand, self.settings)
        return visit_policy(tree)


class _Nodes:
    """The world states of every tree's nodes: slot ``s`` of all ``R`` trees as rows ``s * R .. s * R + R - 1``."""

    def __init__(self, roots: BatchedState, slots: int) -> None:
        self.trees = len(roots)
        self.states = BatchedState(*(np.zeros((slots * self.trees, *a.shape[1:]), a.dtype) for a in _arrays(roots)))
        self.put(0, roots)

    def take(self, node: np.ndarray, trees: np.ndarray) -> BatchedState:
        return take_states(self.states, node * self.trees + trees)

    def put(self, node: int, states: BatchedState) -> None:
        rows = slice(node * self.trees, (node + 1) * self.trees)
        for mine, new in zip(_arrays(self.states), _arrays(states)):
            mine[rows] = new


def _arrays(batch: BatchedState) -> list[np.ndarray]:
    return [getattr(batch, f.name) for f in fields(BatchedState)]


class SubgoalDistances:
    """The leaf value estimate: ``discount ** steps`` to the current subgoal's furniture (see module docs)."""

    def __init__(self, table: MissionTable, discount: float) -> None:
        self.table = table
        self.discount = discount
        self._tables: dict[str, np.ndarray] = {}

    def of(
        self, houses: HouseBatch, states: BatchedState
    ) -> Callable[[BatchedState, np.ndarray, np.ndarray], np.ndarray]:
        """``value(states, mission, index)`` for batches laid out as ``states`` (their houses in ``houses``)."""
        if houses.shared:
            table = self._table(houses.houses[0], states.grid[0])[None]
            which = np.zeros(len(states), dtype=np.int64)
        else:
            known: dict[str, int] = {}
            stacked = []
            for house, grid in zip(houses.houses, states.grid):
                if house.fingerprint not in known:
                    known[house.fingerprint] = len(stacked)
                    stacked.append(self._table(house, grid))
            table = np.stack(stacked)
            which = np.array([known[h.fingerprint] for h in houses.houses], dtype=np.int64)
        width = houses.width

        def value(batch: BatchedState, mission: np.ndarray, index: np.ndarray) -> np.ndarray:
            cell = batch.agent_pos[:, 0, 1].astype(np.int64) * width + batch.agent_pos[:, 0, 0]
            return table[which, mission, index, cell]

        return value

    def _table(self, house: House, grid: np.ndarray) -> np.ndarray:
        """(missions, subgoals + 1, cells) of one house, computed once per house."""
        table = self._tables.get(house.fingerprint)
        if table is None:
            table = self._tables[house.fingerprint] = subgoal_values(house, grid, self.table, self.discount)
        return table


def subgoal_values(house: House, grid: np.ndarray, table: MissionTable, discount: float) -> np.ndarray:
    """(missions, subgoals + 1, cells): ``discount ** d`` from each cell to the subgoal's furniture (0: none)."""
    board = bitboard(house.width, house.height)
    furniture = grid[..., CH_FUR]
    walkable = board.from_mask((furniture == 0) | (furniture == DOOR))
    room_types = np.array([ASSETS.room_code[r.type] for r in house.rooms] + [-1], dtype=np.int64)
    fur_rooms = room_types[np.asarray(house.fur_room, dtype=np.int64)]  # index -1 (doors) reads the -1 at the end
    cache: dict[tuple[int, int], np.ndarray] = {}
    out = np.zeros((*table.codes.shape[:2], house.width * house.height))
    for m, mission in enumerate(table.missions):
        for j in range(len(mission.subgoals)):
            key = (int(table.codes[m, j, 1]), int(table.codes[m, j, 2]))
            if key not in cache:
                cache[key] = _distance_values(board, house, walkable, fur_rooms, key, discount)
            out[m, j] = cache[key]
    return out


def _distance_values(board, house: House, walkable: int, fur_rooms: np.ndarray, key, discount: float) -> np.ndarray:
    fur_code, room_code = key
    target = 0
    for i in np.flatnonzero((np.asarray(house.fur_type) == fur_code) & (fur_rooms == room_code)).tolist():
        ys, xs = house.fur_cells[i]
        for x, y in zip(xs.tolist(), ys.tolist()):
            target |= board.bit(x, y)
    values = np.zeros(house.width * house.height)
    goal = board.neighbours(target) & walkable
    if not goal:
        return values
    for d, layer in enumerate(board.layers(goal, walkable)):
        values[board.to_mask(layer).ravel()] = discount**d
    return values
