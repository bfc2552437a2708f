"""A BIPaCK analogue: infer the agent's rewards and costs from the familiarisation, then rate how far each test
strays from what an agent of those rewards and costs would do (AGENT's Bayesian inverse planning baseline).

Unlike the answer key (:mod:`marple_eval.expectations.observer`), it is not handed the generator's choice rule,
its beta or its lapse rate; it has AGENT's model instead. The parameters theta are the agent's reward for each
object type in the trial and its cost scale, on the grids the generator draws them from
(:data:`~marple_gym.expectations.stages.REWARDS`, :data:`~marple_gym.expectations.stages.COST_SCALES`),
uniform a priori. Given theta, the agent's plan in an episode (AGENT's Eq. 1) is the option of highest utility,
reward less the cost of its cheapest way (0 for staying); the likelihood of an observed trajectory is
``exp(-beta D)`` (Eq. 2), D the dynamic-time-warping distance between the observed and the planned positions (in
cells, beta 0.2 as AGENT's). Where several ways are equally cheap (round either end of a line in the agent's
column), the plan is the nearer to the observed of two: the one that takes the first and the one that takes the
last of the cheapest actions at every step. The posterior multiplies the familiarisation episodes'
likelihoods (AGENT's Eq. 4 writes a sum; a product is the posterior of independent episodes) over the uniform
prior; AGENT's calibration on the training set (its Eq. 3) is left out, as our world's physics is known.

A test's surprise is the expected distance between its trajectory and the plan, under the posterior. As AGENT
does, an occluder is removed from the scene (its cells read as floor) and the positions it hid are filled in
(straight between where the agent vanished and where it reappeared); a test that lifts the occluder is judged on
the layout the lift shows. A test that shows a familiarisation episode again (``continues``: the unobserved
constraints' lift) is that episode's run on the layout the lift shows: the agent is inferred anew with that
episode judged on that layout, and the surprise is the run's expected distance from the plan under that
posterior.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np

from marple_eval.expectations.methods import ExpectationMethod
from marple_gym.expectations import stages
from marple_gym.expectations.trial import EpisodeEvidence, TrialView
from marple_gym.planner.utility import GoalPlan, walkable_cells
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS
from marple_gym.world.state import CH_OBJ, CH_OBJ_ID

BETA = 0.2
"""AGENT's beta: how sharply the likelihood falls with the distance from the plan (per cell here)."""


class ExpectationBipack(ExpectationMethod):
    """Rates surprise as the posterior expected distance of a test from the plan (see module docs)."""

    name = "bipack"

    def __init__(self, beta: float = BETA) -> None:
        if beta <= 0:
            raise ValueError(f"beta must be > 0, got {beta}")
        self.beta = beta

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "beta": self.beta}

    def rate(self, view: TrialView) -> list[float]:
        """The surprise of each test of ``view``, in its order."""
        belief = self.posterior(view)
        out = []
        for test in view.tests:
            if test.continues is None:
                distances = belief.distances(test, _layout(test), lifted=test.revealed is not None)
                out.append(float(belief.weights @ distances))
            else:  # the familiarisation's run, judged on what the lift showed: the agent inferred anew from it
                layout = _lifted(view, test)
                known = self.posterior(view, lift=(test.continues, layout))
                out.append(float(known.weights @ known.distances(view.familiarisation[test.continues], layout, True)))
        return out

    def posterior(self, view: TrialView, lift: tuple[int, np.ndarray] | None = None) -> Posterior:
        """What the rater infers of the agent from the familiarisation of ``view`` (the object types of all its
        episodes); ``lift``: (i, layout), familiarisation episode i judged on ``layout``, which shows what its
        occluder hid (:func:`_lifted`)."""
        episodes = list(view.familiarisation) + list(view.tests)
        types = sorted({t for e in episodes for t in _objects(_layout(e)).values()})
        rewards, scales = _grid(len(types))
        belief = Posterior(types, rewards, scales, np.full(len(scales), 1.0 / len(scales)))
        log_post = np.zeros(len(scales))
        for i, episode in enumerate(view.familiarisation):
            if lift is not None and lift[0] == i:
                log_post -= self.beta * belief.distances(episode, lift[1], lifted=True)
            else:
                log_post -= self.beta * belief.distances(episode, episode.vision[0])
        weights = np.exp(log_post - log_post.max())
        return Posterior(types, rewards, scales, weights / weights.sum())


@dataclass(frozen=True)
class Posterior:
    """A belief about the agent: each theta's rewards (n, types) and cost scale (n,), and its weight (n,)."""

    types: list[str]
    rewards: np.ndarray
    scales: np.ndarray
    weights: np.ndarray

    def mean(self) -> tuple[dict[str, float], float]:
        """The posterior mean reward of each object type, and the mean cost scale."""
        return dict(zip(self.types, (self.weights @ self.rewards).tolist())), float(self.weights @ self.scales)

    def distances(self, episode: EpisodeEvidence, grid: np.ndarray, lifted: bool = False) -> np.ndarray:
        """D(observed, plan of theta) for every theta, on the layout of ``grid`` (``lifted``: it shows what the
        episode's occluder hid; else its cells read as floor): each theta's plan is its best option's cheapest
        way."""
        return _distances(episode, grid, self.types, self.rewards, self.scales, lifted)


def _grid(n_types: int) -> tuple[np.ndarray, np.ndarray]:
    """Every theta: rewards (n, n_types) and cost scales (n,)."""
    rewards = np.array(stages.REWARDS)
    scales = np.array(stages.COST_SCALES)
    combos = np.array(list(product(range(len(rewards)), repeat=n_types)), dtype=int).reshape(-1, n_types)
    return np.repeat(rewards[combos], len(scales), axis=0), np.tile(scales, len(combos))


def _layout(test: EpisodeEvidence) -> np.ndarray:
    """The grid a test is judged on: what a lifted occluder showed, else its first frame."""
    return test.revealed if test.revealed is not None else test.vision[0]


def _lifted(view: TrialView, test: EpisodeEvidence) -> np.ndarray:
    """The layout a test that shows familiarisation episode ``test.continues`` again reveals: that episode's first
    frame, with what the lift showed behind its occluder."""
    if test.revealed is None:
        raise ValueError("a test that shows a familiarisation episode again must lift its occluder")
    shown = view.familiarisation[test.continues]
    layout = shown.vision[0].copy()
    layout[shown.hidden] = test.revealed[shown.hidden]
    return layout


def _distances(
    episode: EpisodeEvidence,
    grid: np.ndarray,
    types: Sequence[str],
    rewards: np.ndarray,
    scales: np.ndarray,
    lifted: bool,
) -> np.ndarray:
    """D(observed, plan of theta) for every theta: each theta's plan is its best option's cheapest way."""
    start = episode.poses[0]
    if start is None:
        raise ValueError("the agent starts hidden: the BIPaCK analogue needs to see where it starts")
    walkable = walkable_cells(grid, start[:2]) | (False if lifted else episode.hidden)
    observed = _observed(episode.poses)
    objects = _objects(grid)
    costs, distances = [], []
    for cell in objects:
        plan = GoalPlan(walkable, [cell], stages.costs(1.0))
        cost = plan.cost(*start)
        costs.append(cost)
        ways = [_walk(plan, start, pick) for pick in (0, -1)] if np.isfinite(cost) else []
        distances.append(min((_dtw(observed, way) for way in ways), default=np.inf))
    utility = np.zeros((len(scales), len(objects) + 1))  # the last option: staying (utility 0)
    for i, (kind, cost) in enumerate(zip(objects.values(), costs)):
        utility[:, i] = rewards[:, types.index(kind)] - scales * cost if np.isfinite(cost) else -np.inf
    distances.append(_dtw(observed, np.array([start[:2]], dtype=float)))
    return np.array(distances)[np.argmax(utility, axis=1)]


def _objects(grid: np.ndarray) -> dict[tuple[int, int], str]:
    """The goal objects a frame shows: cell -> object type."""
    ys, xs = np.nonzero(grid[..., CH_OBJ_ID] > 0)
    return {(int(x), int(y)): ASSETS.object_names[int(grid[y, x, CH_OBJ])] for y, x in zip(ys, xs)}


def _walk(plan: GoalPlan, start: tuple[int, int, int], pick: int) -> np.ndarray:
    """The cells of one cheapest way from ``start``: at every pose the cheapest action at index ``pick``."""
    pose, cells = start, [start[:2]]
    while True:
        action = plan.efficient(*pose)[pick]
        if action == int(Action.pickup):
            return np.array(cells, dtype=float)
        pose = plan.successor(*pose, action)
        if action == int(Action.forward):
            cells.append(pose[:2])


def _observed(poses: Sequence[tuple[int, int, int] | None]) -> np.ndarray:
    """The agent's cell at every step, those the occluder hid filled in on the straight line between where it
    vanished and where it reappeared (or held where it vanished, if it never did)."""
    known = [i for i, p in enumerate(poses) if p is not None]
    xy = np.array([poses[i][:2] for i in known], dtype=float)
    steps = np.arange(len(poses))
    return np.stack([np.interp(steps, known, xy[:, 0]), np.interp(steps, known, xy[:, 1])], axis=1)


def _dtw(a: np.ndarray, b: np.ndarray) -> float:
    """The dynamic-time-warping distance between two sequences of points (Euclidean steps)."""
    cost = np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2).tolist()
    inf = float("inf")
    above = [0.0] + [inf] * len(b)
    for row in cost:
        here = [inf]
        for j, c in enumerate(row):
            here.append(c + min(above[j + 1], here[j], above[j]))
        above = here
    return above[-1]


__all__ = ["BETA", "ExpectationBipack", "Posterior"]
