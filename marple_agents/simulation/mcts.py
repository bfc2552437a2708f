"""The MCTS agent model: a learned policy improved by tree search at every step of every rollout (our extension).

Not the paper's method: the paper's "Monte Carlo tree search" (its Algorithm
E.1) is plain Monte Carlo rollouts of the learned policy, which is what
:class:`~marple_agents.simulation.agent_models.PolicyAgent` does. Here each
rollout step first runs K simulations of PUCT (:mod:`marple_agents.search.missions`)
from the rollout's state, the learned behaviour-cloning policy as the prior and
progress through the agent's mission as the reward, and draws the action from
the search's visit counts. With K = 0 it is the learned policy exactly; as K
grows it leans on the true world and the mission, so predictions move from the
learned policy's toward the planner's (the perfect agent models).

What the policy is given: exactly what the policy agent gives it
(:class:`~marple_agents.simulation.agent_models.PolicyConditioning`, one
object shared by both): a language-conditioned policy, the subgoal of the
latest intent observed at tau, then its decoders' next subgoal once a rollout
achieves it; the sound at tau refines the first action. In the tree, each node's
prior is given the subgoal that same rule reaches along the node's path, so a
node's prior is what the policy agent would be asked if the rollout got there
(the mission sets the reward, not the policy's input). ``bip`` instead gives it
the mission's current subgoal everywhere (``mission_subgoals``), as its
likelihood does.

Which mission: each rollout works on one mission of the agent's mission prior
(from its training split, as for ``bip``), resumed from how far the observed
actions got in it. The rows of a group are shared out among the missions in
proportion to the prior (largest remainders, drawing nothing at random), so a
search with K = 0 draws exactly what the policy agent draws. The rollouts'
batch tracks each rollout's mission (:meth:`EpisodeBatch.track`) and moves it
on as it steps; the search reads where each rollout is from there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from marple_agents.cache import policy_cache
from marple_agents.search.missions import MissionSearch, house_rows, take_states
from marple_agents.search.puct import SearchSettings
from marple_agents.simulation.agent_models import PolicyConditioning, RolloutAgent, sample_rows
from marple_agents.simulation.worlds import RolloutWorlds
from marple_eval.evidence import AgentEvidence
from marple_gym.episode.batch import BatchStep
from marple_gym.missions.batch import BatchProgress, MissionTable
from marple_gym.missions.mission import get_mission
from marple_gym.planner.planner import follow_history
from marple_gym.world.batched_state import BatchedState, BatchOutcome
from marple_gym.world.house_batch import HouseBatch


def share_rows(rows: int, weights: Sequence[float]) -> np.ndarray:
    """(len(weights),) how many of ``rows`` go to each weight: proportional, largest remainders first."""
    p = np.asarray(weights, dtype=np.float64)
    exact = rows * p / p.sum()
    counts = np.floor(exact).astype(np.int64)
    order = np.argsort(-(exact - counts), kind="stable")
    counts[order[: rows - counts.sum()]] += 1
    return counts


class MCTSAgent(RolloutAgent):
    """A learned policy improved by PUCT search over the true world (see module docs).

    ``preferences``: the agent's mission prior ``{mission: probability}``.
    ``use_language``: the prior is a language-conditioned policy, given what the
    policy agent gives it (the latest intent, then the decoders' subgoals) at
    the root and, carried down by the same rule, at every node; with
    ``mission_subgoals``, the mission's current subgoal instead (``bip``).
    ``use_audio``: the first action's distribution is refined with the sound
    heard at tau, as the policy agent's is. It rolls out in
    :class:`~marple_agents.simulation.worlds.RolloutWorlds` (the batch's states and houses).
    """

    groups_starts = True

    def __init__(
        self,
        policy: Any,
        preferences: Mapping[str, float],
        settings: SearchSettings | None = None,
        use_language: bool = False,
        use_audio: bool = False,
        mission_subgoals: bool = False,
    ) -> None:
        if (use_language or mission_subgoals) and getattr(policy, "conditioning", "vision") != "language":
            raise ValueError("language rollouts need a language-conditioned policy")
        weights = {m: float(w) for m, w in preferences.items() if w > 0}
        if not weights:
            raise ValueError(f"the MCTS agent model needs a mission prior with a positive weight, got {preferences}")
        self.preferences = weights
        self.table = MissionTable([get_mission(m) for m in weights])
        self.settings = settings or SearchSettings()
        self.policy = policy
        # The policy agent's own rule for the policy's inputs: with no search, the very same calls (K = 0 is the
        # policy). With mission_subgoals the search gives the mission's subgoals itself: no intent is tracked.
        self.cache = policy_cache(policy)  # shared with every agent model of the same weights in this process
        self.conditioning = PolicyConditioning(self.cache, use_language and not mission_subgoals, use_audio)
        follow = None if mission_subgoals else self._follow
        self.search = MissionSearch(self.table, self.cache.action_probs, self.settings, follow)
        self.worlds: RolloutWorlds | None = None

    def reset(self, worlds: RolloutWorlds, evidence: AgentEvidence, rng: np.random.Generator) -> None:
        self.reset_groups(worlds, [evidence], [rng])

    def reset_groups(
        self, worlds: RolloutWorlds, evidences: Sequence[AgentEvidence], rngs: Sequence[np.random.Generator]
    ) -> None:
        self.worlds = worlds
        groups = worlds.groups
        if len(groups) != len(evidences):
            raise ValueError(f"{len(evidences)} evidence points for a batch of {len(groups)} groups")
        missions, index = [], []
        for rows, evidence in zip(groups, evidences):
            counts = share_rows(rows.stop - rows.start, list(self.preferences.values()))
            start = evidence.world(0)
            for m, (name, count) in enumerate(zip(self.preferences, counts.tolist())):
                missions += [m] * count
                index += [follow_history(start, evidence.actions, name).progress.index] * count
        worlds.episodes.track(0, BatchProgress(self.table, np.array(missions, dtype=np.int64), np.array(index)))
        self.conditioning.reset(evidences, [g.stop - g.start for g in groups], self._grids)

    def act(self, active: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        active = np.asarray(active)
        worlds = self.worlds  # the rollouts' batch: its states, houses and missions' progress are read directly
        progress = worlds.episodes.progress[0]
        probs = self.search.policy(
            house_rows(worlds.house, active),
            take_states(worlds.batch, active),
            progress.mission[active],
            progress.index[active],
            self.conditioning.subgoal(active),
        )
        return sample_rows(self.conditioning.refine(probs, active), rng)

    def observe(self, active: np.ndarray, step: BatchStep) -> None:
        """Move the policy's subgoal on as the policy agent would (each rollout's mission moves on in its batch)."""
        self.conditioning.observe(self.worlds.house, step.outcome, np.asarray(active), self._grids)

    def _grids(self, rows: np.ndarray) -> np.ndarray:
        """(len(rows), H, W, 8): the rollouts' vision grids, read from their batch."""
        return np.take(self.worlds.batch.grid, rows, axis=0)

    def _follow(
        self, codes: np.ndarray, houses: HouseBatch, states: BatchedState, outcomes: BatchOutcome
    ) -> np.ndarray:
        """The policy's subgoal at a tree's new nodes: the policy agent's rule, applied to the step into them."""
        rows = np.arange(len(codes))
        return self.conditioning.moved_on(codes, houses, outcomes, rows, lambda r: np.take(states.grid, r, axis=0))
