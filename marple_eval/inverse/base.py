"""Bayesian inverse planning over missions: what the ideal observer and ``bip`` share.

For each agent, with a prior P(m) over its missions (uniform over the scenario's missions by default, or the
privileged training labels: :mod:`marple_eval.inverse.priors`)::

    P(m | actions to tau)  ~  P(m) * P(actions to tau | m)
    P(query | agent)        =  sum_m P(m | actions) * P(an agent on m, carrying on from tau, reaches the query
                                                      state within the protocol's steps)

Subclasses say how the two factors are computed (:meth:`log_likelihoods`,
:meth:`reach_probability`) and how the rollouts are spent: ``rollouts`` for
every mission (the ideal observer's exact mixture; a mission whose posterior
weight is below :data:`NEGLIGIBLE_WEIGHT` is not rolled out, since it could add
no more than that weight), or, with :attr:`WhodunitInversePlanning.share_rollouts`
(``bip``), ``rollouts`` in all, shared out among the missions in proportion to
the posterior (largest remainders: draws from the posterior predictive, as the
simulation rows draw ``rollouts`` per agent). The second factor is not asked
for a mission that has no subgoal left that can count as reaching the query
(it is 0). The horizon,
cutoff and combination rule are the protocol's (``trial.steps_left``,
``trial.rules``; the harness applies the cutoff); :data:`ANSWERS` offers two
more answers for the ceiling.
"""

from __future__ import annotations

import logging
import math
import zlib
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from marple_eval.evidence import VISION, AgentEvidence, TrialEvidence
from marple_eval.inverse.priors import MissionPrior
from marple_eval.methods.whodunit import QueryMethod
from marple_eval.success import SuccessRule
from marple_gym.missions.mission import Mission, get_mission
from marple_gym.validation import describe, is_int
from marple_gym.world.actions import Outcome
from marple_gym.world.world import World

log = logging.getLogger(__name__)

ANSWERS = ("protocol", "posterior", "map")
"""How P(query | A), P(query | B), ... become the answer: the protocol's combination rule (softmax with eta, or
the ratio; as simulation inference answers); the posterior that A rather than B (or C, ...) is the one who did
it, given that exactly one did; or all on the most probable agent, which maximises the expected score of the
benchmark's linear metric (the mean probability given to the culprit) and so is the ceiling of every method.
With several suspects able to produce the query state, "exactly one did it" ignores who came first: the
posterior and map answers are then an approximation (the protocol's combination is the paper's rule)."""


NEGLIGIBLE_WEIGHT = 1e-3
"""Missions whose posterior weight is below this are not rolled out: each could add at most its weight to
P(query | agent), and with a label-free prior an agent's posterior keeps a sliver of weight on missions its actions
all but rule out (a learned likelihood never says 0)."""


@dataclass
class ReachTerm:
    """One mission's share of P(query | agent) at one evidence point: its ``weight`` in the mixture, the agent's
    ``world`` at tau, the ``steps`` left, how many of the mission's subgoals are behind the agent (``index``),
    how many ``rollouts`` estimate its P(reach) and the generator they draw from."""

    mission: str
    weight: float
    world: World
    steps: int
    index: int
    rollouts: int
    rng: np.random.Generator


def share_rows(rows: int, weights: Sequence[float]) -> np.ndarray:
    """(len(weights),) how many of ``rows`` go to each weight: proportional, largest remainders first (drawing
    nothing at random)."""
    p = np.asarray(weights, dtype=np.float64)
    exact = rows * p / p.sum()
    counts = np.floor(exact).astype(np.int64)
    order = np.argsort(-(exact - counts), kind="stable")
    counts[order[: rows - counts.sum()]] += 1
    return counts


def mission_posterior(prior: Mapping[str, float], log_likelihoods: Mapping[str, float]) -> dict[str, float] | None:
    """P(m | actions) from P(m) and log P(actions | m) (None when no mission of positive prior explains them)."""
    logs = {m: math.log(prior[m]) + ll for m, ll in log_likelihoods.items() if prior.get(m, 0) > 0}
    top = max(logs.values(), default=-math.inf)
    if top == -math.inf:
        return None
    weights = {m: math.exp(v - top) for m, v in logs.items()}
    total = sum(weights.values())
    return {m: w / total for m, w in weights.items()}


def may_produce(mission: Mission, done: int, success: SuccessRule) -> bool:
    """Can a subgoal from index ``done`` on count as reaching the query (``success``, the protocol's rule)?"""
    return any(success.produced_by(sg) for sg in mission.subgoals[done:])


def as_prior(resource: Any, model: str) -> MissionPrior:
    """A :class:`MissionPrior` from a prior or a plain ``{mission: probability}`` mapping."""
    if isinstance(resource, MissionPrior):
        return resource
    if isinstance(resource, Mapping) and resource and all(isinstance(p, int | float) for p in resource.values()):
        return MissionPrior({m: float(p) for m, p in resource.items()}, "given", 0)
    raise ValueError(f"{model} needs a mission prior per agent, got {type(resource).__name__}")


class WhodunitInversePlanning(QueryMethod):
    """P(query | agent) as a posterior-weighted mixture over missions (see module docs)."""

    reads = frozenset({VISION})
    share_rollouts = False
    """False: ``rollouts`` for every mission of the posterior; True: ``rollouts`` in all, shared out among the
    missions in proportion to the posterior."""

    def __init__(self, rollouts: int, seed: int = 0, answer: str = "protocol") -> None:
        if not is_int(rollouts) or rollouts < 1:  # not 1.5 or true, which int() would make 1
            raise ValueError(f"rollouts must be a whole number >= 1, got {describe(rollouts)}")
        if answer not in ANSWERS:
            raise ValueError(f"answer must be one of {', '.join(ANSWERS)}, got {answer!r}")
        self.rollouts = int(rollouts)
        self.seed = int(seed)
        self.answer = answer
        # Only the protocol's answer is a combination of the query probabilities (stored and rescorable).
        self.combines_query_probabilities = answer == "protocol"
        # Runs of other answer rules are other rows of a report.
        self.name = type(self).name + ("" if answer == "protocol" else f"-{answer}")
        self.priors: dict[str, MissionPrior] = {}
        self._episodes: dict[str, tuple[bytes, Any]] = {}

    def episode_state(self, agent: AgentEvidence, fresh: Callable[[], Any], behind: Callable[[Any], bool]) -> Any:
        """Per-agent working state for the episode being scored, kept across its evidence points.

        Made anew by ``fresh`` for a new episode (another start) or when the
        evidence is shorter than what ``behind`` says the state has consumed.
        """
        key = agent.vision[0].tobytes()
        cached = self._episodes.get(agent.identity)
        if cached is None or cached[0] != key or behind(cached[1]):
            self._episodes[agent.identity] = cached = (key, fresh())
        return cached[1]

    def settings(self) -> dict[str, Any]:
        return {
            **super().settings(),
            "rollouts": self.rollouts,
            "seed": self.seed,
            "answer": self.answer,
            "prior": "each agent's, given by the run (settings.mission_prior)",
        }

    def prior_of(self, agent: AgentEvidence) -> dict[str, float]:
        if agent.identity not in self.priors:
            raise ValueError(f"no mission prior was set up for {agent.identity}; the run must provide one per agent")
        return {m: p for m, p in self.priors[agent.identity].probabilities.items() if p > 0}

    @abstractmethod
    def log_likelihoods(self, agent: AgentEvidence) -> dict[str, float]:
        """log P(the agent's actions to tau | m) for each mission of its prior."""

    @abstractmethod
    def reach_probability(self, agent: AgentEvidence, term: ReachTerm, query: SuccessRule) -> float:
        """P(an agent on ``term.mission``, carrying on from ``term.world`` at tau, reaches ``query`` within
        ``term.steps``), estimated from ``term.rollouts`` rollouts drawing from ``term.rng``."""

    @abstractmethod
    def progress_index(self, agent: AgentEvidence, mission: str) -> int:
        """How many of ``mission``'s subgoals are behind the agent at tau, if it is on ``mission``."""

    def replay(self, agent: AgentEvidence) -> tuple[World, list[Outcome]]:
        """The agent's world at tau and what its actions did on the way (:meth:`AgentEvidence.replay`)."""
        return agent.replay()

    def posterior(self, agent: AgentEvidence) -> dict[str, float]:
        """P(mission | the agent's actions to tau)."""
        prior = self.prior_of(agent)
        posterior = mission_posterior(prior, self.log_likelihoods(agent))
        if posterior is None:
            log.warning("%s: no mission of the prior explains the actions; answering with the prior", agent.identity)
            return prior
        return posterior

    def query_probability(self, agent: AgentEvidence, trial: TrialEvidence) -> float:
        """P(query | agent, evidence to tau), within the protocol's horizon (see module docs)."""
        terms = self.reach_terms(agent, trial)
        if terms is None:
            return 1.0
        return sum(term.weight * self.reach_probability(agent, term, trial.success) for term in terms)

    def reach_terms(self, agent: AgentEvidence, trial: TrialEvidence) -> list[ReachTerm] | None:
        """The missions whose P(reach | m) :meth:`query_probability` needs at this point, with their weights,
        the world at tau and the generator of their rollouts; None where the evidence already shows the agent
        reaching the query (then P(query | agent) is 1)."""
        world, outcomes = self.replay(agent)
        success = trial.success
        if any(success.matches(o, world.house) for o in outcomes):
            return None
        steps = trial.steps_left
        if steps <= 0:
            return []
        posterior = self.posterior(agent)
        if self.share_rollouts:  # rollouts in all, by the posterior; a share of rollouts weighs its share of them
            counts = share_rows(self.rollouts, list(posterior.values())).tolist()
            shares = {m: (c / self.rollouts, c) for m, c in zip(posterior, counts) if c > 0}
        else:
            shares = {m: (w, self.rollouts) for m, w in posterior.items() if w >= NEGLIGIBLE_WEIGHT}
        terms = []
        for mission, (weight, rollouts) in shares.items():
            index = self.progress_index(agent, mission)
            if not may_produce(get_mission(mission), index, success):
                continue
            # Seeded by what was observed, never by the identity (identities are salted per run).
            first, last = agent.vision[0].tobytes(), agent.vision[-1].tobytes()
            rng = np.random.default_rng(
                [self.seed, trial.tau, zlib.crc32(first), zlib.crc32(last), zlib.crc32(mission.encode())]
            )
            terms.append(ReachTerm(mission, weight, world, steps, index, rollouts, rng))
        return terms

    def predict_all(self, trials: Sequence[TrialEvidence]) -> list[tuple[float, ...]]:
        if self.answer == "protocol":
            return super().predict_all(trials)
        return [self._exactly_one(q) for q in self.query_probabilities_at(trials)]

    def _exactly_one(self, p: Sequence[float]) -> tuple[float, ...]:
        """The ``posterior`` or ``map`` answer: exactly one of them did it, suspect i and none of the others."""
        w = np.array([p_i * math.prod(1 - q for j, q in enumerate(p) if j != i) for i, p_i in enumerate(p)])
        if (w == w[0]).all():
            return (1.0 / len(p),) * len(p)
        if self.answer == "map":
            best = w == w.max()
            return tuple((best / best.sum()).tolist())
        return tuple((w / w.sum()).tolist())
