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

Which mission: each rollout works on one mission, resumed from how far the
observed actions got in it. The missions come from the agent's mission prior
(uniform over the scenario's missions by default; the training labels are a
privileged option, :mod:`marple_eval.inverse.priors`), weighted by how well
each explains the actions observed to tau under this same agent model: the
posterior P(m | actions) ~ P(m) prod_t pi_K(a_t | s_t, m), pi_K the search's
distribution on mission m at the observed step t
(:mod:`marple_agents.search.likelihood`). The rows of a group are shared out
among the missions in proportion to that posterior (largest remainders,
drawing nothing at random). With K = 0 the search is the policy, which does
not depend on the mission: the posterior is the prior, and the rollouts draw
exactly what the policy agent draws. The rollouts' batch tracks each rollout's
mission (:meth:`EpisodeBatch.track`) and moves it on as it steps; the search
reads where each rollout is from there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from marple_agents.cache import policy_cache
from marple_agents.search.likelihood import mission_trace, step_log_likelihoods
from marple_agents.search.missions import MissionSearch, house_rows, take_states
from marple_agents.search.puct import PuctSettings
from marple_agents.simulation.agent_models import PolicyConditioning, RolloutAgent, sample_rows
from marple_agents.simulation.worlds import RolloutWorlds
from marple_eval.evidence import AgentEvidence
from marple_eval.inverse.base import share_rows
from marple_gym.episode.batch import BatchStep
from marple_gym.missions.batch import BatchProgress, MissionTable
from marple_gym.missions.mission import get_mission
from marple_gym.world.batched_state import BatchedState, BatchOutcome
from marple_gym.world.house_batch import HouseBatch
from marple_gym.world.world import World


class MCTSAgent(RolloutAgent):
    """A learned policy improved by PUCT search over the true world (see module docs).

    ``prior``: the agent's mission prior ``{mission: probability}``; each rollout's mission is drawn in
    proportion to the posterior given the observed actions (see module docs).
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
        prior: Mapping[str, float],
        settings: PuctSettings | None = None,
        use_language: bool = False,
        use_audio: bool = False,
        mission_subgoals: bool = False,
    ) -> None:
        if (use_language or mission_subgoals) and getattr(policy, "conditioning", "vision") != "language":
            raise ValueError("language rollouts need a language-conditioned policy")
        weights = {m: float(w) for m, w in prior.items() if w > 0}
        if not weights:
            raise ValueError(f"the MCTS agent model needs a mission prior with a positive weight, got {prior}")
        self.prior = weights
        self.table = MissionTable([get_mission(m) for m in weights])
        self.settings = settings or PuctSettings()
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
        longest = max(evidences, key=lambda e: e.tau)
        start = longest.world(0)
        if not all(e.start == longest.start and np.array_equal(e.actions, longest.actions[: e.tau]) for e in evidences):
            raise ValueError("the evidence points of one batch must be one agent's, of one trial")
        traces = [mission_trace(start, longest.actions, mission) for mission in self.table.missions]
        cumulative = self._log_likelihoods(start, longest, traces)
        missions, index = [], []
        for rows, evidence in zip(groups, evidences):
            counts = share_rows(rows.stop - rows.start, self.posterior(cumulative[:, evidence.tau]))
            for m, count in enumerate(counts.tolist()):
                missions += [m] * count
                index += [traces[m].indices[evidence.tau]] * count
        worlds.episodes.track(0, BatchProgress(self.table, np.array(missions, dtype=np.int64), np.array(index)))
        self.conditioning.reset(evidences, [g.stop - g.start for g in groups], self._grids)

    def _log_likelihoods(self, start: World, evidence: AgentEvidence, traces: list) -> np.ndarray:
        """(missions, tau + 1): log P(the first t observed actions | m) for t = 0..tau of ``evidence``. Zero where
        the likelihood cannot tell the missions apart: one mission, or no search (the policy ignores the mission)."""
        steps = len(evidence.actions)
        if len(traces) == 1 or not self.settings.simulations:
            return np.zeros((len(traces), steps + 1))
        roots = None
        if self.conditioning.use_language:  # the search's root prior is given the intent seen at each step
            roots = np.asarray(evidence.subgoals[:steps], dtype=np.int64).copy()
            done = np.flatnonzero(roots[:, 0] < 0)
            if done.size:
                roots[done] = self.conditioning.decoded(np.asarray(evidence.vision)[done])
        per_step = step_log_likelihoods(self.search, start, evidence.actions, traces, roots)
        return np.concatenate([np.zeros((len(traces), 1)), np.cumsum(per_step, axis=1)], axis=1)

    def posterior(self, log_likelihoods: np.ndarray) -> np.ndarray:
        """(missions,) P(m | actions) from the prior and each mission's log-likelihood (in the table's order)."""
        logs = np.log(np.array(list(self.prior.values()))) + log_likelihoods
        weights = np.exp(logs - logs.max())
        return weights / weights.sum()

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
