"""Batched PUCT tree search (AlphaZero's and MuZero's selection rule) over ``B`` independent trees in numpy arrays.

The trees are laid out as in DeepMind's mctx: every field is an array with a
leading tree axis and a node axis of ``simulations + 1`` slots. Node 0 is the
root; simulation ``s`` adds exactly one node, slot ``s + 1``, to every tree, so
one simulation is a handful of array operations over all trees at once:

1. **selection**: from the root, follow the action maximising
   ``Q(n, a) + c_puct * P(n, a) * sqrt(N(n)) / (1 + N(n, a))`` until it leads
   to a node not made yet. ``Q`` is ``r + discount * V(child)``, a child not
   visited yet counts with its parent's value, and the ``Q`` of a node's
   children are min-max normalised with its own value (mctx's
   ``qtransform_by_parent_and_siblings``). Ties go to the lowest action code:
   the search draws nothing at random;
2. **expansion**: the caller's ``expand`` steps the model from the parent
   along the chosen action and returns the new node's prior, its value
   estimate and the reward of the step;
3. **backup**: the value estimate goes up the path, discounted and added to
   the rewards on the way, each node's value being the mean of what reached it.

:func:`visit_policy` turns the root's visit counts into the search's action
distribution.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from marple_gym.validation import describe, is_int

Expand = Callable[[np.ndarray, np.ndarray, int], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""``expand(parent, action, node)``: step every tree from node ``parent[b]`` along ``action[b]`` into slot ``node``;
return the new nodes' prior (B, A), value estimate (B,) and the step's reward (B,)."""


MAX_SIMULATIONS = 4096
"""The most simulations a search may take per decision: each adds a node (a whole world state) to every tree a
rollout step searches at once, so memory grows with it; far beyond what the agent models gain from."""


@dataclass(frozen=True)
class PuctSettings:
    """How much and how a search looks ahead."""

    simulations: int = 16
    """K: nodes added to each tree per decision (0: no search, the prior itself), a whole number up to
    :data:`MAX_SIMULATIONS`."""
    c_puct: float = 1.25
    """Weight of the prior against the value in the selection rule (AlphaZero's and mctx's default)."""
    discount: float = 0.95
    """Per-step discount of rewards and values: of two ways to the same progress, the shorter one is worth more."""

    def __post_init__(self) -> None:
        if not is_int(self.simulations) or not 0 <= self.simulations <= MAX_SIMULATIONS:  # not 1.5, true or "16"
            raise ValueError(
                f"simulations must be a whole number from 0 to {MAX_SIMULATIONS}, got {describe(self.simulations)}"
            )
        object.__setattr__(self, "simulations", int(self.simulations))  # a numpy integer is written as a plain one
        if self.c_puct <= 0:
            raise ValueError(f"c_puct must be positive, got {self.c_puct}")
        if not 0.0 < self.discount <= 1.0:
            raise ValueError(f"discount must be in (0, 1], got {self.discount}")


class Tree:
    """``B`` search trees of ``simulations + 1`` node slots each (see module docs)."""

    def __init__(self, root_prior: np.ndarray, root_value: np.ndarray, simulations: int) -> None:
        trees, actions = root_prior.shape
        slots = simulations + 1
        self.prior = np.zeros((trees, slots, actions))
        self.prior[:, 0] = root_prior
        self.children = np.full((trees, slots, actions), -1, dtype=np.int64)
        self.parent = np.full((trees, slots), -1, dtype=np.int64)
        self.reward = np.zeros((trees, slots))  # the reward of the step into the node
        self.visits = np.zeros((trees, slots), dtype=np.int64)
        self.value_sum = np.zeros((trees, slots))
        # The root counts as visited once, by its own evaluation (as in mctx): sqrt(N) > 0 from the first selection.
        self.visits[:, 0] = 1
        self.value_sum[:, 0] = root_value
        self.rows = np.arange(trees)

    @property
    def value(self) -> np.ndarray:
        """(B, S) mean value of each node (0 for slots not made yet)."""
        return self.value_sum / np.maximum(self.visits, 1)

    def root_visits(self) -> np.ndarray:
        """(B, A) visits of the root's children (0 for a child never made)."""
        child = self.children[:, 0]
        return np.where(child >= 0, np.take_along_axis(self.visits, np.maximum(child, 0), axis=1), 0)


def run_search(root_prior: np.ndarray, root_value: np.ndarray, expand: Expand, settings: PuctSettings) -> Tree:
    """``settings.simulations`` simulations of PUCT in every tree, each node made by ``expand``."""
    tree = Tree(
        np.asarray(root_prior, dtype=np.float64), np.asarray(root_value, dtype=np.float64), settings.simulations
    )
    for s in range(settings.simulations):
        parent, action = _select(tree, settings)
        node = s + 1
        prior, value, reward = expand(parent, action, node)
        tree.children[tree.rows, parent, action] = node
        tree.parent[:, node] = parent
        tree.prior[:, node] = prior
        tree.reward[:, node] = reward
        _backup(tree, node, np.asarray(value, dtype=np.float64), settings.discount)
    return tree


def visit_policy(tree: Tree) -> np.ndarray:
    """(B, A) the search's action distribution: the root's visit counts with the prior counted as one more visit,
    ``(P(a) + N(a)) / (1 + K)``. With no simulation it is the prior exactly; as K grows, the visits dominate, and
    an action the search never tried keeps a share of its prior (a likelihood never falls to 0)."""
    visits = tree.root_visits()
    return (tree.prior[:, 0] + visits) / (1.0 + visits.sum(axis=1, keepdims=True))


def _select(tree: Tree, settings: PuctSettings) -> tuple[np.ndarray, np.ndarray]:
    """Each tree's leaf edge: the node and the action whose child the next simulation makes."""
    node = np.zeros(len(tree.rows), dtype=np.int64)
    action = np.zeros(len(tree.rows), dtype=np.int64)
    going = tree.rows
    while going.size:
        here = node[going]
        chosen = _puct_action(tree, going, here, settings)
        child = tree.children[going, here, chosen]
        action[going] = chosen
        deeper = child >= 0
        going = going[deeper]
        node[going] = child[deeper]
    return node, action


def _puct_action(tree: Tree, rows: np.ndarray, node: np.ndarray, settings: PuctSettings) -> np.ndarray:
    """The selection rule's action at node ``node[k]`` of tree ``rows[k]``."""
    child = tree.children[rows, node]  # (R, A)
    made = child >= 0
    index = np.maximum(child, 0)
    visits = np.where(made, tree.visits[rows[:, None], index], 0)
    own = tree.value[rows, node]
    q = tree.reward[rows[:, None], index] + settings.discount * tree.value[rows[:, None], index]
    completed = np.where(made, q, own[:, None])
    low = np.minimum(completed.min(axis=1), own)[:, None]
    high = np.maximum(completed.max(axis=1), own)[:, None]
    normalised = (completed - low) / np.maximum(high - low, 1e-8)
    explore = settings.c_puct * tree.prior[rows, node] * np.sqrt(tree.visits[rows, node])[:, None] / (1 + visits)
    return np.argmax(normalised + explore, axis=1)


def _backup(tree: Tree, leaf: int, value: np.ndarray, discount: float) -> None:
    """Add the new leaves' values to every node on their paths, discounted and plus the rewards on the way."""
    node = np.full(len(tree.rows), leaf, dtype=np.int64)
    rows, total = tree.rows, value
    while rows.size:
        tree.visits[rows, node] += 1
        tree.value_sum[rows, node] += total
        total = tree.reward[rows, node] + discount * total
        up = tree.parent[rows, node]
        keep = up >= 0
        rows, node, total = rows[keep], up[keep], total[keep]
