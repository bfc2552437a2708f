"""A dense reward for learning: subgoal bonuses plus potential-based distance shaping.

``DenseReward`` adds two terms to the env's reward (1 on completing the mission):

* ``subgoal_bonus`` on each step that achieves a subgoal (the env's own
  ``subgoal_reward``, counted here so the wrapper works on any MARPLE env);
* ``F = gamma * phi(s') - phi(s)`` with the potential
  ``phi(s) = -distance_weight * (r(s) - 1 + min(d(s), width + height) / (width + height))``,
  where ``r(s)`` is the number of subgoals left (the current one included) and
  ``d(s)`` the fewest moves and turns that bring the agent onto a floor cell
  facing a target of its current subgoal, the pose its action needs
  (:func:`facing_distance_map`; closed doors count as passable, as the agent
  can open them). On the step that ends the episode ``phi(s') = 0``. Counting
  the turns matters: every skill acts on the faced cell, and a potential of
  position alone says nothing about the last turn towards the target.
  Counting the subgoals left matters for missions of several: with the
  distance alone, achieving a subgoal would lower the potential (the next
  target is farther than the one just reached, at distance 0), so the step that
  makes progress would be punished and PPO learns not to take it (on
  ``Marple-Put-OneRoom-v0`` it stopped picking the remote up). With ``r(s)``
  each achieved subgoal raises the potential by at least ``distance_weight``
  minus the next target's scaled distance, never less than nothing.

The distance term is potential-based shaping (Ng, Harada and Russell, 1999): it
changes every policy's return by ``-phi(s_0)`` only, so the optimal policies of
the shaped task are those of the unshaped one. The subgoal bonus is not
potential-based; since every subgoal of a mission is on the way to completing
it, it rewards the same behaviour the sparse reward does, sooner. Set
``subgoal_bonus=0`` for shaping that provably changes nothing but the
learning speed.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from marple_gym.envs.household import NOT_ACHIEVED
from marple_gym.evidence.egocentric import DIR_VEC
from marple_gym.missions.feasibility import target_cells
from marple_gym.world.assets import DOOR
from marple_gym.world.navigation import bitboard, walkable_mask
from marple_gym.world.state import CH_AGENT, CH_FUR
from marple_gym.world.world import World


def steps_to_subgoal(world: World, agent: int, subgoal) -> int | None:
    """Steps from the agent to the nearest cell from which it can act on ``subgoal`` (None: unreachable)."""
    targets = target_cells(world, agent, subgoal)
    if not targets:
        return None
    state = world.state
    board = bitboard(state.grid.shape[1], state.grid.shape[0])
    goal = 0
    for x, y in targets:
        goal |= board.bit(x, y)
    stand = board.neighbours(goal)
    passable = board.from_mask(walkable_mask(state) | (state.grid[..., CH_FUR] == DOOR))
    x, y = state.agent_pos[agent].tolist()
    for distance, layer in enumerate(board.layers(board.bit(x, y), passable)):
        if layer & stand:
            return distance
    return None


def _shift(mask: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """``out[y, x] = mask[y + dy, x + dx]``, False beyond the border."""
    height, width = mask.shape
    out = np.zeros_like(mask)
    out[max(0, -dy) : height - max(0, dy), max(0, -dx) : width - max(0, dx)] = mask[
        max(0, dy) : height - max(0, -dy), max(0, dx) : width - max(0, -dx)
    ]
    return out


def facing_distance_map(world: World, agent: int, subgoal) -> np.ndarray:
    """(4, H, W) actions (moves and turns) from every pose to one facing a target of ``subgoal``; -1: none.

    ``map[direction, y, x]`` is the fewest ``left``, ``right`` and ``forward``
    actions that bring ``agent``, standing on (x, y) and facing ``direction``
    (0 east, 1 south, 2 west, 3 north), onto a floor cell facing a target cell of
    the subgoal: the pose from which its action applies. A breadth-first search
    backwards from those poses, for every pose at once, so a caller can look the
    distance up at each step while the house does not change. Closed doors count
    as floor (the agent can open them); the agent's own cell counts as floor.
    """
    state = world.state
    height, width = state.grid.shape[:2]
    distances = np.full((4, height, width), -1, dtype=np.int64)
    targets = target_cells(world, agent, subgoal)
    if not targets:
        return distances
    target = np.zeros((height, width), dtype=bool)
    for x, y in targets:
        target[y, x] = True
    fur = state.grid[..., CH_FUR]
    own = (state.grid[..., CH_AGENT] == agent + 1) & (fur == 0)
    floor = walkable_mask(state) | own | (fur == DOOR)
    # facing d from (x, y) reaches (x + dx, y + dy)
    frontier = np.stack([floor & _shift(target, int(dx), int(dy)) for dx, dy in DIR_VEC])
    seen = frontier.copy()
    distance = 0
    while frontier.any():
        distances[frontier] = distance
        # one action earlier: a turn either way, or a step forward from the cell behind
        before = np.roll(frontier, 1, axis=0) | np.roll(frontier, -1, axis=0)
        before |= np.stack([floor & _shift(frontier[d], int(dx), int(dy)) for d, (dx, dy) in enumerate(DIR_VEC)])
        frontier = before & ~seen
        seen |= frontier
        distance += 1
    return distances


SUBGOAL_BONUS = 0.1
"""``DenseReward``'s default reward per achieved subgoal (a tenth of the mission's reward)."""


class DenseReward(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Subgoal bonuses and potential-based distance shaping on top of the env's reward (see module docs)."""

    def __init__(
        self, env: gym.Env, subgoal_bonus: float = SUBGOAL_BONUS, distance_weight: float = 0.5, gamma: float = 0.99
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self, subgoal_bonus=subgoal_bonus, distance_weight=distance_weight, gamma=gamma
        )
        gym.Wrapper.__init__(self, env)
        if not 0.0 < gamma <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {gamma}")
        self.subgoal_bonus = float(subgoal_bonus)
        self.distance_weight = float(distance_weight)
        self.gamma = float(gamma)
        self._potential = 0.0
        self._map_key: tuple | None = None
        self._map = np.zeros((4, 0, 0), dtype=np.int64)

    def potential(self) -> float:
        """phi of the current state: minus the subgoals left after this one and the scaled distance to its target."""
        base = self.env.unwrapped
        progress = base.progress
        if progress.complete:
            return 0.0
        state = base.world.state
        x, y = state.agent_pos[0].tolist()
        steps = int(self._distances()[int(state.agent_dir[0]), y, x])
        scale = base.width + base.height
        distance = (scale if steps < 0 else min(steps, scale)) / scale
        later = len(progress.mission.subgoals) - progress.index - 1
        return -self.distance_weight * (later + distance)

    def _distances(self) -> np.ndarray:
        """The current subgoal's distance map, recomputed only when the house, hands or subgoal change."""
        base = self.env.unwrapped
        state = base.world.state
        # everything the map depends on except where this agent stands and faces
        key = (
            base.progress.index,
            base.progress.current,
            state.carrying[0].tobytes(),
            state.grid[..., :CH_AGENT].tobytes(),
            state.agent_pos[1:].tobytes(),
        )
        if key != self._map_key:
            self._map = facing_distance_map(base.world, 0, base.progress.current)
            self._map_key = key
        return self._map

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self._potential = self.potential()
        return obs, info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        potential = 0.0 if terminated else self.potential()
        reward += self.gamma * potential - self._potential
        if info["achieved"] != NOT_ACHIEVED:
            reward += self.subgoal_bonus
        self._potential = potential
        return obs, float(reward), terminated, truncated, info
