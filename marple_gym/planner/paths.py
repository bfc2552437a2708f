"""Shortest paths on the grid, sampled uniformly among all shortest paths.

A breadth-first search from the agent counts, for every cell it reaches, how
many shortest paths lead there. Walking back from the goal and picking each
predecessor with probability proportional to its count draws every shortest
path with the same probability: this is where the planner's behavioural
variety comes from.
"""

from __future__ import annotations

import numpy as np

from marple_gym.world.house import House
from marple_gym.world.state import CH_AGENT, CH_OBJ, WorldState


def passable_cells(house: House, state: WorldState, agent: int, through_agents: bool = False) -> list[bool]:
    """Flat (y * width + x) passability for planning: open floor and doors, free of objects and agents.

    Closed doors count as passable because the planner opens them on the way;
    the agent's own cell is passable, and with ``through_agents`` every other agent's.
    """
    return passable_mask(house, state, agent, through_agents).ravel().tolist()


def passable_mask(house: House, state: WorldState, agent: int, through_agents: bool = False) -> np.ndarray:
    """:func:`passable_cells` as an (H, W) bool array (a new one)."""
    grid = state.grid
    mask = house.open_floor & (grid[..., CH_OBJ] == 0) & (grid[..., CH_AGENT] == 0)
    if through_agents:
        mask |= grid[..., CH_AGENT] > 0  # (an agent's cell shows what it holds in the object channels)
    x, y = state.agent_pos[agent].tolist()
    mask[y, x] = True
    return mask


def shortest_path_counts(passable: list[bool], width: int, start: int, goals: set[int]) -> tuple[dict, dict, list[int]]:
    """BFS from ``start`` until the nearest goals: distances, path counts, and the goals reached.

    Cells are flat indices; the grid's border must be impassable (it is: walls).
    """
    dist = {start: 0}
    count = {start: 1}
    if start in goals:
        return dist, count, [start]
    frontier = [start]
    d = 0
    steps = (1, -1, width, -width)
    while frontier:
        d += 1
        layer = []
        for cell in frontier:
            paths = count[cell]
            for step in steps:
                n = cell + step
                if not passable[n]:
                    continue
                dn = dist.get(n)
                if dn is None:
                    dist[n] = d
                    count[n] = paths
                    layer.append(n)
                elif dn == d:
                    count[n] += paths
        reached = [c for c in layer if c in goals]
        if reached:
            return dist, count, reached
        frontier = layer
    return dist, count, []


def _weighted(options: list[int], weights: list[int], total: int, u: float) -> int:
    """One of ``options`` with probability proportional to its weight (``total`` is their sum; ``u`` uniform)."""
    r = u * total
    for option, weight in zip(options, weights):
        r -= weight
        if r < 0:
            return option
    return options[-1]


def sample_shortest_path(
    passable: list[bool], width: int, start: int, goals: set[int], rng: np.random.Generator
) -> list[int] | None:
    """A shortest path from ``start`` to the nearest of ``goals`` (flat cells, start first).

    Every shortest path to any nearest goal is equally likely. None if no goal is reachable.
    """
    return draw_shortest_path(shortest_path_counts(passable, width, start, goals), width, start, rng)


def draw_shortest_path(
    search: tuple[dict, dict, list[int]],
    width: int,
    start: int,
    rng: np.random.Generator,
    steps_back: dict[int | None, tuple[list[int], list[int], int]] | None = None,
) -> list[int] | None:
    """A path drawn uniformly among the shortest paths of a :func:`shortest_path_counts` search (None if none).

    One uniform number decides the goal, then one each step back to the start
    (drawn together: the same numbers as one by one). ``steps_back``, a dict kept
    with the search, remembers the choices at each cell (the nearest goals,
    then each cell's predecessors with their path counts), so that many paths
    drawn from one search work each out once.
    """
    dist, count, reached = search
    if not reached:
        return None
    choices = {} if steps_back is None else steps_back
    if None not in choices:
        choices[None] = (reached, [count[c] for c in reached], sum(count[c] for c in reached))
    draws = rng.random(dist[reached[0]] + 1).tolist()
    cell = _weighted(*choices[None], draws[0])
    path = [cell]
    steps = (1, -1, width, -width)
    for u in draws[1:]:
        back = choices.get(cell)
        if back is None:
            d = dist[cell] - 1
            preds = [cell + s for s in steps if dist.get(cell + s) == d]
            weights = [count[p] for p in preds]
            back = choices[cell] = (preds, weights, sum(weights))
        cell = _weighted(*back, u)
        path.append(cell)
    path.reverse()
    return path
