"""Bayesian inverse planning with a learned likelihood (``bip``, in the spirit of MMToM-QA's BIP-ALM).

The posterior over an agent's missions of :mod:`marple_eval.inverse.base`,
with each action's likelihood taken from a trained language-conditioned policy
instead of the planner: under mission ``m`` the agent at step ``t`` works on
``m``'s current subgoal (its first subgoal neither achieved nor skipped, tracked
with the mission's own state machine on the true world), so::

    log P(actions to tau | m) = sum_t log pi(a_t | vision_t, subgoal_m(t))

and P(reach the query | m) comes from rollouts of the same policy, conditioned
on ``m``'s subgoals as each rollout achieves them. Each mission's account is an
episode (:class:`~marple_gym.episode.EpisodeState`) of the agent on that
mission, whose progress is the mission's; the rollouts' batch tracks each
rollout's. Only the missions' subgoal lists and the world's rules are known;
the planner is not, so it applies to houses and agents whose planner it does
not know. Each agent's resources: its policy (a checkpoint path or a loaded
policy) and its mission prior (:class:`BipResources`: uniform over the
scenario's missions by default, or the privileged training labels).

``agent="mcts"`` (our extension) takes both the likelihood and the rollouts
from the MCTS agent model instead of the bare policy: pi is then the action
distribution of ``simulations`` steps of PUCT search from the world at step t
on mission m, the language-conditioned policy as the prior and m's progress as
the reward (:mod:`marple_agents.search`); with 0 simulations it is the policy's.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from marple_agents.cache import PolicyCache, policy_cache
from marple_agents.device import kind, resolve_precision
from marple_agents.search.likelihood import MIN_PROBABILITY
from marple_agents.search.missions import MissionSearch
from marple_agents.search.puct import PuctSettings
from marple_agents.simulation.agent_models import RolloutAgent, sample_rows
from marple_agents.simulation.inference import AGENT_MODELS
from marple_agents.simulation.mcts import MCTSAgent
from marple_agents.simulation.rollouts import query_probabilities, query_probability
from marple_agents.simulation.worlds import RolloutWorlds
from marple_eval.evidence import AgentEvidence, TrialEvidence
from marple_eval.inverse.base import ReachTerm, WhodunitInversePlanning, as_prior
from marple_eval.inverse.priors import MissionPriors
from marple_eval.protocol import opaque
from marple_eval.success import SuccessRule
from marple_gym.episode import EpisodeState
from marple_gym.missions.batch import DONE_CODES, BatchProgress, MissionTable
from marple_gym.missions.mission import Mission, get_mission
from marple_gym.missions.progress import MissionProgress
from marple_gym.world.batched_state import BatchedState
from marple_gym.world.house import House
from marple_gym.world.state import WorldState
from marple_gym.world.world import World

if TYPE_CHECKING:
    import torch


def subgoal_codes(progress: MissionProgress) -> tuple[int, int, int, int]:
    return DONE_CODES if progress.complete else progress.current.codes


@dataclass
class _Hypothesis:
    """One mission's account of an agent's actions so far: the agent's episode on that mission in its house (the
    world and the mission's progress, advanced together) and the actions' log-probabilities."""

    house: House
    episode: EpisodeState
    log_probs: list[float]

    @property
    def progress(self) -> MissionProgress:
        """The mission's progress: its episode's (the one record of it)."""
        return self.episode.progress[0]


@functools.lru_cache(maxsize=64)
def mission_table(mission: Mission) -> MissionTable:
    """The table of one mission (shared by the rollouts of every hypothesis on it)."""
    return MissionTable([mission])


class MissionPolicyAgent(RolloutAgent):
    """A language-conditioned policy that works through one mission's subgoals, from subgoal ``index`` (where the
    agent is at tau; one index per evidence point when it rolls out several in one batch): the rollouts' batch
    tracks each rollout's progress, and the policy is given its subgoal.

    ``policy`` is a policy or a :class:`~marple_agents.cache.PolicyCache` of one (answers kept across rollouts).
    """

    groups_starts = True

    def __init__(self, policy: Any, mission: Mission, index: int | Sequence[int]) -> None:
        self.policy = policy
        self.table = mission_table(mission)
        self.indices = [index] if isinstance(index, int) else list(index)
        self.worlds: RolloutWorlds | None = None

    def reset(self, worlds: RolloutWorlds, evidence: AgentEvidence, rng: np.random.Generator) -> None:
        self.reset_groups(worlds, [evidence], [rng])

    def reset_groups(
        self, worlds: RolloutWorlds, evidences: Sequence[AgentEvidence], rngs: Sequence[np.random.Generator]
    ) -> None:
        groups = worlds.groups
        if len(groups) != len(self.indices):
            raise ValueError(f"{len(self.indices)} starting subgoals for a batch of {len(groups)} groups")
        self.worlds = worlds
        index = np.repeat(np.array(self.indices, dtype=np.int64), [g.stop - g.start for g in groups])
        worlds.episodes.track(0, BatchProgress(self.table, np.zeros(len(index), dtype=np.int64), index))

    def act(self, active: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        progress = self.worlds.episodes.progress[0]
        vision = np.take(self.worlds.batch.grid, active, axis=0)
        subgoals = self.table.policy_codes(progress.mission[active], progress.index[active])
        probs = np.asarray(self.policy.action_probs(vision, subgoals), dtype=np.float64)
        return sample_rows(probs, rng)


class BipMethod(WhodunitInversePlanning):
    """Inverse planning with a learned, subgoal-conditioned likelihood (see module docs)."""

    name = "bip"
    needs_agent_models = True
    share_rollouts = True  # m rollouts per agent and point, as the simulation rows, their missions by the posterior

    def __init__(
        self,
        rollouts: int = 20,
        device: str | torch.device = "cpu",
        precision: str = "auto",
        agent: str = "policy",
        simulations: int = 16,
        **protocol: Any,
    ) -> None:
        super().__init__(rollouts, **protocol)
        if agent not in AGENT_MODELS:
            raise ValueError(f"unknown agent model {agent!r}; choose from {', '.join(AGENT_MODELS)}")
        self.device = device
        self.precision = resolve_precision(self.device, precision)
        self.agent = agent
        self.search = PuctSettings(simulations=simulations) if agent == "mcts" else None
        if self.search is not None:
            self.name = f"bip-mcts{self.search.simulations}"
        self.policies: dict[str, Any] = {}
        self.caches: dict[str, PolicyCache] = {}

    def settings(self) -> dict[str, Any]:
        search = {} if self.search is None else {"agent": self.agent, **asdict(self.search)}
        return {**super().settings(), "device": kind(self.device), "precision": self.precision, **search}

    def setup(self, agents: Mapping[str, Any]) -> None:
        """Receive each agent's ``{"policy": checkpoint or policy, "prior": MissionPrior or mapping}``.

        The rollouts ask each agent's policy through the process's cache of its answers
        (:func:`~marple_agents.cache.policy_cache`): the rollouts of every mission hypothesis, evidence point, trial
        and run revisit the same inputs again and again."""
        from marple_agents.policy import shared_policy  # torch (the agents extra): only when a policy runs

        self.priors, self.policies, self.caches = {}, {}, {}
        for identity, resource in agents.items():
            if not isinstance(resource, Mapping) or not {"policy", "prior"} <= set(resource):
                raise ValueError("bip needs a language-conditioned policy and a mission prior per agent")
            policy = shared_policy(resource["policy"], self.device, self.precision)
            if getattr(policy, "conditioning", None) != "language":
                raise ValueError("bip needs a language-conditioned policy (the likelihood is given each subgoal)")
            self.policies[identity] = policy
            self.caches[identity] = policy_cache(policy)
            self.priors[identity] = as_prior(resource["prior"], "bip")
        self._episodes = {}
        self._searches: dict[tuple[str, tuple[str, ...]], MissionSearch] = {}

    def hypotheses(self, agent: AgentEvidence) -> dict[str, _Hypothesis]:
        """Each mission's account of the agent's actions to tau (extended from the last call where it can)."""
        prior, actions = self.prior_of(agent), agent.actions.tolist()

        def fresh() -> dict[str, _Hypothesis]:
            start = agent.world(0)
            return {m: self._start(get_mission(m), start) for m in prior}

        hypotheses = self.episode_state(
            agent, fresh, lambda hs: any(len(h.log_probs) > len(actions) for h in hs.values())
        )
        self._extend(agent, hypotheses, actions)
        return hypotheses

    @staticmethod
    def _start(mission: Mission, start: World) -> _Hypothesis:
        episode = EpisodeState.start(start.house, start.state.copy(), (mission,))
        episode.skip_infeasible(start.house)
        return _Hypothesis(start.house, episode, [])

    def _extend(self, agent: AgentEvidence, hypotheses: dict[str, _Hypothesis], actions: list[int]) -> None:
        """Score the new actions under every mission with one batched policy call."""
        rows, vision, subgoals, states, indices = [], [], [], [], []
        for mission, h in hypotheses.items():
            for t in range(len(h.log_probs), len(actions)):
                rows.append((mission, t))
                vision.append(agent.vision[t])
                subgoals.append(subgoal_codes(h.progress))
                if self.search is not None:  # where the search starts: the world and the mission's progress at t
                    states.append(h.episode.world.copy())
                    indices.append(h.progress.index)
                h.episode.advance(h.house, (actions[t],))
        if not rows:
            return
        if self.search is None:
            probs = self.policies[agent.identity].action_probs(np.stack(vision), np.array(subgoals, dtype=np.int64))
        else:
            probs = self._searched(agent, hypotheses, states, indices, [mission for mission, _ in rows])
        for (mission, t), p in zip(rows, np.asarray(probs, dtype=np.float64)):
            hypotheses[mission].log_probs.append(math.log(max(float(p[actions[t]]), MIN_PROBABILITY)))

    def _searched(
        self,
        agent: AgentEvidence,
        hypotheses: dict[str, _Hypothesis],
        states: list[WorldState],
        indices: list[int],
        missions: list[str],
    ) -> np.ndarray:
        """The MCTS agent model's action distributions at the given states, each on its mission, in one search."""
        names = list(hypotheses)
        search = self._mission_search(agent.identity, names)
        house = next(iter(hypotheses.values())).house
        ids = np.array([names.index(m) for m in missions], dtype=np.int64)
        return search.policy(house, BatchedState.stack(states), ids, np.array(indices, dtype=np.int64))

    def _mission_search(self, identity: str, missions: list[str]) -> MissionSearch:
        key = (identity, tuple(missions))
        if key not in self._searches:
            table = MissionTable([get_mission(m) for m in missions])
            self._searches[key] = MissionSearch(table, self.caches[identity].action_probs, self.search)
        return self._searches[key]

    def log_likelihoods(self, agent: AgentEvidence) -> dict[str, float]:
        return {m: sum(h.log_probs) for m, h in self.hypotheses(agent).items()}

    def progress_index(self, agent: AgentEvidence, mission: str) -> int:
        return self.hypotheses(agent)[mission].progress.index

    def reach_probability(self, agent: AgentEvidence, term: ReachTerm, query: SuccessRule) -> float:
        rollout_agent = self._rollout_agent(agent.identity, term.mission, [term.index])
        return query_probability(term.world, rollout_agent, agent, query, term.steps, term.rollouts, term.rng)

    def query_probabilities_at(self, trials: Sequence[TrialEvidence]) -> list[tuple[float, ...]]:
        """Every evidence point of one trial: each suspect's rollouts of one mission at all its points in one batch
        (:func:`~marple_agents.simulation.rollouts.query_probabilities`; each point's rows draw from their own
        generator exactly what they would draw alone, so the answers are :meth:`query_probability`'s)."""
        if not trials:
            return []
        suspects = range(len(trials[0].agents))
        return list(zip(*(self._suspect_at_points([t.agents[k] for t in trials], trials) for k in suspects)))

    def _suspect_at_points(self, agents: Sequence[AgentEvidence], trials: Sequence[TrialEvidence]) -> list[float]:
        totals = [0.0] * len(agents)
        asked: dict[str, list[tuple[int, ReachTerm]]] = {}
        for k, (agent, trial) in enumerate(zip(agents, trials)):  # ascending tau: each agent's hypotheses extend
            terms = self.reach_terms(agent, trial)
            if terms is None:
                totals[k] = 1.0
            for term in terms or ():
                asked.setdefault(term.mission, []).append((k, term))
        for mission, items in asked.items():
            ks = [k for k, _ in items]
            rollout_agent = self._rollout_agent(agents[0].identity, mission, [term.index for _, term in items])
            reach = query_probabilities(
                [term.world for _, term in items],
                rollout_agent,
                [agents[k] for k in ks],
                trials[ks[0]].success,
                [term.steps for _, term in items],
                [term.rollouts for _, term in items],
                [term.rng for _, term in items],
            )
            for (k, term), p in zip(items, reach):
                totals[k] += term.weight * p
        return totals

    def _rollout_agent(self, identity: str, mission: str, indices: list[int]) -> RolloutAgent:
        """The agent model whose rollouts give P(reach | mission): the policy fed the mission's subgoals, from
        subgoal ``indices[g]`` in group ``g`` (the MCTS agent model finds where each starts itself)."""
        if self.search is None:
            return MissionPolicyAgent(self.caches[identity], get_mission(mission), indices)
        # Conditioned on m's subgoals, as the likelihood is (not on the intents the simulation agent follows).
        policy = self.policies[identity]
        return MCTSAgent(policy, {mission: 1.0}, self.search, use_language=True, mission_subgoals=True)


@dataclass(frozen=True)
class BipResources:
    """Resources for the protocol: each role's checkpoint (templates with ``{scenario}`` and ``{role}``; one
    template serves every role) and its mission prior from ``priors`` (a
    :data:`~marple_eval.inverse.priors.MissionPriors`: uniform, or the privileged training labels)."""

    policies: str | Mapping[str, str]
    priors: MissionPriors

    def __call__(self, scenario: str, role: str) -> dict[str, Any]:
        if isinstance(self.policies, Mapping) and role not in self.policies:
            raise ValueError(f"bip: no policy given for role {role!r} (use --agent {role}=CHECKPOINT)")
        template = self.policies[role] if isinstance(self.policies, Mapping) else self.policies
        # By content, like every agent model: a checkpoint's path names the agent's role.
        return {"policy": opaque(template.format(scenario=scenario, role=role)), "prior": self.priors(scenario, role)}
