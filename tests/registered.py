"""Every id our packages register, read from Gymnasium's registry, and a scripted expert that plays each one.

The contract tests (checkers, determinism, pickling, vector envs, MiniGrid's suite) run over
:data:`REGISTERED_IDS` rather than over our own lists of ids, so an id registered in any way is covered; the
expert is MiniGrid's scripted-bot test on our ids: the hierarchical planner for a mission or level, the
belief-driven searcher for ``Marple-Search-v0``, each acting only through ``env.step``.
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import numpy as np

import marple_gym  # noqa: F401  (registers the ids)
from marple_gym.beliefs.search import SearchPolicy, SearchSettings
from marple_gym.envs.search import SearchEnv
from marple_gym.planner import HierarchicalPlanner

REGISTERED_IDS: list[str] = [
    env_id
    for env_id, spec in gym.registry.items()
    if isinstance(spec.entry_point, str) and spec.entry_point.startswith("marple_gym.")
]
"""Every Gymnasium id whose env is ours, in the order registered."""


def expert_episode(env: gym.Env, seed: int) -> list[int]:
    """Reset ``env`` with ``seed`` and play the expert through ``env.step`` until the episode ends; its actions.

    Raises AssertionError if the episode is cut at the step limit instead of completed.
    """
    env.reset(seed=seed)
    base = env.unwrapped
    act = _searcher(base, seed) if isinstance(base, SearchEnv) else _planner(base, seed)
    actions = []
    while True:
        actions.append(act())
        _, _, terminated, truncated, _ = env.step(actions[-1])
        if terminated:
            return actions
        assert not truncated, f"the expert ran out of steps on {env.spec.id}"


def _planner(base: gym.Env, seed: int) -> Callable[[], int]:
    """The hierarchical planner's next action in a household env, after it has seen the last action's outcome."""
    planner = HierarchicalPlanner(base.world, mission=base.mission, rng=np.random.default_rng(seed))

    def act() -> int:
        if base.last_outcome is not None:
            planner.observe(base.last_outcome)
        return planner.next_action()

    return act


def _searcher(base: SearchEnv, seed: int) -> Callable[[], int]:
    """The rational searcher's next action (by the env's own belief) in the search env."""
    searcher, rng = SearchPolicy(base.house, SearchSettings(lapse=0.0)), np.random.default_rng(seed)

    def act() -> int:
        moment = searcher.moment(base.episode.world, 0, base.episode.last_outcomes[0])
        return searcher.sample(moment, base.goal, base.belief, rng)

    return act
