"""When a rollout (or an observed action) counts as reaching the query state: a protocol setting.

Methods that estimate P(query | agent) count the rollouts that reach the query
state. Two rules, named by :data:`SUCCESS_RULES` and recorded in every results
file (``settings.protocol.success``; docs/evaluation.md):

* ``query-state`` (:class:`QueryStateSuccess`, the paper's text and our
  default): a successful action that achieves the query subgoal itself: its
  action on furniture of its type in a room of its type (with its object, for
  a pickup or a drop), producing its state ("the laundry switched *on*");
* ``action-match`` (:class:`ActionMatchSuccess`, the released code): any
  successful action whose (target type, action type) pair equals the query
  action's, where the target is the object for a pickup or a drop and the
  furniture otherwise. Neither the room nor the state produced is compared, so
  switching the laundry *off*, or picking the pillow up from the sofa, counts.

Both answer the same three questions: does one outcome count (:meth:`matches`),
which outcomes of a batch count (:meth:`reached`), and can a mission's subgoal
produce a counted action at all (:meth:`produced_by`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from marple_gym.missions.batch import subgoal_reached
from marple_gym.missions.mission import Subgoal
from marple_gym.missions.questions import same_state_change
from marple_gym.world.actions import Action, Outcome
from marple_gym.world.assets import ASSETS
from marple_gym.world.batched_state import BatchOutcome
from marple_gym.world.house import House
from marple_gym.world.house_batch import HouseBatch

SUCCESS_RULES = ("query-state", "action-match")
"""The query subgoal itself (the paper's text), or the released code's match on (target type, action type)."""

_OBJECT_ACTIONS = (int(Action.pickup), int(Action.drop))
"""Actions whose target, for the action match, is the object they move (the others act on furniture)."""


class SuccessRule(Protocol):
    """What counts as reaching the query state (see module docs)."""

    query: Subgoal

    def matches(self, outcome: Outcome, house: House) -> bool: ...

    def reached(self, house: House | HouseBatch, out: BatchOutcome) -> np.ndarray: ...

    def produced_by(self, subgoal: Subgoal) -> bool: ...


@dataclass(frozen=True)
class QueryStateSuccess:
    """The query subgoal itself: ``query.matches`` (the paper's text; our default)."""

    query: Subgoal

    def matches(self, outcome: Outcome, house: House) -> bool:
        """Does this outcome count as reaching the query state?"""
        return self.query.matches(outcome, house)

    def reached(self, house: House | HouseBatch, out: BatchOutcome) -> np.ndarray:
        """(N,) bool: which outcomes of a batch count."""
        return subgoal_reached(self.query, house, out)

    def produced_by(self, subgoal: Subgoal) -> bool:
        """Can achieving ``subgoal`` count (it produces the same state change)?"""
        return same_state_change(subgoal, self.query)


@dataclass(frozen=True)
class ActionMatchSuccess:
    """Any successful action of the query's action type on a target of its type (the released code's rule)."""

    query: Subgoal

    @property
    def target(self) -> tuple[int, int]:
        """(action code, type code of the target): the object's for a pickup or a drop, the furniture's otherwise."""
        action = int(self.query.action)
        if action in _OBJECT_ACTIONS:
            return action, ASSETS.object_code[self.query.obj]
        return action, ASSETS.furniture_code[self.query.fur]

    def matches(self, outcome: Outcome, house: House) -> bool:
        """Does this outcome count: successful, of the query's action type, on a target of its type?"""
        action, code = self.target
        if not outcome.success or outcome.action != action:
            return False
        if action in _OBJECT_ACTIONS:
            return outcome.obj >= 0 and house.obj_type_list[outcome.obj] == code
        return outcome.fur >= 0 and house.fur_type_list[outcome.fur] == code

    def reached(self, house: House | HouseBatch, out: BatchOutcome) -> np.ndarray:
        """(N,) bool: which outcomes of a batch count."""
        action, code = self.target
        reached = np.zeros(len(out.action), dtype=bool)
        rows = np.flatnonzero(out.success & (out.action == action))
        if not rows.size:
            return reached
        houses = HouseBatch.of(house)
        if action in _OBJECT_ACTIONS:
            obj = out.obj[rows]
            reached[rows] = (obj >= 0) & (houses.obj_code(rows, obj) == code)
        else:
            fur = out.fur[rows]
            reached[rows] = (fur >= 0) & (houses.fur_code(rows, fur) == code)
        return reached

    def produced_by(self, subgoal: Subgoal) -> bool:
        """Can achieving ``subgoal`` count: the same action type on a target of the same type?"""
        if subgoal.action != self.query.action:
            return False
        if int(subgoal.action) in _OBJECT_ACTIONS:
            return subgoal.obj == self.query.obj
        return subgoal.fur == self.query.fur


def success_rule(name: str, query: Subgoal) -> SuccessRule:
    """The rule ``name`` of :data:`SUCCESS_RULES` for ``query``."""
    if name == "query-state":
        return QueryStateSuccess(query)
    if name == "action-match":
        return ActionMatchSuccess(query)
    raise ValueError(f"success must be one of {', '.join(SUCCESS_RULES)}, got {name!r}")


def as_success(query: Subgoal | SuccessRule) -> SuccessRule:
    """A success rule from a rule, or from a bare query subgoal (then the query state itself counts)."""
    return QueryStateSuccess(query) if isinstance(query, Subgoal) else query
