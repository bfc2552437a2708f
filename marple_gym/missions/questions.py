"""What a whodunit asks about a query state, shared by the two-agent and the N-suspect scenarios."""

from __future__ import annotations

from marple_gym.errors import MarpleError
from marple_gym.missions.mission import Subgoal
from marple_gym.missions.words import relation, word
from marple_gym.world.actions import Action


class ScenarioError(MarpleError, ValueError):
    """A scenario that cannot be posed (unknown name, query state not unique to one agent)."""


def same_state_change(a: Subgoal, b: Subgoal) -> bool:
    """Do two subgoals produce the same query state (action, target, room, value)?"""
    return (a.action, a.obj, a.fur, a.room, a.state) == (b.action, b.obj, b.fur, b.room, b.state)


def question_for(query: Subgoal) -> str:
    """A whodunit question for a query state, e.g. "Who turned on the laundry?"."""
    fur = word(query.fur)
    if query.action == Action.pickup:
        return f"Who picked up the {word(query.obj)}?"
    if query.action == Action.drop:
        return f"Who put the {word(query.obj)} {relation(query.fur)} the {fur}?"
    if query.action == Action.toggle:
        return f"Who turned {'on' if query.state[1] else 'off'} the {fur}?"
    if query.action == Action.idle:
        return f"Who waited by the {fur}?"
    return f"Who {'opened' if query.action == Action.open else query.action.name + 'ed'} the {fur}?"
