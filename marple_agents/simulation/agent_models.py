"""Models of an agent's behaviour that simulation inference rolls out, many worlds in lockstep.

* :class:`PlannerAgent`: the true hierarchical planner with the agent's mission
  preferences, resuming each sampled mission from the agent's observed
  history. A perfect agent model: the upper bound of simulation inference.
* :class:`PolicyAgent`: a learned policy (``marple_agents.Policy``): vision only
  or language-conditioned, optionally refining its first action with the sound
  heard at tau.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from marple_agents.audio import refine_with_audio
from marple_agents.inputs import SUBGOAL_FIELDS, input_rows, row_keys
from marple_eval.evidence import AgentEvidence
from marple_gym.missions import MISSIONS
from marple_gym.planner.planner import HierarchicalPlanner, follow_history
from marple_gym.world.actions import Action, Outcome
from marple_gym.world.world import World

IDLE = int(Action.idle)
KNOWN_INPUTS = 200_000
"""How many distinct inputs' action distributions a policy agent keeps (about 40 MB)."""


class RolloutAgent(ABC):
    """Chooses actions for a batch of worlds that started from one agent's state at tau."""

    @abstractmethod
    def reset(self, worlds: list[World], evidence: AgentEvidence, rng: np.random.Generator) -> None:
        """Start rollouts in ``worlds`` (clones of the agent's world at tau)."""

    @abstractmethod
    def act(self, active: list[int], rng: np.random.Generator) -> list[int]:
        """One action for each world index in ``active``."""

    def observe(self, active: list[int], outcomes: list[Outcome]) -> None:  # noqa: B027  (optional hook)
        """What the actions did (same order as ``active``)."""


def sample_rows(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One index per row of a (B, K) probability matrix, by inverse CDF."""
    cdf = np.cumsum(probs, axis=1)
    u = rng.random(len(probs))[:, None] * cdf[:, -1:]
    return np.minimum((u > cdf).sum(axis=1), probs.shape[1] - 1)


class PlannerAgent(RolloutAgent):
    """The hierarchical planner as the agent model (each rollout samples a mission from ``preferences``)."""

    def __init__(self, preferences: dict[str, float]) -> None:
        total = float(sum(preferences.values()))
        self.preferences = {m: w / total for m, w in preferences.items() if w > 0}
        self.planners: list[HierarchicalPlanner] = []

    def reset(self, worlds: list[World], evidence: AgentEvidence, rng: np.random.Generator) -> None:
        start = evidence.world(0)
        histories = {m: follow_history(start, evidence.actions, m) for m in self.preferences}
        names = list(self.preferences)
        picks = rng.choice(len(names), size=len(worlds), p=list(self.preferences.values()))
        self.planners = [
            HierarchicalPlanner(world, history=histories[names[k]], rng=rng) for world, k in zip(worlds, picks.tolist())
        ]

    def act(self, active: list[int], rng: np.random.Generator) -> list[int]:
        actions = []
        for i in active:
            action = self.planners[i].next_action()
            actions.append(IDLE if action is None else action)
        return actions

    def observe(self, active: list[int], outcomes: list[Outcome]) -> None:
        for i, outcome in zip(active, outcomes):
            if not self.planners[i].done:
                self.planners[i].observe(outcome)


class PolicyAgent(RolloutAgent):
    """A learned policy, stepped in batch: one forward pass per rollout step.

    ``use_language``: condition on the subgoal of the latest intent at tau until a
    rollout achieves it, then on the subgoal the policy's decoders predict. The
    decoders are asked exactly when a subgoal has just been achieved, where the
    world looks much as it did a step before; since no mission has the same
    subgoal twice in a row (skippable ones passed over or not), the subgoal just
    achieved is ruled out and the most likely other one taken.
    ``use_audio``: refine the first action with the sound heard at tau,
    P(a | vision, audio) ~ P(audio | a) P(a | vision).
    """

    def __init__(self, policy: Any, use_language: bool = False, use_audio: bool = False) -> None:
        if use_language and getattr(policy, "conditioning", "vision") != "language":
            raise ValueError("language rollouts need a language-conditioned policy")
        self.policy = policy
        self.use_language = use_language
        self.use_audio = use_audio
        self.worlds: list[World] = []
        self.subgoals: np.ndarray | None = None
        self.first_step = True
        self.heard = 0
        self._known: dict[bytes, np.ndarray] = {}

    def reset(self, worlds: list[World], evidence: AgentEvidence, rng: np.random.Generator) -> None:
        self.worlds = worlds
        self.first_step = True
        self.heard = int(evidence.audio[-1]) if self.use_audio else 0
        if self.use_language:
            latest = evidence.subgoals[-1]
            self.subgoals = np.repeat(latest[None, :], len(worlds), axis=0).astype(np.int64)
            if latest[0] < 0:  # the intent says the agent is done: let the decoders say what comes next
                self.subgoals[:] = self._decoded(list(range(len(worlds))))

    def _decoded(self, rows: list[int], achieved: np.ndarray | None = None) -> np.ndarray:
        vision = self._grids(rows)
        return most_likely_subgoals(self.policy.subgoal_probs(vision), exclude=achieved)

    def act(self, active: list[int], rng: np.random.Generator) -> list[int]:
        vision = self._grids(active)
        subgoal = self.subgoals[active] if self.use_language else None
        probs = self._action_probs(vision, subgoal)
        if self.use_audio and self.first_step:
            probs = refine_with_audio(probs, np.full(len(probs), self.heard)).astype(np.float64)
        self.first_step = False
        return sample_rows(probs, rng).tolist()

    def _grids(self, rows: list[int]) -> np.ndarray:
        """(len(rows), H, W, 8): the rollouts' vision grids, read from their batch when they share one."""
        batch = getattr(self.worlds, "batch", None)
        if batch is not None:
            return batch.grid[rows]
        return np.stack([self.worlds[i].state.grid for i in rows])

    def _action_probs(self, vision: np.ndarray, subgoal: np.ndarray | None) -> np.ndarray:
        """The policy's distributions, asked once per distinct input it has not seen yet.

        Rollouts from one state share their states until their sampled actions
        part them, and the rollouts of the next evidence point (and of the other
        trials in the same house) walk through many of the same states again, so
        the answers are kept, keyed by a hash of the input.
        """
        keys = row_keys(input_rows(vision, subgoal))
        unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        names = unique.tolist()
        new = [k for k, name in enumerate(names) if name not in self._known]
        if new:
            rows = first[new]
            probs = self.policy.action_probs(vision[rows], None if subgoal is None else subgoal[rows])
            if len(self._known) + len(new) > KNOWN_INPUTS:
                self._known.clear()
            self._known.update(zip((names[k] for k in new), np.asarray(probs, dtype=np.float64)))
        return np.stack([self._known[name] for name in names])[inverse.ravel()]

    def observe(self, active: list[int], outcomes: list[Outcome]) -> None:
        if not self.use_language:
            return
        done = [i for i, o in zip(active, outcomes) if self._achieves(self.subgoals[i], o, self.worlds[i])]
        if done:
            self.subgoals[done] = self._decoded(done, achieved=self.subgoals[done])

    @staticmethod
    def _achieves(codes: np.ndarray, outcome: Outcome, world: World) -> bool:
        """Does the outcome achieve the subgoal given as (action, object, furniture, room) codes?"""
        action, obj, fur, room = codes.tolist()
        if not outcome.success or outcome.action != action or outcome.fur < 0:
            return False
        house = world.house
        if house.fur_type_list[outcome.fur] != fur or house.room_type_at[outcome.y][outcome.x] != room:
            return False
        return obj <= 0 or (outcome.obj >= 0 and house.obj_type_list[outcome.obj] == obj)


@functools.cache
def subgoal_catalogue() -> np.ndarray:
    """(K, 4) codes of every distinct subgoal of the ten missions: all an intent can name."""
    codes = {sg.codes for mission in MISSIONS.values() for sg in mission.subgoals}
    return np.array(sorted(codes), dtype=np.int64)


def most_likely_subgoals(heads: dict[str, np.ndarray], exclude: np.ndarray | None = None) -> np.ndarray:
    """(B, 4) codes of the catalogue's subgoal of highest joint probability under the decoders' fields
    (scored as independent), other than the row of ``exclude`` (B, 4) where given."""
    catalogue = subgoal_catalogue()
    score = sum(np.log(np.clip(heads[f], 1e-12, None))[:, catalogue[:, i]] for i, f in enumerate(SUBGOAL_FIELDS))
    if exclude is not None:
        score = np.where((catalogue[None] == exclude[:, None]).all(axis=2), -np.inf, score)
    return catalogue[score.argmax(axis=1)]
