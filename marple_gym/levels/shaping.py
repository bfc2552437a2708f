"""A dense reward for learning: subgoal bonuses plus potential-based distance shaping.

``DenseReward`` adds two terms to the env's reward (1 on completing the mission):

* ``subgoal_bonus`` on each step that achieves a subgoal (the env's own
  ``subgoal_reward``, counted here so the wrapper works on any MARPLE env);
* ``F = gamma * phi(s') - phi(s)`` with the potential
  ``phi(s) = -distance_weight * d(s) / (width + height)``, where ``d(s)`` is the
  number of steps on the floor from the agent to the nearest cell next to a
  target of its current subgoal (closed doors count as passable, as the agent
  can open them). On the step that ends the episode ``phi(s') = 0``.

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

from marple_gym.missions.feasibility import target_cells
from marple_gym.world.assets import DOOR
from marple_gym.world.navigation import bitboard, walkable_mask
from marple_gym.world.state import CH_FUR
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


class DenseReward(gym.Wrapper):
    """Subgoal bonuses and potential-based distance shaping on top of the env's reward (see module docs)."""

    def __init__(
        self, env: gym.Env, subgoal_bonus: float = 0.1, distance_weight: float = 0.5, gamma: float = 0.99
    ) -> None:
        super().__init__(env)
        if not 0.0 < gamma <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {gamma}")
        self.subgoal_bonus = float(subgoal_bonus)
        self.distance_weight = float(distance_weight)
        self.gamma = float(gamma)
        self._potential = 0.0

    def potential(self) -> float:
        """phi of the current state: minus the scaled distance to the current subgoal's target."""
        base = self.env.unwrapped
        if base.progress.complete:
            return 0.0
        steps = steps_to_subgoal(base.world, 0, base.progress.current)
        scale = base.width + base.height
        return -self.distance_weight * (scale if steps is None else min(steps, scale)) / scale

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self._potential = self.potential()
        return obs, info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        potential = 0.0 if terminated else self.potential()
        reward += self.gamma * potential - self._potential
        if info.get("achieved") is not None:
            reward += self.subgoal_bonus
        self._potential = potential
        return obs, float(reward), terminated, truncated, info
