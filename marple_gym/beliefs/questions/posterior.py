"""Bayesian inverse planning over a searching agent's goal and belief (MMToM-QA's equation 1).

An observer sees the whole house and everything the agent does, and knows how it perceives. What it does
not see is what the agent wants (its goal, an object type) and what it believed before it looked (its prior
support: every piece that could hold the object, or all but one, :func:`prior_hypotheses`). Given both, the
agent's belief at every step follows from what it perceived (:meth:`EpisodeTrace.beliefs`), so::

    P(goal, prior | actions before t)  ~  P(goal) * P(prior) * prod_s pi(a_s | goal, belief_s(prior), state_s)

with ``pi`` an action model: the true searching policy (the exact observer) or a learned one (``bip``).
Only the searcher's own search counts as evidence: the steps of a false-belief episode's setup, when it was
on an errand, and the steps after it found its object, do not. Goals have an even prior; the probability of
a statement about the belief at step ``t`` (``"the agent thinks the apple may be in the fridge"``) is the
posterior mass of the hypotheses whose belief at ``t`` makes it true.

A statement about the belief about another object than the goal (MMToM-QA's type 2.2: "if she thinks there
is no apple in the fridge, is she after the apple or the cake?") is weighed, under a goal other than that
object, by its prior probability given what the agent perceived: beliefs about objects it does not want do
not move its actions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

import numpy as np

from marple_gym.beliefs.belief import ObjectBelief
from marple_gym.beliefs.episodes import EXCLUSION, EpisodeTrace, SearchEpisode
from marple_gym.beliefs.locations import locations_of, pieces_of
from marple_gym.world.house import House

FLOOR = 1e-12
"""The least probability an action gets, so that an observation no hypothesis explains leaves the posterior
defined (the exact observer's model gives exactly 0 to what it rules out; this changes nothing else)."""


class ActionModel(Protocol):
    """pi(a | goal, belief, state): the likelihood of the agent's actions under a hypothesis."""

    name: str

    def action_probabilities(
        self, trace: EpisodeTrace, goal: int, steps: Sequence[int], beliefs: Sequence[Sequence[ObjectBelief]]
    ) -> np.ndarray:
        """(len(beliefs), len(steps)): the probability of the searcher's action at each step (from state
        ``trace.states[t]``) given that it wants an object of type ``goal`` and holds ``beliefs[h][k]`` at
        ``steps[k]``."""


class PlannerModel:
    """The true searching policy (:class:`~marple_gym.beliefs.search.SearchPolicy`) as the action model."""

    name = "planner"

    def action_probabilities(
        self, trace: EpisodeTrace, goal: int, steps: Sequence[int], beliefs: Sequence[Sequence[ObjectBelief]]
    ) -> np.ndarray:
        episode = trace.episode
        out = np.empty((len(beliefs), len(steps)))
        for k, t in enumerate(steps):
            p = trace.policy.probabilities(trace.moment(t), goal, [b[k] for b in beliefs])
            out[:, k] = p[:, int(episode.actions[t, episode.searcher])]
        return out


def prior_hypotheses(candidates: int, exclusion: float = EXCLUSION) -> tuple[tuple[int, ...], np.ndarray]:
    """The prior supports an agent may start with (every candidate piece; all but one) and their probabilities:
    the distribution :func:`marple_gym.beliefs.episodes.sample_prior` draws from."""
    pieces = pieces_of(candidates)
    if len(pieces) < 2 or exclusion <= 0:
        return (candidates,), np.ones(1)
    supports = (candidates,) + tuple(candidates & ~(1 << p) for p in pieces)
    weights = np.array([1.0 - exclusion] + [exclusion / len(pieces)] * len(pieces))
    return supports, weights


@dataclass(frozen=True, eq=False)
class GoalAccount:
    """One goal's hypotheses: prior supports, their weights, the beliefs they lead to, and the log-probability
    of the actions before every step."""

    goal: int
    supports: tuple[int, ...]
    log_weights: np.ndarray  # (H,)
    beliefs: tuple[tuple[ObjectBelief, ...], ...]  # (H, T + 1)
    log_likelihood: np.ndarray  # (H, T + 1): log P(actions before t | goal, prior h)

    def log_posterior(self, t: int) -> np.ndarray:
        """(H,) log P(prior h, actions before t | goal) (unnormalised)."""
        return self.log_weights + self.log_likelihood[:, t]

    @cached_property
    def log_evidence(self) -> np.ndarray:
        """(T + 1,) log P(actions before t | goal), every hypothesis summed out."""
        logs = self.log_weights[:, None] + self.log_likelihood
        top = logs.max(axis=0)
        return top + np.log(np.exp(logs - top).sum(axis=0))


class Priors(Protocol):
    """What an observer assumes the searcher believed before it looked: for a goal, the prior supports with
    their weights, and the places a belief left with none starts again from."""

    def supports(self, house: House, goal: int) -> tuple[tuple[int, ...], np.ndarray]: ...

    def restart(self, house: House, goal: int) -> int: ...


@dataclass(frozen=True)
class GeneratorPriors:
    """The searchers' own priors (:func:`prior_hypotheses`): every piece the generator could put the object on,
    or all but one. The exact observer's, and the answer key's: a model cannot read them off a house."""

    exclusion: float = EXCLUSION

    def supports(self, house: House, goal: int) -> tuple[tuple[int, ...], np.ndarray]:
        return prior_hypotheses(locations_of(house).candidates(goal), self.exclusion)

    def restart(self, house: House, goal: int) -> int:
        return locations_of(house).candidates(goal)


@dataclass(frozen=True)
class UniformPriors:
    """What a model can read (BIP-ALM's "a uniform distribution for the initial belief"): a belief even over
    every place of the house that holds objects, whatever the object; and, for a question about one container
    (``piece``), the two beliefs its options name, that it may hold the object and that it does not, equally
    likely."""

    piece: int = -1

    def supports(self, house: House, goal: int) -> tuple[tuple[int, ...], np.ndarray]:
        places = locations_of(house).all
        if self.piece < 0 or not places >> self.piece & 1:
            return (places,), np.ones(1)
        return (places, places & ~(1 << self.piece)), np.full(2, 0.5)

    def restart(self, house: House, goal: int) -> int:
        return locations_of(house).all


class InversePlanner:
    """Posterior probabilities of statements about a searcher's goal and belief (see the module docs)."""

    def __init__(
        self,
        episode: SearchEpisode,
        model: ActionModel | None = None,
        exclusion: float = EXCLUSION,
        priors: Priors | None = None,
        until: int | None = None,
    ) -> None:
        """``priors``: the searcher's prior beliefs as the observer assumes them (default: the searchers' own,
        :class:`GeneratorPriors` with ``exclusion``); ``until``: weigh the actions before this step only (the
        latest cut to be asked about; the default, every action, serves any cut)."""
        self.episode = episode
        self.trace = episode.trace()
        self.model = PlannerModel() if model is None else model
        self.priors = GeneratorPriors(exclusion) if priors is None else priors
        self._accounts: dict[int, GoalAccount] = {}
        self._priors: dict[int, tuple[tuple[int, ...], np.ndarray, list[list[ObjectBelief]]]] = {}
        end = episode.found if episode.found >= 0 else episode.length
        self.evidence = range(episode.search_start, end if until is None else min(end, until))
        """The steps whose actions count as evidence: the searcher's own search."""

    def hypotheses(self, goal: int) -> tuple[tuple[int, ...], np.ndarray, list[list[ObjectBelief]]]:
        """The prior hypotheses of an object's belief and where perception takes each (no actions involved)."""
        known = self._priors.get(goal)
        if known is None:
            house = self.trace.house
            supports, weights = self.priors.supports(house, goal)
            restart = self.priors.restart(house, goal)
            beliefs = [self.trace.beliefs(goal, s, restart=restart) for s in supports]
            known = self._priors[goal] = (supports, weights, beliefs)
        return known

    def account(self, goal: int) -> GoalAccount:
        """The hypotheses of goal ``goal`` and how well each explains the actions (worked out once)."""
        found = self._accounts.get(goal)
        if found is not None:
            return found
        supports, weights, beliefs = self.hypotheses(goal)
        steps = list(self.evidence)
        log_like = np.zeros((len(supports), len(self.trace.states)))
        if steps:
            p = self.model.action_probabilities(self.trace, goal, steps, [[b[t] for t in steps] for b in beliefs])
            logs = np.log(np.maximum(p, FLOOR))
            log_like[:, steps[0] + 1 : steps[-1] + 2] = np.cumsum(logs, axis=1)
            log_like[:, steps[-1] + 2 :] = log_like[:, [steps[-1] + 1]]
        found = self._accounts[goal] = GoalAccount(
            goal, supports, np.log(weights), tuple(tuple(b) for b in beliefs), log_like
        )
        return found

    # ---- statements ------------------------------------------------------------------------------------------

    def belief_probability(self, goal: int, obj: int, piece: int, t: int) -> float:
        """P(the agent thinks an object of type ``obj`` may be on or in ``piece`` at step ``t`` | it wants an
        object of type ``goal``, its actions before ``t``)."""
        if obj != goal:
            return self._unconditioned(obj, piece, t)
        account = self.account(goal)
        logs = account.log_posterior(t)
        holds = np.array([b[t].holds(piece) for b in account.beliefs])
        return float(_share(logs, holds))

    def _unconditioned(self, obj: int, piece: int, t: int) -> float:
        """P(the agent thinks ``obj`` may be on ``piece`` at ``t``) from its prior and perception alone."""
        _, weights, beliefs = self.hypotheses(obj)
        holds = np.array([b[t].holds(piece) for b in beliefs])
        return float((weights * holds).sum() / weights.sum())

    def goal_log_evidence(self, goal: int, t: int, given: tuple[int, int, bool] | None = None) -> float:
        """log P(goal, actions before t[, given]) up to a constant shared by every goal: ``given`` is a statement
        (object, piece, thinks it may be there) about the belief at ``t`` that the question supposes."""
        account = self.account(goal)
        if given is None:
            return float(account.log_evidence[t])
        logs = account.log_posterior(t)
        if given is not None:
            obj, piece, inside = given
            if obj == goal:
                keep = np.array([b[t].holds(piece) == inside for b in account.beliefs])
                logs = np.where(keep, logs, -np.inf)
            else:
                p = self._unconditioned(obj, piece, t)
                logs = logs + math.log(max(p if inside else 1.0 - p, FLOOR))
        top = logs.max()
        return float(top + math.log(np.exp(logs - top).sum())) if np.isfinite(top) else -math.inf

    def goal_probability(self, first: int, second: int, t: int, given: tuple[int, int, bool] | None = None) -> float:
        """P(the goal is ``first`` rather than ``second`` | actions before t[, given])."""
        a, b = self.goal_log_evidence(first, t, given), self.goal_log_evidence(second, t, given)
        if a == b == -math.inf:
            return 0.5
        top = max(a, b)
        return math.exp(a - top) / (math.exp(a - top) + math.exp(b - top))


def _share(logs: np.ndarray, mask: np.ndarray) -> float:
    """The posterior mass of the hypotheses in ``mask`` (0.5 when no hypothesis explains the actions)."""
    top = logs.max()
    if not np.isfinite(top):
        return 0.5
    w = np.exp(logs - top)
    return float(w[mask].sum() / w.sum())
