"""The exact observer: Bayesian inverse planning over the utility planner that made the behaviour: the answer
key and ceiling, not a method (a method must not be handed the generator's model; the BIPaCK analogue,
:mod:`marple_eval.expectations.bipack`, is the baseline that infers it).

It reads only what an onlooker sees (:class:`~marple_gym.expectations.trial.TrialView`:
vision arrays with the occluded cells zeroed) and inverts the model that made
the behaviour. The hypotheses: the agent's reward for every object type in the
trial and its action-cost scale, on the grids the agents are drawn from
(:data:`stages.REWARDS`, :data:`stages.COST_SCALES`), uniform; and for an
episode with an occluder, what the occluder hides: nothing (prior 1/2), or a
wall lying wholly behind it (the rest, uniformly): one straight line of
obstacles, or such a line of three or more with a one-cell doorway inside it.

The likelihood of an episode under a hypothesis sums over the agent's options
(each object, or staying)::

    P(episode | theta, h) = sum_g P(g | theta, h) * A_g(h)

with P(g | theta, h) the agent's own Boltzmann choice (rewards minus the costs
of the cheapest ways in the layout h) and A_g(h) how well the seen actions fit
going for g: each visible move is either one of the efficient ones (probability
1 - eps) or not (eps), which of several equally efficient moves it was carrying
no information (surprise is about what the agent chose, its goal and whether
it moved efficiently, not about which of equal ways it took); each stretch the
occluder hides counts as the chance that an agent going for g, lapsing with
probability eps at every step, gets from where it vanished to where it
reappears in that many steps, every step behind the occluder.

The posterior after the familiarisation is exact on these grids. A test's
surprise is its negative log-likelihood under the posterior predictive,
-log P(test | familiarisation); a test that shows a familiarisation episode
again with the occluder lifted (``continues``) scores -log P(revealed contents
| familiarisation).
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
from marple_gym.planner.utility import GOAL_ACTIONS, GoalPlan, walkable_cells
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS
from marple_gym.world.house import DIR_VEC
from marple_gym.world.state import CH_FUR, CH_OBJ, CH_OBJ_ID

EPS = 0.02
"""The observer's lapse rate: how often it thinks an agent makes a move that is not efficient."""
NOTHING_PRIOR = 0.5
"""The observer's prior that an occluder hides nothing."""
FLOOR = 1e-300
"""The least probability a surprise is computed from (an impossible test: a move through an obstacle, or a
revealed content outside the prior's family)."""
MAX_TYPES = 3
"""The most object types a trial may hold (the reward grid grows as 31 ** types)."""

_ALL_ACTIONS = GOAL_ACTIONS + (int(Action.idle),)
_IDLE, _PICKUP, _FORWARD, _LEFT, _RIGHT = (
    int(Action.idle),
    int(Action.pickup),
    int(Action.forward),
    int(Action.left),
    int(Action.right),
)


class ObserverError(ValueError):
    """A trial the exact observer cannot read (an agent or goal object it never sees, too many object types)."""


@dataclass(frozen=True)
class _Layout:
    """One hypothesis about an episode's stage: where the agent can walk, and its prior probability."""

    walkable: np.ndarray
    contents: frozenset[tuple[int, int]]  # obstacle cells behind the occluder
    prior: float


class ExpectationObserver(ExpectationMethod):
    """Rates surprise as -log P(test | familiarisation) under the utility planner (see module docs); it is handed
    the generator's reward and cost grids, beta and its choice rule, so it is the family's answer key (shown as
    "answer key (ceiling)", never as a method's row)."""

    name = "observer"
    role = "answer_key"

    def __init__(self, eps: float = EPS, nothing_prior: float = NOTHING_PRIOR) -> None:
        if not 0 < eps < 1:
            raise ValueError(f"eps must be in (0, 1), got {eps}")
        self.eps = eps
        self.nothing_prior = nothing_prior

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "eps": self.eps, "nothing_prior": self.nothing_prior}

    # ---- the interface ------------------------------------------------------------------------------------------
    def rate(self, view: TrialView) -> list[float]:
        """The surprise of each test of ``view``, in its order."""
        episodes = list(view.familiarisation) + list(view.tests)
        types = sorted({t for e in episodes for t in _objects(e).values()})
        if len(types) > MAX_TYPES:
            raise ObserverError(f"a trial of {len(types)} object types is too many for the reward grid")
        grid = _Grid(types)
        fam = [self._table(e, grid) for e in view.familiarisation]  # each (n_theta, n_layouts)
        fam_total = sum(_marginal(t) for t in fam) if fam else np.zeros(grid.size)
        log_post = fam_total - _logsumexp(fam_total)  # uniform prior over theta
        out = []
        for test in view.tests:
            if test.continues is not None:
                out.append(self._reveal_surprise(test, view.familiarisation[test.continues], fam, fam_total, grid))
            else:
                table = self._table(test, grid)
                out.append(min(float(-_logsumexp(log_post + _marginal(table))), -np.log(FLOOR)))
        return out

    # ---- one episode --------------------------------------------------------------------------------------------
    def _table(self, episode: EpisodeEvidence, grid: _Grid) -> np.ndarray:
        """log P(episode | theta, layout) + log P(layout), as (n_theta, n_layouts)."""
        start = episode.poses[0]
        if start is None:
            raise ObserverError("the agent starts hidden: the exact observer needs to see where it starts")
        objects = _objects(episode)
        cells = list(objects)
        columns = []
        for layout in self._layouts(episode):
            plans = [GoalPlan(layout.walkable, [c], stages.costs(1.0)) for c in cells]
            unit_costs = np.array([p.cost(*start) for p in plans])
            fits = [self._fit(episode, layout, p) for p in plans] + [self._fit(episode, layout, None)]
            utilities = grid.rewards[:, [grid.types.index(objects[c]) for c in cells]] - np.outer(
                grid.scales, unit_costs
            )
            log_choice = _log_choice(utilities, stages.BETA)  # (n_theta, goals + stay)
            with np.errstate(divide="ignore"):
                log_fit = np.log(np.array(fits))
            columns.append(_logsumexp(log_choice + log_fit, axis=1) + np.log(layout.prior))
        return np.stack(columns, axis=1)

    def _fit(self, episode: EpisodeEvidence, layout: _Layout, plan: GoalPlan | None) -> float:
        """A_g: how well the seen actions fit going for the goal of ``plan`` (None: staying)."""
        eps = self.eps
        poses, actions = episode.poses, episode.actions
        fit = 1.0
        t = 0
        while t < len(actions):
            if actions[t] is not None:
                if _after(layout.walkable, poses[t], actions[t], None) != poses[t + 1]:
                    return 0.0  # a move the world's rules cannot make (through an obstacle): impossible
                fit *= (1 - eps) if actions[t] in _efficient(plan, poses[t]) else eps
                t += 1
                continue
            end = next((k for k in range(t + 1, len(poses)) if poses[k] is not None), None)
            fit *= self._unseen(
                layout,
                plan,
                poses[t],
                poses[end] if end is not None else None,
                (end or len(poses) - 1) - t,
                episode.hidden,
            )
            if end is None:
                break
            t = end
        return fit

    def _unseen(self, layout, plan, start, end, steps: int, hidden: np.ndarray) -> float:
        """The chance of getting from pose ``start`` to pose ``end`` in ``steps`` steps, unseen in between."""
        eps = self.eps
        alpha = {start: 1.0}
        for k in range(steps):
            last = k == steps - 1
            nxt: dict = {}
            for pose, p in alpha.items():
                efficient = _efficient(plan, pose)
                for action in _ALL_ACTIONS:
                    q = eps / len(_ALL_ACTIONS) + ((1 - eps) / len(efficient) if action in efficient else 0.0)
                    after = _after(layout.walkable, pose, action, plan)
                    if after is None:
                        continue  # picked the goal up behind the occluder: not this way
                    if not last and not hidden[after[1], after[0]]:
                        continue  # the agent would have been seen
                    nxt[after] = nxt.get(after, 0.0) + p * q
            alpha = nxt
        if end is None:
            return sum(alpha.values())
        return alpha.get(end, 0.0)

    def _layouts(self, episode: EpisodeEvidence) -> list[_Layout]:
        """The hypotheses about what the occluder hides (one, certain, where nothing is hidden)."""
        grid = episode.vision[0]
        start = episode.poses[0]
        seen = walkable_cells(grid, start[:2])
        hidden = episode.hidden
        if not hidden.any():
            return [_Layout(seen, frozenset(), 1.0)]
        floor = seen | hidden  # behind the occluder: floor, unless an obstacle stands there
        walls = _walls(hidden)
        out = [_Layout(floor, frozenset(), self.nothing_prior)]
        for cells in walls:
            walkable = floor.copy()
            for x, y in cells:
                walkable[y, x] = False
            out.append(_Layout(walkable, cells, (1 - self.nothing_prior) / len(walls)))
        return out

    def _reveal_surprise(self, test, shown, fam, fam_total, grid) -> float:
        """-log P(what the lifted occluder shows | familiarisation), for a test showing familiarisation episode
        ``test.continues`` again."""
        index = test.continues
        revealed = test.revealed
        if revealed is None:
            raise ObserverError("a test that shows a familiarisation episode again must lift its occluder")
        ys, xs = np.nonzero(shown.hidden & (revealed[..., CH_FUR] > 0))
        contents = frozenset(zip(xs.tolist(), ys.tolist()))
        layouts = self._layouts(shown)
        table = fam[index]  # (n_theta, n_layouts), log-joint with the layout prior
        others = fam_total - _marginal(table)  # the other familiarisation episodes
        joint = others[:, None] + table
        log_evidence = _logsumexp(joint)
        match = [i for i, layout in enumerate(layouts) if layout.contents == contents]
        if not match:
            return float(-np.log(FLOOR))
        return min(float(-(_logsumexp(joint[:, match[0]]) - log_evidence)), -np.log(FLOOR))


# ---- helpers ---------------------------------------------------------------------------------------------------------
class _Grid:
    """The hypotheses about the agent: a reward per object type, and an action-cost scale."""

    def __init__(self, types: Sequence[str]) -> None:
        self.types = list(types)
        rewards = np.array(stages.REWARDS)
        scales = np.array(stages.COST_SCALES)
        combos = list(product(range(len(rewards)), repeat=len(self.types)))
        self.rewards = np.repeat(
            rewards[np.array(combos, dtype=int).reshape(len(combos), len(self.types))], len(scales), axis=0
        )
        self.scales = np.tile(scales, len(combos))
        self.size = len(self.scales)


def _objects(episode: EpisodeEvidence) -> dict[tuple[int, int], str]:
    """The goal objects the episode shows at its start: cell -> object type."""
    grid = episode.vision[0]
    ys, xs = np.nonzero(grid[..., CH_OBJ_ID] > 0)
    return {(int(x), int(y)): ASSETS.object_names[int(grid[y, x, CH_OBJ])] for y, x in zip(ys, xs)}


def _efficient(plan: GoalPlan | None, pose) -> tuple[int, ...]:
    return (_IDLE,) if plan is None else plan.efficient(*pose)


def _after(walkable: np.ndarray, pose, action: int, plan: GoalPlan | None):
    """The pose after ``action`` (a failed step stays; None: the goal was picked up)."""
    x, y, d = pose
    if action == _LEFT:
        return x, y, (d + 3) % 4
    if action == _RIGHT:
        return x, y, (d + 1) % 4
    dx, dy = DIR_VEC[d]
    if action == _FORWARD:
        return (x + dx, y + dy, d) if walkable[y + dy, x + dx] else pose
    if action == _PICKUP and plan is not None and (x + dx, y + dy) in plan.targets:
        return None
    return pose


def _walls(hidden: np.ndarray) -> list[frozenset[tuple[int, int]]]:
    """Every straight line lying wholly in ``hidden``, and every such line of three cells or more with a one-cell
    doorway inside it (AGENT's wall with a doorway)."""
    lines = _lines(hidden)
    doorways = {line - {cell} for line in lines if len(line) >= 3 for cell in sorted(line)[1:-1]}
    return lines + sorted(doorways, key=lambda s: (len(s), sorted(s)))


def _lines(hidden: np.ndarray) -> list[frozenset[tuple[int, int]]]:
    """Every straight line of cells (horizontal or vertical, one cell or more) lying wholly in ``hidden``."""
    found: set[frozenset[tuple[int, int]]] = set()
    h, w = hidden.shape
    for y in range(h):
        for x in range(w):
            if not hidden[y, x]:
                continue
            for dx, dy in ((1, 0), (0, 1)):
                cells = []
                cx, cy = x, y
                while 0 <= cx < w and 0 <= cy < h and hidden[cy, cx]:
                    cells.append((cx, cy))
                    found.add(frozenset(cells))
                    cx, cy = cx + dx, cy + dy
    return sorted(found, key=lambda s: (len(s), sorted(s)))


def _log_choice(utilities: np.ndarray, beta: float) -> np.ndarray:
    """log P(goal) for each hypothesis (rows), each goal then staying (columns)."""
    logits = beta * np.concatenate([utilities, np.zeros((len(utilities), 1))], axis=1)
    logits = np.where(np.isfinite(logits), logits, -np.inf)
    return logits - _logsumexp(logits, axis=1)[:, None]


def _logsumexp(a: np.ndarray, axis: int | None = None) -> np.ndarray:
    a = np.asarray(a, dtype=float)
    top = np.max(a, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(a - top), axis=axis, keepdims=True)) + top
    return np.squeeze(out, axis=axis) if axis is not None else float(out.squeeze())


def _marginal(table: np.ndarray) -> np.ndarray:
    """log P(episode | theta): the layouts summed out."""
    return _logsumexp(table, axis=1)
