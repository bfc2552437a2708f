"""An agent's belief about where an object is: a distribution over the furniture that could hold it.

The belief about one object is a *support*, the set of pieces the object may be on or in (bits, see
:mod:`marple_gym.beliefs.locations`), with probability spread evenly over it (or in proportion to given
weights), and, once the agent has seen the object, the cell it saw it on. It changes only through what the
agent perceives (:class:`~marple_gym.beliefs.perception.Percept`), by three rules:

* **seen**: the object is seen on a piece: the belief is that piece, at that cell;
* **not there**: a piece seen whole without the object is dropped from the support (the piece it was last
  seen on too: it was moved);
* **start again**: when that leaves nothing (everything the agent thought possible turned out empty: the
  object was moved while it was not looking, or its prior was wrong), the support becomes every piece that
  could hold the object, less those it sees empty now. So an agent whose object can be reached finds it.

Nothing else moves a belief: an object taken or moved out of sight leaves it as it was, which is how a
false belief arises (the Sally-Anne test).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from marple_gym.beliefs.locations import pieces_of
from marple_gym.beliefs.perception import Percept


class ObjectBelief(NamedTuple):
    """Where an agent thinks one object is."""

    support: int
    """Bits of the pieces the object may be on or in."""
    cell: tuple[int, int] | None = None
    """The cell it was seen on, while the agent thinks it is still there (None: not seen)."""

    @classmethod
    def start(cls, prior: int) -> ObjectBelief:
        """The belief of an agent that has not seen the object: its prior support."""
        return cls(prior, None)

    @property
    def certain(self) -> bool:
        """Does the agent think it knows the piece the object is on (one piece left)?"""
        return self.support != 0 and self.support & (self.support - 1) == 0

    def holds(self, piece: int) -> bool:
        """Does the agent think the object may be on or in ``piece``?"""
        return bool(self.support >> piece & 1)

    def revise(self, percept: Percept, seen: tuple[int, tuple[int, int]] | None, candidates: int) -> ObjectBelief:
        """The belief after one moment's perception (see the module docs). ``seen``: the (piece, cell) the agent
        sees the object on now, None if it does not; ``candidates``: every piece that could hold it."""
        if seen is not None:
            piece, cell = seen
            return ObjectBelief(1 << piece, cell)
        support = self.support & ~percept.pieces
        if support == self.support:
            return self
        if support == 0:
            support = candidates & ~percept.pieces
        return ObjectBelief(support, None)

    def probabilities(self, weights: Mapping[int, float] | None = None) -> dict[int, float]:
        """Piece -> probability: even over the support, or in proportion to ``weights`` (piece -> weight)."""
        pieces = pieces_of(self.support)
        if not pieces:
            return {}
        w = [1.0 if weights is None else float(weights.get(p, 0.0)) for p in pieces]
        total = sum(w)
        if total <= 0:
            return {p: 1.0 / len(pieces) for p in pieces}
        return {p: x / total for p, x in zip(pieces, w)}
