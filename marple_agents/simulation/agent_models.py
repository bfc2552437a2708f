"""Models of an agent's behaviour that simulation inference rolls out, many worlds in lockstep.

* :class:`PlannerAgent`: the true hierarchical planner with the agent's mission
  preferences, resuming each sampled mission from the agent's observed
  history. A perfect agent model: the upper bound of simulation inference.
  Each planner acts in its rollout's episode of the batch, which holds its
  mission progress and moves it on (the planner reads it and plans).
* :class:`PolicyAgent`: a learned policy (``marple_agents.AgentPolicy``): vision only
  or language-conditioned, optionally refining its first action with the sound
  heard at tau. It knows no mission: a language-conditioned one follows the
  subgoal it was told (the latest intent at tau) and then the ones it decodes.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from marple_agents.audio import refine_with_audio
from marple_agents.cache import policy_cache
from marple_agents.inputs import SUBGOAL_FIELDS
from marple_agents.simulation.worlds import RolloutWorlds
from marple_eval.evidence import AgentEvidence
from marple_gym.episode import AgentStep, BatchStep, EpisodeState
from marple_gym.missions import MISSIONS
from marple_gym.missions.batch import outcomes_match
from marple_gym.planner.planner import HierarchicalPlanner, MissionHistory, SharingPlanner, follow_history
from marple_gym.world.actions import Action
from marple_gym.world.batched_state import BatchOutcome
from marple_gym.world.house import House
from marple_gym.world.house_batch import HouseBatch
from marple_gym.world.world import World

IDLE = int(Action.idle)


class RolloutAgent(ABC):
    """Chooses actions for a batch of worlds that started from one agent's state at tau.

    Rows are numbered as in the rollouts' batch; ``active`` (ascending) are the
    rows still rolling out; ``rng`` gives uniform draws with ``rng.random(len(active))``.
    An agent model that works on a mission sets it up in the rollouts' batch
    (``worlds.episodes``) when it starts, and reads its progress from there.
    An agent model with ``groups_starts`` also takes, in :meth:`reset_groups`,
    the rollouts of several evidence points in one batch.
    """

    groups_starts: bool = False
    """Whether :meth:`reset_groups` is implemented (rollouts of several evidence points in one batch)."""

    @abstractmethod
    def reset(self, worlds: RolloutWorlds, evidence: AgentEvidence, rng: np.random.Generator) -> None:
        """Start rollouts in ``worlds`` (clones of the agent's world at tau)."""

    def reset_groups(
        self, worlds: RolloutWorlds, evidences: Sequence[AgentEvidence], rngs: Sequence[np.random.Generator]
    ) -> None:
        """Start rollouts of several evidence points: rows ``worlds.groups[g]`` start at ``evidences[g]``, and
        draw from ``rngs[g]`` as :meth:`reset` would from its generator."""
        raise NotImplementedError(f"{type(self).__name__} rolls out one evidence point at a time")

    @abstractmethod
    def act(self, active: np.ndarray, rng: np.random.Generator) -> Sequence[int] | np.ndarray:
        """One action for each world index in ``active``."""

    def observe(self, active: np.ndarray, step: BatchStep) -> None:  # noqa: B027  (optional hook)
        """What the actions did, the batch having moved the missions on: ``step.outcome`` (rows ``active`` acted,
        the others idled) and the subgoal each rollout achieved (``step.achieved``, -1: none; None when the batch
        tracks no mission)."""


def sample_rows(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One index per row of a (B, K) probability matrix, by inverse CDF."""
    cdf = np.cumsum(probs, axis=1)
    u = rng.random(len(probs))[:, None] * cdf[:, -1:]
    return np.minimum((u > cdf).sum(axis=1), probs.shape[1] - 1)


def _group_rows(worlds: RolloutWorlds, groups: int) -> list[range]:
    """The rows of each group of a rollout batch (one group: all of them)."""
    slices = getattr(worlds, "groups", None) or (slice(0, len(worlds)),)
    if len(slices) != groups:
        raise ValueError(f"{groups} evidence points for a batch of {len(slices)} groups")
    return [range(s.start, s.stop) for s in slices]


class PlannerAgent(RolloutAgent):
    """The hierarchical planner as the agent model (each rollout samples a mission from ``preferences``).

    Each rollout's planner acts in its episode of the rollouts' batch (:meth:`EpisodeBatch.one_by_one`), the one
    record of its mission progress: the batch moves it on, the planner reads it and plans. The planners of a
    batch share their plan requests (:class:`~marple_gym.planner.planner.SharingPlanner`).
    """

    groups_starts = True

    def __init__(self, preferences: dict[str, float]) -> None:
        total = float(sum(preferences.values()))
        self.preferences = {m: w / total for m, w in preferences.items() if w > 0}
        self.planners: list[HierarchicalPlanner] = []
        self.episodes: tuple[EpisodeState, ...] = ()
        self.moved: list[int] = []  # the rows whose planner took an action last step (the others were done)

    def reset(self, worlds: RolloutWorlds, evidence: AgentEvidence, rng: np.random.Generator) -> None:
        self.reset_groups(worlds, [evidence], [rng])

    def reset_groups(
        self, worlds: RolloutWorlds, evidences: Sequence[AgentEvidence], rngs: Sequence[np.random.Generator]
    ) -> None:
        names = list(self.preferences)
        self.episodes = worlds.episodes.one_by_one(worlds.house)
        self.planners = []
        requests: dict = {}  # one batch's: its houses, states and planners go together
        for rows, evidence, rng in zip(_group_rows(worlds, len(evidences)), evidences, rngs):
            start = evidence.world(0)
            histories = {m: follow_history(start, evidence.actions, m) for m in self.preferences}
            picks = rng.choice(len(names), size=len(rows), p=list(self.preferences.values()))
            self.planners += [
                self._planner(worlds.house.house(i), self.episodes[i], histories[names[k]], rng, requests)
                for i, k in zip(rows, picks.tolist())
            ]

    @staticmethod
    def _planner(
        house: House, episode: EpisodeState, history: MissionHistory, rng: np.random.Generator, requests: dict
    ) -> HierarchicalPlanner:
        """A planner resuming ``history`` in rollout ``episode``, where its mission progress is kept from now on."""
        planner = SharingPlanner(World(house, episode.world), history=history, rng=rng, cache=requests)
        planner.act_in(episode)
        return planner

    def act(self, active: np.ndarray, rng: np.random.Generator) -> list[int]:
        actions, self.moved = [], []
        for i in active.tolist():
            action = self.planners[i].next_action()
            if action is None:  # done: the rollout idles
                actions.append(IDLE)
            else:
                actions.append(action)
                self.moved.append(i)
        return actions

    def observe(self, active: np.ndarray, step: BatchStep) -> None:
        """Each planner that acted follows what its action did in its episode (and plans again when needed)."""
        for i in self.moved:
            achieved = int(step.achieved[i])
            self.planners[i].follow(AgentStep(self.episodes[i].last_outcomes[0], None if achieved < 0 else achieved))


GridsOf = Callable[[np.ndarray], np.ndarray]
"""``grids(rows)``: the (len(rows), H, W, 8) vision grids of rows of a rollout batch."""


class PolicyConditioning:
    """What a learned policy is given in rollouts besides each rollout's vision grid, and how that moves on.

    The one place that builds a policy's conditioning in rollouts: the policy
    agent model and the MCTS agent model both use it, so the MCTS agent with no
    search asks the policy exactly what the policy agent asks (K = 0 is the
    policy, in every variant).

    ``use_language``: each rollout is given the subgoal of the latest intent at
    tau until it achieves it, then the subgoal the policy's decoders predict.
    The decoders are asked exactly when a subgoal has just been achieved, where
    the world looks much as it did a step before; since no mission has the same
    subgoal twice in a row (skippable ones passed over or not), the subgoal just
    achieved is ruled out and the most likely other one taken.
    ``use_audio``: the first action is refined with the sound heard at tau,
    P(a | vision, audio) ~ P(audio | a) P(a | vision).
    """

    def __init__(self, policy: Any, use_language: bool = False, use_audio: bool = False) -> None:
        if use_language and getattr(policy, "conditioning", "vision") != "language":
            raise ValueError("language rollouts need a language-conditioned policy")
        self.policy = policy
        self.use_language = use_language
        self.use_audio = use_audio
        self.subgoals: np.ndarray | None = None
        """(N, 4) each rollout row's subgoal codes (None without language)."""
        self.heard = np.zeros(0, dtype=np.int64)
        self.first_step = True

    def reset(self, evidences: Sequence[AgentEvidence], sizes: Sequence[int], grids: GridsOf) -> None:
        """Start a batch whose ``sizes[g]`` consecutive rows start at ``evidences[g]`` (``grids``: their vision)."""
        self.first_step = True
        if self.use_audio:
            self.heard = np.repeat([int(e.audio[-1]) for e in evidences], sizes)
        if self.use_language:
            latest = np.stack([e.subgoals[-1] for e in evidences]).astype(np.int64)
            self.subgoals = np.repeat(latest, sizes, axis=0)
            done = np.flatnonzero(self.subgoals[:, 0] < 0)  # the intent says the agent is done: decode what is next
            if done.size:
                self.subgoals[done] = self.decoded(grids(done))

    def subgoal(self, rows: np.ndarray) -> np.ndarray | None:
        """(len(rows), 4) the subgoal codes rows ``rows`` are conditioned on, or None (a vision-only rollout)."""
        return self.subgoals[rows] if self.use_language else None

    def refine(self, probs: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The action distributions of rows ``rows`` as drawn from: refined by the sound at tau on the first step."""
        if self.use_audio and self.first_step:
            probs = refine_with_audio(probs, self.heard[rows]).astype(np.float64)
        self.first_step = False
        return probs

    def observe(self, house: House | HouseBatch, outcomes: BatchOutcome, rows: np.ndarray, grids: GridsOf) -> None:
        """Rows ``rows`` took a step (``outcomes``: the batch's arrays): move on those that achieved their subgoal."""
        if self.use_language:
            self.subgoals[rows] = self.moved_on(self.subgoals[rows], house, outcomes, rows, grids)

    def moved_on(
        self, codes: np.ndarray, house: House | HouseBatch, outcomes: BatchOutcome, rows: np.ndarray, grids: GridsOf
    ) -> np.ndarray:
        """(len(rows), 4) the subgoals of rows ``rows`` (conditioned on ``codes``) after the step of ``outcomes``:
        the decoders' next one at the new state (``grids(rows')``) where the step achieved it, else the same."""
        done = np.flatnonzero(achieves(codes, house, outcomes, rows))
        if not done.size:
            return codes
        codes = codes.copy()
        codes[done] = self.decoded(grids(rows[done]), achieved=codes[done])
        return codes

    def decoded(self, vision: np.ndarray, achieved: np.ndarray | None = None) -> np.ndarray:
        """(B, 4) the decoders' most likely subgoal at each grid, other than the one just ``achieved``."""
        return most_likely_subgoals(self.policy.subgoal_probs(vision), exclude=achieved)


def achieves(codes: np.ndarray, house: House | HouseBatch, outcomes: BatchOutcome, rows: np.ndarray) -> np.ndarray:
    """Which outcomes of rows ``rows`` achieve the subgoal of their row, given as (action, object, furniture, room)
    codes (the policies' order)."""
    action, obj, fur, room = np.asarray(codes).T
    # As Subgoal codes (action, furniture, room, object, any value); object code 0: any object or none.
    subgoal = np.stack([action, fur, room, np.maximum(obj, 0), np.full_like(action, -1)], axis=1)
    return outcomes_match(subgoal, house, outcomes, rows)


class PolicyAgent(RolloutAgent):
    """A learned policy, stepped in batch: one forward pass per rollout step.

    What it is given besides the vision grid (the subgoal of the latest intent with
    ``use_language``, the sound at tau with ``use_audio``): :class:`PolicyConditioning`.
    """

    groups_starts = True

    def __init__(self, policy: Any, use_language: bool = False, use_audio: bool = False) -> None:
        self.policy = policy
        # The process's cache of the policy's answers: later evidence points, trials and runs revisit the same states.
        self.cache = policy_cache(policy)
        self.conditioning = PolicyConditioning(self.cache, use_language, use_audio)
        self.worlds: Sequence[World] = []

    def reset(self, worlds: RolloutWorlds, evidence: AgentEvidence, rng: np.random.Generator) -> None:
        self.reset_groups(worlds, [evidence], [rng])

    def reset_groups(
        self, worlds: RolloutWorlds, evidences: Sequence[AgentEvidence], rngs: Sequence[np.random.Generator]
    ) -> None:
        self.worlds = worlds
        sizes = [len(rows) for rows in _group_rows(worlds, len(evidences))]
        self.conditioning.reset(evidences, sizes, self._grids)

    def act(self, active: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        active = np.asarray(active)
        probs = self.cache.action_probs(self._grids(active), self.conditioning.subgoal(active))
        return sample_rows(self.conditioning.refine(probs, active), rng)

    def _grids(self, rows: np.ndarray) -> np.ndarray:
        """(len(rows), H, W, 8): the rollouts' vision grids, read from their batch when they share one."""
        batch = getattr(self.worlds, "batch", None)
        if batch is not None:
            return np.take(batch.grid, rows, axis=0)
        return np.stack([self.worlds[i].state.grid for i in rows])

    def observe(self, active: np.ndarray, step: BatchStep) -> None:
        self.conditioning.observe(self._house(), step.outcome, np.asarray(active), self._grids)

    def _house(self) -> House | HouseBatch:
        house = getattr(self.worlds, "house", None)
        return house if house is not None else self.worlds[0].house


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
