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
from functools import lru_cache

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
    NUM_CHANNELS,
)

_DX = np.array([v[0] for v in DIR_VEC], dtype=np.int64)
_DY = np.array([v[1] for v in DIR_VEC], dtype=np.int64)
# The asset tables are indexed by the codes the grid shows; code 0 (nothing) and the wall have no ability, hold
# nothing and are not gated, so a cell without a furniture instance reads "no" from every one of them.
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


def _channel_bytes(first: int, last: int) -> np.uint64:
    """The bytes of channels ``first .. last - 1`` in a cell read as one 8-byte word (in the machine's byte order)."""
    mask = np.zeros(NUM_CHANNELS, dtype=np.uint8)
    mask[first:last] = 0xFF
    return mask.view(np.uint64)[0]


_OBJECT_BYTES = _channel_bytes(CH_OBJ, CH_AGENT)
"""A cell's object channels: type, state and id (on an agent's cell, the object it holds longest)."""
_MOVING_BYTES = _channel_bytes(CH_OBJ, NUM_CHANNELS)
"""What moves with an agent: the object it shows in hand, its id and its direction."""


@lru_cache(maxsize=64)
def _bases(n: int, num_cells: int) -> np.ndarray:
    """The index of each episode's first cell in a batch's flat cells (read-only: every step of a batch asks)."""
    base = np.arange(n, dtype=np.int64) * num_cells
    base.flags.writeable = False
    return base


class _Step:
    """The working arrays of one batched step: the agents' and faced cells, and the outcome being filled in.

    Cells are addressed by one flat index into the batch's cells (``here``: the agent's
    cell, ``front``: the faced one). A cell's eight channels are read and written as
    one 8-byte word (``words``), a single channel as one byte (``bytes``): one
    one-dimensional gather or scatter per access, where a fancy index with a channel
    slice costs several times as much. The faced cells are gathered once
    (``front_word``; ``cell`` shows them as (N, 8) channels); each rule reads what it
    needs for its own episodes only, since the grid's channels mirror the state arrays
    (see :mod:`marple_gym.world.state`). Outcome fields start as -1 (none) and a rule
    writes only what differs.
    """

    def __init__(self, houses: HouseBatch, batch: BatchedState, agent: int, actions: np.ndarray) -> None:
        self.houses, self.batch, self.agent, self.actions = houses, batch, agent, actions
        n = len(actions)
        self.bytes = batch.grid.reshape(-1)
        self.words = batch.grid.view(np.uint64).reshape(-1)
        self.base = _bases(n, houses.num_cells)
        pos = batch.agent_pos[:, agent]
        self.x, self.y = pos[:, 0].astype(np.int64), pos[:, 1].astype(np.int64)
        self.here = self.base + self.y * houses.width + self.x
        self.success = np.zeros(n, dtype=bool)
        self.fur = np.full(n, -1, dtype=np.int64)
        self.obj = np.full(n, -1, dtype=np.int64)
        self.value = np.full(n, -1, dtype=np.int64)

    def face(self, d: np.ndarray) -> None:
        """Read the cells the agents face after turning to ``d``."""
        self.fx, self.fy = self.x + _DX[d], self.y + _DY[d]
        self.local = self.fy * self.houses.width + self.fx
        self.front = self.base + self.local
        self.front_word = self.words[self.front]
        self.cell = self.front_word.view(np.uint8).reshape(-1, NUM_CHANNELS)

    def fur_at(self, rows: np.ndarray) -> np.ndarray:
        """The furniture instance each agent of ``rows`` faces (-1: none; walls are no instance)."""
        return self.houses.fur_map[self.houses.cell(self.local[rows], self.front[rows])]

    @staticmethod
    def shut(cell: np.ndarray) -> np.ndarray:
        """Whether each faced cell (rows of ``cell``) is part of a closed container."""
        # The state channel is 1 + bits on every furniture cell; where it is 0 (floor) the code is not gated.
        return _FUR_GATED[cell[:, CH_FUR]] & (((cell[:, CH_FUR_STATE] - 1) & OPEN_BIT) == 0)

    def reachable_object(self, cell: np.ndarray) -> np.ndarray:
        """The object on each faced cell (rows of ``cell``) that can be taken or changed, -1 where none: no agent
        stands on it and no closed container hides it."""
        obj = cell[:, CH_OBJ_ID].astype(np.int64) - 1
        return np.where((cell[:, CH_AGENT] == 0) & ~self.shut(cell), obj, -1)

    def show_in_hand(self, rows: np.ndarray) -> None:
        """Paint the object each agent of ``rows`` holds longest onto its cell (the object channels)."""
        held = self.batch.carrying[rows, self.agent, 0].astype(np.int64)
        shown = np.zeros((len(rows), NUM_CHANNELS), dtype=np.uint8)
        shown[:, CH_OBJ] = self.houses.obj_code(rows, held)
        shown[:, CH_OBJ_STATE] = np.where(held >= 0, state_at(self.batch.obj_state, rows, held) + 1, 0)
        shown[:, CH_OBJ_ID] = held + 1
        here = self.here[rows]
        self.words[here] = (self.words[here] & ~_OBJECT_BYTES) | shown.view(np.uint64).reshape(-1)

    def set_fur_bits(self, rows: np.ndarray, fur: np.ndarray, bits: np.ndarray) -> None:
        self.batch.fur_state[rows, fur] = bits
        cells = self.base[rows, None] + self.houses.cells_of(rows, fur)
        self.bytes[cells * NUM_CHANNELS + CH_FUR_STATE] = (bits + 1)[:, None]

    def set_obj_bits(self, rows: np.ndarray, obj: np.ndarray, bits: np.ndarray) -> None:
        self.batch.obj_state[rows, obj] = bits
        self.bytes[self.front[rows] * NUM_CHANNELS + CH_OBJ_STATE] = bits + 1

    def succeed(
        self,
        rows: np.ndarray,
        fur: np.ndarray | None = None,
        obj: np.ndarray | None = None,
        value: np.ndarray | int | None = None,
    ) -> None:
        """Mark ``rows`` successful, with the furniture, object and value they involved (None: none, -1)."""
        self.success[rows] = True
        for field, given in ((self.fur, fur), (self.obj, obj), (self.value, value)):
            if given is not None:
                field[rows] = given


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
        d[turn] = turned = _TURN[actions[turn], d[turn]]
        batch.agent_dir[turn, agent] = turned
        s.bytes[s.here[turn] * NUM_CHANNELS + CH_AGENT_DIR] = turned + 1
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
    start = [0, *np.cumsum(np.bincount(actions, minlength=NUM_ACTIONS)).tolist()]
    return lambda first, last: order[start[first] : start[last + 1]]


def _forward(s: _Step, rows: np.ndarray) -> None:
    cell = s.cell[rows]
    fur = cell[:, CH_FUR]
    open_door = (fur == DOOR) & (((cell[:, CH_FUR_STATE] - 1) & OPEN_BIT) > 0)
    ok = rows[(cell[:, CH_OBJ] == 0) & (cell[:, CH_AGENT] == 0) & ((fur == 0) | open_door)]
    here, front = s.here[ok], s.front[ok]
    # The agent and the object it shows in hand (channels 3-7) move together.
    moving = s.words[here]
    s.words[front] = (s.front_word[ok] & ~_MOVING_BYTES) | (moving & _MOVING_BYTES)
    s.words[here] = moving & ~_MOVING_BYTES
    s.batch.agent_pos[ok, s.agent, 0] = s.fx[ok]
    s.batch.agent_pos[ok, s.agent, 1] = s.fy[ok]
    s.succeed(ok)


def _pickup(s: _Step, rows: np.ndarray) -> None:
    obj = s.reachable_object(s.cell[rows])
    hands = s.batch.carrying[rows, s.agent]
    ok = (obj >= 0) & (hands < 0).any(axis=1)
    done, obj, first = rows[ok], obj[ok], hands[ok, 0] < 0
    # Into an empty first hand: the agent's cell shows the object as its cell showed it.
    shown = done[first]
    here = s.here[shown]
    s.words[here] = (s.words[here] & ~_OBJECT_BYTES) | (s.front_word[shown] & _OBJECT_BYTES)
    s.words[s.front[done]] = s.front_word[done] & ~_OBJECT_BYTES
    s.batch.obj_pos[done, obj] = -1
    s.batch.carrying[shown, s.agent, 0] = obj[first]
    s.batch.carrying[done[~first], s.agent, 1] = obj[~first]
    s.succeed(done, s.fur_at(done), obj)


def _drop(s: _Step, rows: np.ndarray) -> None:
    cell = s.cell[rows]
    obj = s.batch.carrying[rows, s.agent, 0].astype(np.int64)
    code = cell[:, CH_FUR]
    holds = (code != WALL) & (code != DOOR) & _FUR_HOLDS[code] & ~s.shut(cell)
    ok = (obj >= 0) & (cell[:, CH_OBJ] == 0) & (cell[:, CH_AGENT] == 0) & ((code == 0) | holds)
    done, obj = rows[ok], obj[ok]
    # The agent's cell shows the object held longest, the one put down: the faced cell shows it now.
    front = s.front[done]
    s.words[front] = (s.front_word[done] & ~_OBJECT_BYTES) | (s.words[s.here[done]] & _OBJECT_BYTES)
    s.batch.obj_pos[done, obj, 0] = s.fx[done]
    s.batch.obj_pos[done, obj, 1] = s.fy[done]
    s.batch.carrying[done, s.agent, 0] = s.batch.carrying[done, s.agent, 1]
    s.batch.carrying[done, s.agent, 1] = -1
    s.show_in_hand(done)
    s.succeed(done, s.fur_at(done), obj)


def _idle(s: _Step, rows: np.ndarray) -> None:
    s.succeed(rows, s.fur_at(rows))


def _wanted(bits: np.ndarray, bit: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """The state bits after toggle (flip), open (set) or close (clear) of ``bit``."""
    return np.where(actions == TOGGLE, bits ^ bit, np.where(actions == OPEN, bits | bit, bits & ~bit))


def _change_bits(s: _Step, rows: np.ndarray) -> None:
    """toggle / open / close: the furniture in front if it has the ability and changes, else the object in front."""
    actions, cell, fur = s.actions[rows], s.cell[rows], s.fur_at(rows)
    bit = np.where(actions == TOGGLE, TOGGLE_BIT, OPEN_BIT)
    bits = cell[:, CH_FUR_STATE].astype(np.int64) - 1  # meaningless where no furniture is faced: masked by its code
    new = _wanted(bits, bit, actions)
    shuts_on_agent = (cell[:, CH_AGENT] > 0) & ((bits & ~new & OPEN_BIT) > 0)
    on = ((_FUR_MASK[cell[:, CH_FUR]] & bit) > 0) & (new != bits) & ~shuts_on_agent
    s.set_fur_bits(rows[on], fur[on], new[on])
    s.succeed(rows[on], fur[on], value=(new[on] & bit[on]) > 0)
    rest = ~on
    rows, cell, fur, bit, actions = rows[rest], cell[rest], fur[rest], bit[rest], actions[rest]
    obj = s.reachable_object(cell)
    bits = cell[:, CH_OBJ_STATE].astype(np.int64) - 1  # meaningless where no object is reachable: masked by obj
    new = _wanted(bits, bit, actions)
    on = (obj >= 0) & ((_OBJ_MASK[cell[:, CH_OBJ]] & bit) > 0) & (new != bits)
    s.set_obj_bits(rows[on], obj[on], new[on])
    s.succeed(rows[on], fur[on], obj[on], (new[on] & bit[on]) > 0)


def _clean(s: _Step, rows: np.ndarray) -> None:
    held = s.batch.carrying[rows, s.agent].astype(np.int64)
    rows = rows[_CLEANING_TOOL[s.houses.obj_code(rows[:, None], held)].any(axis=1)]  # an empty hand reads code 0
    cell, fur = s.cell[rows], s.fur_at(rows)
    bits = cell[:, CH_FUR_STATE].astype(np.int64) - 1
    on = (fur >= 0) & ((bits & _DIRT) > 0)
    s.set_fur_bits(rows[on], fur[on], bits[on] & ~_DIRT)
    s.succeed(rows[on], fur[on], value=0)
    rest = ~on
    rows, cell, fur = rows[rest], cell[rest], fur[rest]
    obj = s.reachable_object(cell)
    bits = cell[:, CH_OBJ_STATE].astype(np.int64) - 1
    on = (obj >= 0) & ((bits & _DIRT) > 0)
    s.set_obj_bits(rows[on], obj[on], bits[on] & ~_DIRT)
    s.succeed(rows[on], fur[on], obj[on], 0)


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
