"""The ten agent actions and the record of what one action did."""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple


class Action(IntEnum):
    """Agent actions. Interactions act on the cell the agent faces.

    The first three share MiniGrid's numbering (left, right, forward), as do
    ``pickup``, ``drop`` and ``toggle``.
    """

    left = 0
    right = 1
    forward = 2
    pickup = 3
    drop = 4
    toggle = 5
    open = 6
    close = 7
    clean = 8
    idle = 9


NUM_ACTIONS = len(Action)
NAVIGATION = frozenset({Action.left, Action.right, Action.forward})
INTERACTIONS = frozenset(Action) - NAVIGATION


class Outcome(NamedTuple):
    """What an action did to the world.

    ``fur`` and ``obj`` are instance indices of the furniture and object the
    action involved (-1 for none): the furniture an object was picked up from or
    dropped onto, the furniture toggled, opened, closed, cleaned or idled at.
    ``value`` is the new boolean value of the state the action changed
    (1 / 0), or -1 when no state changed. ``x, y`` is the faced cell.
    A failed action (``success`` False) changed nothing.
    """

    action: int
    success: bool
    fur: int
    obj: int
    value: int
    x: int
    y: int


def failed(action: int, x: int, y: int) -> Outcome:
    """The outcome of an action that could not apply."""
    return Outcome(action, False, -1, -1, -1, x, y)
