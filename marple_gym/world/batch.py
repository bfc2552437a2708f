"""Many episodes as stacked arrays, stepped together by vectorised rules.

:class:`~marple_gym.world.batched_state.BatchedState` stacks ``N``
:class:`~marple_gym.world.state.WorldState` records along a leading axis; :func:`apply_actions` applies one action per
episode for one agent with numpy operations over the whole batch. The episodes
share one house, or each has its own house of equal shapes (a
:class:`~marple_gym.world.house_batch.HouseBatch`). The rules are
those of :func:`marple_gym.world.rules.apply_action`, action for action (the
tests compare the two over random episodes); only the bookkeeping differs:
outcomes come back as arrays, one entry per episode.

``batch.view(i)`` is a :class:`WorldState` whose arrays are views into the
batch, so the scalar rules, the planner and feasibility checks can work on one
episode of a batch in place.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from marple_gym.world.actions import NUM_ACTIONS, Action
from marple_gym.world.assets import ASSETS, DOOR, DUSTY_BIT, OPEN_BIT, STAIN_BIT, TOGGLE_BIT, WALL
from marple_gym.world.batched_state import BatchedState, BatchOutcome, state_at
from marple_gym.world.house import DIR_VEC, House
from marple_gym.world.house_batch import HouseBatch
from marple_gym.world.state import (
    CH_AGENT,
    CH_AGENT_DIR,
    CH_FUR,
    CH_FUR_STATE,
    CH_OBJ,
    CH_OBJ_ID,
    CH_OBJ_STATE,
)

_DX = np.array([v[0] for v in DIR_VEC], dtype=np.int64)
_DY = np.array([v[1] for v in DIR_VEC], dtype=np.int64)
_FUR_MASK = ASSETS.fur_mask.astype(np.int64)
_FUR_HOLDS = ASSETS.fur_holds > 0
_FUR_GATED = ASSETS.fur_gated
_OBJ_MASK = ASSETS.obj_mask.astype(np.int64)
_CLEANING_TOOL = ASSETS.obj_cleaning_tool
_DIRT = DUSTY_BIT | STAIN_BIT
_TURN = np.array([[(d + 3) % 4 for d in range(4)], [(d + 1) % 4 for d in range(4)]], dtype=np.int64)
"""The direction after ``left`` (row 0) or ``right`` (row 1) from each direction."""

LEFT, RIGHT, FORWARD = int(Action.left), int(Action.right), int(Action.forward)
PICKUP, DROP, TOGGLE = int(Action.pickup), int(Action.drop), int(Action.toggle)
OPEN, CLOSE, CLEAN, IDLE = int(Action.open), int(Action.close), int(Action.clean), int(Action.idle)


class _Step:
    """The working arrays of one batched step: the agents' and faced cells, and the outcome being filled in.

    Cells are addressed by one flat index into the batch's grid seen as (N * H * W, 8)
    (``here``: the agent's cell, ``front``: the faced one): one gather or scatter per
    access instead of three index arrays. What the rules ask about the faced cell
    (its furniture and that furniture's state, whether it is a closed container, the
    reachable object on it) is read once for every episode from the gathered cell,
    since the grid's channels mirror the state arrays (see :mod:`marple_gym.world.state`).
    """

    def __init__(self, houses: HouseBatch, batch: BatchedState, agent: int, actions: np.ndarray) -> None:
        self.houses, self.batch, self.agent, self.actions = houses, batch, agent, actions
        n = len(actions)
        self.rows = np.arange(n)
        self.cells = batch.grid.reshape(-1, batch.grid.shape[-1])
        self.base = self.rows * houses.num_cells
        self.x = batch.agent_pos[:, agent, 0].astype(np.int64)
        self.y = batch.agent_pos[:, agent, 1].astype(np.int64)
        self.here = self.base + self.y * houses.width + self.x
        self.success = np.zeros(n, dtype=bool)
        self.fur = np.full(n, -1, dtype=np.int64)
        self.obj = np.full(n, -1, dtype=np.int64)
        self.value = np.full(n, -1, dtype=np.int64)

    def face(self, d: np.ndarray) -> None:
        """Read the cells the agents face after turning to ``d``."""
        self.fx, self.fy = self.x + _DX[d], self.y + _DY[d]
        local = self.fy * self.houses.width + self.fx
        self.front = self.base + local
        # np.take: a gather of whole rows, many times faster than the equivalent fancy index.
        cell = self.cell = np.take(self.cells, self.front, axis=0).astype(np.int64)
        fur = self.fur_at = self.houses.fur_map[self.houses.cell(local, self.front)]
        # Furniture code and state of the faced furniture instance (0 where none: walls are no instance).
        self.fur_code = np.where(fur >= 0, cell[:, CH_FUR], 0)
        self.fur_bits = np.where(fur >= 0, cell[:, CH_FUR_STATE] - 1, 0)
        self.shut = _FUR_GATED[self.fur_code] & ((self.fur_bits & OPEN_BIT) == 0)
        # The object lying there, if no agent stands on it and no closed container hides it.
        obj = cell[:, CH_OBJ_ID] - 1
        reachable = (obj >= 0) & (cell[:, CH_AGENT] == 0) & ~self.shut
        self.front_obj = np.where(reachable, obj, -1)
        self.obj_code = np.where(reachable, cell[:, CH_OBJ], 0)
        self.obj_bits = np.where(reachable, cell[:, CH_OBJ_STATE] - 1, 0)

    def show_in_hand(self, rows: np.ndarray) -> None:
        """Paint the object each agent of ``rows`` holds longest onto its cell (channels 3-5)."""
        held = self.batch.carrying[rows, self.agent, 0].astype(np.int64)
        shown = np.where(held >= 0, state_at(self.batch.obj_state, rows, held) + 1, 0)
        self.cells[self.here[rows], CH_OBJ:CH_AGENT] = np.stack(
            (self.houses.obj_code(rows, held), shown, held + 1), axis=1
        )

    def set_fur_bits(self, rows: np.ndarray, fur: np.ndarray, bits: np.ndarray) -> None:
        self.batch.fur_state[rows, fur] = bits
        cells = self.base[rows, None] + self.houses.cells_of(rows, fur)
        self.cells[cells, CH_FUR_STATE] = (bits + 1)[:, None]

    def set_obj_bits(self, rows: np.ndarray, obj: np.ndarray, bits: np.ndarray) -> None:
        self.batch.obj_state[rows, obj] = bits
        self.cells[self.front[rows], CH_OBJ_STATE] = bits + 1

    def succeed(self, rows: np.ndarray, fur: np.ndarray | int, obj: np.ndarray | int, value: np.ndarray | int) -> None:
        self.success[rows] = True
        self.fur[rows], self.obj[rows], self.value[rows] = fur, obj, value


def apply_actions(house: House | HouseBatch, batch: BatchedState, agent: int, actions: np.ndarray) -> BatchOutcome:
    """Apply ``actions[i]`` of agent ``agent`` to episode ``i`` of ``batch`` in place, for every ``i``.

    ``house`` is the one house of every episode, or a :class:`HouseBatch` of one house per episode.
    """
    actions = np.asarray(actions, dtype=np.int64)
    if actions.shape != (len(batch),):
        raise ValueError(f"expected one action per episode, shape ({len(batch)},), got {actions.shape}")
    if actions.size and (actions.min() < 0 or actions.max() >= NUM_ACTIONS):
        raise ValueError(f"unknown action in {np.unique(actions).tolist()}; expected 0..9 (see marple_gym.Action)")
    if not batch.grid.flags.c_contiguous:
        raise ValueError("the batch's grid must be C-contiguous (build batches with BatchedState.repeat or stack)")
    houses = HouseBatch.of(house)
    houses.check_episodes(len(batch))
    s = _Step(houses, batch, agent, actions)
    group = _grouped(actions)
    d = batch.agent_dir[:, agent].astype(np.int64)
    turn = group(LEFT, RIGHT)
    if turn.size:
        d[turn] = _TURN[actions[turn], d[turn]]
        batch.agent_dir[turn, agent] = d[turn]
        s.cells[s.here[turn], CH_AGENT_DIR] = d[turn] + 1
        s.success[turn] = True
    s.face(d)
    for first, last, rule in _RULES:
        rows = group(first, last)
        if rows.size:
            rule(s, rows)
    return BatchOutcome(actions, s.success, s.fur, s.obj, s.value, s.fx, s.fy)


def _grouped(actions: np.ndarray) -> Callable[[int, int], np.ndarray]:
    """``group(a, b)``: the episodes (ascending) whose action is one of ``a..b``, from one stable sort."""
    order = np.argsort(actions.astype(np.int8), kind="stable")  # a radix sort for small integers
    start = np.concatenate(([0], np.cumsum(np.bincount(actions, minlength=NUM_ACTIONS)))).tolist()
    return lambda first, last: order[start[first] : start[last + 1]]


def _forward(s: _Step, rows: np.ndarray) -> None:
    cell = s.cell[rows]
    fur = cell[:, CH_FUR]
    open_door = (fur == DOOR) & (((cell[:, CH_FUR_STATE] - 1) & OPEN_BIT) > 0)
    ok = rows[(cell[:, CH_OBJ] == 0) & (cell[:, CH_AGENT] == 0) & ((fur == 0) | open_door)]
    here, front = s.here[ok], s.front[ok]
    # The agent and the object it shows in hand (channels 3-7) move together.
    s.cells[front, CH_OBJ:] = s.cells[here, CH_OBJ:]
    s.cells[here, CH_OBJ:] = 0
    s.batch.agent_pos[ok, s.agent, 0] = s.fx[ok]
    s.batch.agent_pos[ok, s.agent, 1] = s.fy[ok]
    s.succeed(ok, -1, -1, -1)


def _pickup(s: _Step, rows: np.ndarray) -> None:
    obj = s.front_obj[rows]
    hands = s.batch.carrying[rows, s.agent]
    ok = (obj >= 0) & (hands < 0).any(axis=1)
    done, obj, first = rows[ok], obj[ok], hands[ok, 0] < 0
    # Into an empty first hand: the agent's cell shows the object as its cell showed it.
    shown = done[first]
    s.cells[s.here[shown], CH_OBJ:CH_AGENT] = s.cells[s.front[shown], CH_OBJ:CH_AGENT]
    s.cells[s.front[done], CH_OBJ:CH_AGENT] = 0
    s.batch.obj_pos[done, obj] = -1
    s.batch.carrying[shown, s.agent, 0] = obj[first]
    s.batch.carrying[done[~first], s.agent, 1] = obj[~first]
    s.succeed(done, s.fur_at[done], obj, -1)


def _drop(s: _Step, rows: np.ndarray) -> None:
    cell = s.cell[rows]
    obj = s.batch.carrying[rows, s.agent, 0].astype(np.int64)
    code = cell[:, CH_FUR]
    holds = (code != WALL) & (code != DOOR) & _FUR_HOLDS[code] & ~s.shut[rows]
    ok = (obj >= 0) & (cell[:, CH_OBJ] == 0) & (cell[:, CH_AGENT] == 0) & ((code == 0) | holds)
    done, obj = rows[ok], obj[ok]
    # The agent's cell shows the object held longest, the one put down: the faced cell shows it now.
    s.cells[s.front[done], CH_OBJ:CH_AGENT] = s.cells[s.here[done], CH_OBJ:CH_AGENT]
    s.batch.obj_pos[done, obj, 0] = s.fx[done]
    s.batch.obj_pos[done, obj, 1] = s.fy[done]
    s.batch.carrying[done, s.agent, 0] = s.batch.carrying[done, s.agent, 1]
    s.batch.carrying[done, s.agent, 1] = -1
    s.show_in_hand(done)
    s.succeed(done, s.fur_at[done], obj, -1)


def _idle(s: _Step, rows: np.ndarray) -> None:
    s.succeed(rows, s.fur_at[rows], -1, -1)


def _wanted(bits: np.ndarray, bit: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """The state bits after toggle (flip), open (set) or close (clear) of ``bit``."""
    return np.where(actions == TOGGLE, bits ^ bit, np.where(actions == OPEN, bits | bit, bits & ~bit))


def _change_bits(s: _Step, rows: np.ndarray) -> None:
    """toggle / open / close: the furniture in front if it has the ability and changes, else the object in front."""
    actions, fur = s.actions[rows], s.fur_at[rows]
    bit = np.where(actions == TOGGLE, TOGGLE_BIT, OPEN_BIT)
    bits = s.fur_bits[rows]
    new = _wanted(bits, bit, actions)
    shuts_on_agent = (s.cell[rows, CH_AGENT] > 0) & ((bits & ~new & OPEN_BIT) > 0)
    on_fur = ((_FUR_MASK[s.fur_code[rows]] & bit) > 0) & (new != bits) & ~shuts_on_agent
    s.set_fur_bits(rows[on_fur], fur[on_fur], new[on_fur])
    s.succeed(rows[on_fur], fur[on_fur], -1, (new[on_fur] & bit[on_fur]) > 0)
    rest, bit, actions = rows[~on_fur], bit[~on_fur], actions[~on_fur]
    obj, bits = s.front_obj[rest], s.obj_bits[rest]
    new = _wanted(bits, bit, actions)
    on_obj = ((_OBJ_MASK[s.obj_code[rest]] & bit) > 0) & (new != bits)
    s.set_obj_bits(rest[on_obj], obj[on_obj], new[on_obj])
    s.succeed(rest[on_obj], s.fur_at[rest[on_obj]], obj[on_obj], (new[on_obj] & bit[on_obj]) > 0)


def _clean(s: _Step, rows: np.ndarray) -> None:
    held = s.batch.carrying[rows, s.agent].astype(np.int64)
    tool = ((held >= 0) & _CLEANING_TOOL[s.houses.obj_code(rows[:, None], held)]).any(axis=1)
    rows = rows[tool]
    fur, bits = s.fur_at[rows], s.fur_bits[rows]
    on_fur = (fur >= 0) & ((bits & _DIRT) > 0)
    s.set_fur_bits(rows[on_fur], fur[on_fur], bits[on_fur] & ~_DIRT)
    s.succeed(rows[on_fur], fur[on_fur], -1, 0)
    rest = rows[~on_fur]
    obj, bits = s.front_obj[rest], s.obj_bits[rest]
    on_obj = (obj >= 0) & ((bits & _DIRT) > 0)
    s.set_obj_bits(rest[on_obj], obj[on_obj], bits[on_obj] & ~_DIRT)
    s.succeed(rest[on_obj], s.fur_at[rest[on_obj]], obj[on_obj], 0)


# (first action, last action, rule): toggle, open and close are consecutive codes and share one rule.
_RULES = (
    (FORWARD, FORWARD, _forward),
    (PICKUP, PICKUP, _pickup),
    (DROP, DROP, _drop),
    (IDLE, IDLE, _idle),
    (TOGGLE, CLOSE, _change_bits),
    (CLEAN, CLEAN, _clean),
)


def apply_joint_actions(
    house: House | HouseBatch, batch: BatchedState, actions: np.ndarray
) -> tuple[BatchOutcome, ...]:
    """One action of every agent in every episode: ``actions`` is (N, n_agents).

    Agents act in index order, as in :meth:`marple_gym.episode.EpisodeState.advance`: agent 1's action
    sees what agent 0's did (two agents cannot enter one cell or take one object).
    """
    actions = np.asarray(actions, dtype=np.int64)
    agents = batch.agent_pos.shape[1]
    if actions.shape != (len(batch), agents):
        raise ValueError(f"expected actions of shape ({len(batch)}, {agents}), one per episode and agent")
    return tuple(apply_actions(house, batch, agent, actions[:, agent]) for agent in range(agents))
