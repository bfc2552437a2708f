"""Many episodes of one house as stacked arrays, stepped together by vectorised rules.

:class:`BatchedState` stacks ``N`` :class:`~marple_gym.world.state.WorldState`
records along a leading axis; :func:`apply_actions` applies one action per
episode for one agent with numpy operations over the whole batch. The rules are
those of :func:`marple_gym.world.rules.apply_action`, action for action (the
tests compare the two over random episodes); only the bookkeeping differs:
outcomes come back as arrays, one entry per episode.

``batch.view(i)`` is a :class:`WorldState` whose arrays are views into the
batch, so the scalar rules, the planner and feasibility checks can work on one
episode of a batch in place.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np

from marple_gym.world.actions import NUM_ACTIONS, Action, Outcome
from marple_gym.world.assets import ASSETS, DOOR, DUSTY_BIT, OPEN_BIT, STAIN_BIT, TOGGLE_BIT, WALL
from marple_gym.world.house import DIR_VEC, House
from marple_gym.world.state import (
    CH_AGENT,
    CH_AGENT_DIR,
    CH_FUR,
    CH_FUR_STATE,
    CH_OBJ,
    CH_OBJ_ID,
    CH_OBJ_STATE,
    WorldState,
)

_DX = np.array([v[0] for v in DIR_VEC], dtype=np.int64)
_DY = np.array([v[1] for v in DIR_VEC], dtype=np.int64)
_FUR_MASK = ASSETS.fur_mask.astype(np.int64)
_FUR_HOLDS = ASSETS.fur_holds > 0
_FUR_GATED = ASSETS.fur_gated
_OBJ_MASK = ASSETS.obj_mask.astype(np.int64)
_CLEANING_TOOL = ASSETS.obj_cleaning_tool
_DIRT = DUSTY_BIT | STAIN_BIT

LEFT, RIGHT, FORWARD = int(Action.left), int(Action.right), int(Action.forward)
PICKUP, DROP, TOGGLE = int(Action.pickup), int(Action.drop), int(Action.toggle)
OPEN, CLOSE, CLEAN, IDLE = int(Action.open), int(Action.close), int(Action.clean), int(Action.idle)


@dataclass(eq=False)
class BatchedState:
    """``N`` world states of one house, each field stacked along a leading episode axis."""

    grid: np.ndarray  # (N, H, W, 8) uint8
    fur_state: np.ndarray  # (N, n_fur) uint8
    obj_pos: np.ndarray  # (N, n_obj, 2) int16
    obj_state: np.ndarray  # (N, n_obj) uint8
    agent_pos: np.ndarray  # (N, n_agents, 2) int16
    agent_dir: np.ndarray  # (N, n_agents) int8
    carrying: np.ndarray  # (N, n_agents, HANDS) int16

    @classmethod
    def repeat(cls, state: WorldState, n: int) -> BatchedState:
        """``n`` copies of one state."""
        if n < 1:
            raise ValueError(f"a batch needs at least one episode, got n={n}")
        return cls(*(np.repeat(getattr(state, f.name)[None], n, axis=0) for f in fields(WorldState)))

    @classmethod
    def stack(cls, states: list[WorldState]) -> BatchedState:
        """Stack states of houses with equal shapes (grid size, furniture, objects and agents)."""
        try:
            return cls(*(np.stack([getattr(s, f.name) for s in states]) for f in fields(WorldState)))
        except ValueError as error:
            raise ValueError(f"cannot stack world states of different shapes: {error}") from None

    def __len__(self) -> int:
        return len(self.grid)

    def view(self, i: int) -> WorldState:
        """Episode ``i`` as a :class:`WorldState` whose arrays are views into this batch."""
        return WorldState(*(getattr(self, f.name)[i] for f in fields(self)))

    def copy(self) -> BatchedState:
        return BatchedState(*(getattr(self, f.name).copy() for f in fields(self)))

    def assign(self, rows: np.ndarray, state: WorldState) -> None:
        """Overwrite episodes ``rows`` with ``state`` (an autoreset)."""
        for f in fields(self):
            getattr(self, f.name)[rows] = getattr(state, f.name)


def state_at(table: np.ndarray, rows: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``table[rows, index]`` as int64, 0 where ``index`` is -1 (none) or the table has no columns."""
    if table.shape[1] == 0:
        return np.zeros(len(rows), dtype=np.int64)
    return np.where(index >= 0, table[rows, np.maximum(index, 0)], 0).astype(np.int64)


class BatchOutcome(NamedTuple):
    """What one action per episode did: the fields of :class:`Outcome` as (N,) arrays."""

    action: np.ndarray
    success: np.ndarray
    fur: np.ndarray
    obj: np.ndarray
    value: np.ndarray
    x: np.ndarray
    y: np.ndarray

    def row(self, i: int) -> Outcome:
        """Episode ``i``'s outcome, as the scalar rules report it."""
        return Outcome(
            int(self.action[i]),
            bool(self.success[i]),
            int(self.fur[i]),
            int(self.obj[i]),
            int(self.value[i]),
            int(self.x[i]),
            int(self.y[i]),
        )


class _Step:
    """The working arrays of one batched step: the faced cells and the outcome being filled in."""

    def __init__(self, house: House, batch: BatchedState, agent: int, actions: np.ndarray) -> None:
        self.house, self.batch, self.agent, self.actions = house, batch, agent, actions
        n = len(actions)
        self.rows = np.arange(n)
        self.x = batch.agent_pos[:, agent, 0].astype(np.int64)
        self.y = batch.agent_pos[:, agent, 1].astype(np.int64)
        self.success = np.zeros(n, dtype=bool)
        self.fur = np.full(n, -1, dtype=np.int64)
        self.obj = np.full(n, -1, dtype=np.int64)
        self.value = np.full(n, -1, dtype=np.int64)

    def face(self, d: np.ndarray) -> None:
        self.fx, self.fy = self.x + _DX[d], self.y + _DY[d]
        self.cell = self.batch.grid[self.rows, self.fy, self.fx].astype(np.int64)
        self.fur_at = self.house.fur_map[self.fy, self.fx].astype(np.int64)

    def closed(self, rows: np.ndarray, fur: np.ndarray) -> np.ndarray:
        """Is furniture ``fur`` (-1: none) a closed container in episodes ``rows``?"""
        shut = (state_at(self.batch.fur_state, rows, fur) & OPEN_BIT) == 0
        return (fur >= 0) & _FUR_GATED[self.house.fur_codes[fur]] & shut

    def object_in_front(self, rows: np.ndarray) -> np.ndarray:
        """The reachable object on each faced cell of ``rows``, -1 where none."""
        cell = self.cell[rows]
        obj = cell[:, CH_OBJ_ID] - 1
        ok = (obj >= 0) & (cell[:, CH_AGENT] == 0) & ~self.closed(rows, self.fur_at[rows])
        return np.where(ok, obj, -1)

    def show_in_hand(self, rows: np.ndarray) -> None:
        """Paint the object each agent of ``rows`` holds longest onto its cell (channels 3-5)."""
        batch, a = self.batch, self.agent
        x, y = batch.agent_pos[rows, a, 0], batch.agent_pos[rows, a, 1]
        held = batch.carrying[rows, a, 0].astype(np.int64)
        some = held >= 0
        batch.grid[rows, y, x, CH_OBJ] = self.house.obj_codes[held]
        batch.grid[rows, y, x, CH_OBJ_STATE] = np.where(some, state_at(batch.obj_state, rows, held) + 1, 0)
        batch.grid[rows, y, x, CH_OBJ_ID] = held + 1

    def set_fur_bits(self, rows: np.ndarray, fur: np.ndarray, bits: np.ndarray) -> None:
        self.batch.fur_state[rows, fur] = bits
        if rows.size:
            cells = self.house.fur_map[None] == fur[:, None, None]
            plane = self.batch.grid[rows, :, :, CH_FUR_STATE]
            self.batch.grid[rows, :, :, CH_FUR_STATE] = np.where(cells, (bits + 1)[:, None, None], plane)

    def set_obj_bits(self, rows: np.ndarray, obj: np.ndarray, bits: np.ndarray) -> None:
        self.batch.obj_state[rows, obj] = bits
        self.batch.grid[rows, self.fy[rows], self.fx[rows], CH_OBJ_STATE] = bits + 1

    def succeed(self, rows: np.ndarray, fur: np.ndarray | int, obj: np.ndarray | int, value: np.ndarray | int) -> None:
        self.success[rows] = True
        self.fur[rows], self.obj[rows], self.value[rows] = fur, obj, value


def apply_actions(house: House, batch: BatchedState, agent: int, actions: np.ndarray) -> BatchOutcome:
    """Apply ``actions[i]`` of agent ``agent`` to episode ``i`` of ``batch`` in place, for every ``i``."""
    actions = np.asarray(actions, dtype=np.int64)
    if actions.shape != (len(batch),):
        raise ValueError(f"expected one action per episode, shape ({len(batch)},), got {actions.shape}")
    if actions.size and (actions.min() < 0 or actions.max() >= NUM_ACTIONS):
        raise ValueError(f"unknown action in {np.unique(actions).tolist()}; expected 0..9 (see marple_gym.Action)")
    s = _Step(house, batch, agent, actions)
    d = batch.agent_dir[:, agent].astype(np.int64)
    turn = s.rows[actions <= RIGHT]
    if turn.size:
        d[turn] = (d[turn] + np.where(actions[turn] == LEFT, 3, 1)) % 4
        batch.agent_dir[turn, agent] = d[turn]
        batch.grid[turn, s.y[turn], s.x[turn], CH_AGENT_DIR] = d[turn] + 1
        s.success[turn] = True
    s.face(d)
    for code, rule in _RULES:
        rows = s.rows[np.isin(actions, code)] if isinstance(code, tuple) else s.rows[actions == code]
        if rows.size:
            rule(s, rows)
    return BatchOutcome(actions, s.success, s.fur, s.obj, s.value, s.fx, s.fy)


def _forward(s: _Step, rows: np.ndarray) -> None:
    cell = s.cell[rows]
    fur = cell[:, CH_FUR]
    open_door = (fur == DOOR) & (((cell[:, CH_FUR_STATE] - 1) & OPEN_BIT) > 0)
    ok = rows[(cell[:, CH_OBJ] == 0) & (cell[:, CH_AGENT] == 0) & ((fur == 0) | open_door)]
    grid = s.batch.grid
    # The agent and the object it shows in hand (channels 3-7) move together.
    grid[ok, s.fy[ok], s.fx[ok], CH_OBJ:] = grid[ok, s.y[ok], s.x[ok], CH_OBJ:]
    grid[ok, s.y[ok], s.x[ok], CH_OBJ:] = 0
    s.batch.agent_pos[ok, s.agent, 0] = s.fx[ok]
    s.batch.agent_pos[ok, s.agent, 1] = s.fy[ok]
    s.succeed(ok, -1, -1, -1)


def _pickup(s: _Step, rows: np.ndarray) -> None:
    cell, fur = s.cell[rows], s.fur_at[rows]
    obj = cell[:, CH_OBJ_ID] - 1
    hands = s.batch.carrying[rows, s.agent].astype(np.int64)
    ok = (obj >= 0) & (cell[:, CH_AGENT] == 0) & ~s.closed(rows, fur) & (hands < 0).any(axis=1)
    done, obj, fur, first = rows[ok], obj[ok], fur[ok], hands[ok, 0] < 0
    s.batch.grid[done, s.fy[done], s.fx[done], CH_OBJ:CH_AGENT] = 0
    s.batch.obj_pos[done, obj] = -1
    s.batch.carrying[done[first], s.agent, 0] = obj[first]
    s.batch.carrying[done[~first], s.agent, 1] = obj[~first]
    s.show_in_hand(done[first])
    s.succeed(done, fur, obj, -1)


def _drop(s: _Step, rows: np.ndarray) -> None:
    cell = s.cell[rows]
    obj = s.batch.carrying[rows, s.agent, 0].astype(np.int64)
    code = cell[:, CH_FUR]
    fur = np.where(code > 0, s.fur_at[rows], -1)
    holds = (code != WALL) & (code != DOOR) & _FUR_HOLDS[code] & ~s.closed(rows, fur)
    ok = (obj >= 0) & (cell[:, CH_OBJ] == 0) & (cell[:, CH_AGENT] == 0) & ((code == 0) | holds)
    done, obj, fur = rows[ok], obj[ok], fur[ok]
    fx, fy = s.fx[done], s.fy[done]
    s.batch.grid[done, fy, fx, CH_OBJ] = s.house.obj_codes[obj]
    s.batch.grid[done, fy, fx, CH_OBJ_STATE] = s.batch.obj_state[done, obj] + 1
    s.batch.grid[done, fy, fx, CH_OBJ_ID] = obj + 1
    s.batch.obj_pos[done, obj, 0] = fx
    s.batch.obj_pos[done, obj, 1] = fy
    s.batch.carrying[done, s.agent, 0] = s.batch.carrying[done, s.agent, 1]
    s.batch.carrying[done, s.agent, 1] = -1
    s.show_in_hand(done)
    s.succeed(done, fur, obj, -1)


def _idle(s: _Step, rows: np.ndarray) -> None:
    s.succeed(rows, s.fur_at[rows], -1, -1)


def _wanted(bits: np.ndarray, bit: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """The state bits after toggle (flip), open (set) or close (clear) of ``bit``."""
    return np.select([actions == TOGGLE, actions == OPEN], [bits ^ bit, bits | bit], bits & ~bit)


def _change_bits(s: _Step, rows: np.ndarray) -> None:
    """toggle / open / close: the furniture in front if it has the ability and changes, else the object in front."""
    actions, fur = s.actions[rows], s.fur_at[rows]
    bit = np.where(actions == TOGGLE, TOGGLE_BIT, OPEN_BIT)
    bits = state_at(s.batch.fur_state, rows, fur)
    new = _wanted(bits, bit, actions)
    shuts_on_agent = (s.cell[rows, CH_AGENT] > 0) & ((bits & ~new & OPEN_BIT) > 0)
    on_fur = (fur >= 0) & ((_FUR_MASK[s.house.fur_codes[fur]] & bit) > 0) & (new != bits) & ~shuts_on_agent
    s.set_fur_bits(rows[on_fur], fur[on_fur], new[on_fur])
    s.succeed(rows[on_fur], fur[on_fur], -1, (new[on_fur] & bit[on_fur]) > 0)
    rest, bit, actions = rows[~on_fur], bit[~on_fur], actions[~on_fur]
    obj = s.object_in_front(rest)
    bits = state_at(s.batch.obj_state, rest, obj)
    new = _wanted(bits, bit, actions)
    on_obj = (obj >= 0) & ((_OBJ_MASK[s.house.obj_codes[obj]] & bit) > 0) & (new != bits)
    s.set_obj_bits(rest[on_obj], obj[on_obj], new[on_obj])
    s.succeed(rest[on_obj], s.fur_at[rest[on_obj]], obj[on_obj], (new[on_obj] & bit[on_obj]) > 0)


def _clean(s: _Step, rows: np.ndarray) -> None:
    held = s.batch.carrying[rows, s.agent].astype(np.int64)
    tool = ((held >= 0) & _CLEANING_TOOL[s.house.obj_codes[held]]).any(axis=1)
    rows = rows[tool]
    fur = s.fur_at[rows]
    bits = state_at(s.batch.fur_state, rows, fur)
    on_fur = (fur >= 0) & ((bits & _DIRT) > 0)
    s.set_fur_bits(rows[on_fur], fur[on_fur], bits[on_fur] & ~_DIRT)
    s.succeed(rows[on_fur], fur[on_fur], -1, 0)
    rest = rows[~on_fur]
    obj = s.object_in_front(rest)
    bits = state_at(s.batch.obj_state, rest, obj)
    on_obj = (obj >= 0) & ((bits & _DIRT) > 0)
    s.set_obj_bits(rest[on_obj], obj[on_obj], bits[on_obj] & ~_DIRT)
    s.succeed(rest[on_obj], s.fur_at[rest[on_obj]], obj[on_obj], 0)


_RULES = (
    (FORWARD, _forward),
    (PICKUP, _pickup),
    (DROP, _drop),
    (IDLE, _idle),
    ((TOGGLE, OPEN, CLOSE), _change_bits),
    (CLEAN, _clean),
)


def apply_joint_actions(house: House, batch: BatchedState, actions: np.ndarray) -> tuple[BatchOutcome, ...]:
    """One action of every agent in every episode: ``actions`` is (N, n_agents).

    Agents act in index order, as in :func:`marple_gym.episode.transition.advance`: agent 1's action
    sees what agent 0's did (two agents cannot enter one cell or take one object).
    """
    actions = np.asarray(actions, dtype=np.int64)
    agents = batch.agent_pos.shape[1]
    if actions.shape != (len(batch), agents):
        raise ValueError(f"expected actions of shape ({len(batch)}, {agents}), one per episode and agent")
    return tuple(apply_actions(house, batch, agent, actions[:, agent]) for agent in range(agents))
