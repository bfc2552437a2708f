"""Language evidence: intent and testimony sentences from templates.

*Intent* states the subgoal an agent will do next ("I am going to toggle on the
light in the Kitchen."); it never names the mission. *Testimony* reports a
state change the agent caused ("The clothes in the closet in the Bedroom were
picked up."). Both are built from the action, object, furniture and room.
"""

from __future__ import annotations

from marple_gym.missions.mission import Subgoal
from marple_gym.missions.words import relation, word
from marple_gym.world.actions import Action, Outcome
from marple_gym.world.assets import ASSETS
from marple_gym.world.house import House

TEXT_CHARSET = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,'")
"""Every sentence uses only these characters (the Gymnasium text space's charset)."""
MAX_TEXT_LENGTH = 160

DONE_INTENT = "I am done."
NO_TESTIMONY = "Nothing has changed."

_PLURAL = frozenset({"clothes"})


def intent(subgoal: Subgoal | None) -> str:
    """The intent sentence for the subgoal an agent is about to do (``None``: mission done)."""
    if subgoal is None:
        return DONE_INTENT
    fur, room = word(subgoal.fur), word(subgoal.room)
    action = subgoal.action
    if action == Action.pickup:
        what = f"pick up the {word(subgoal.obj)} from the {fur}"
    elif action == Action.drop:
        what = f"put the {word(subgoal.obj)} {relation(subgoal.fur)} the {fur}"
    elif action == Action.toggle:
        what = f"toggle {'on' if subgoal.state[1] else 'off'} the {fur}"
    elif action == Action.idle:
        what = f"wait by the {fur}"
    else:  # open, close, clean
        what = f"{action.name} the {fur}"
    return f"I am going to {what} in the {room}."


def testimony(outcome: Outcome | None, house: House) -> str:
    """The testimony sentence for a state change (``None`` or no change: :data:`NO_TESTIMONY`)."""
    if (
        outcome is None
        or not outcome.success
        or outcome.action in (Action.left, Action.right, Action.forward, Action.idle)
    ):
        return NO_TESTIMONY
    room_index = house.room_of_cell(outcome.x, outcome.y)
    room = word(house.rooms[room_index].type) if room_index >= 0 else "hallway"
    fur = ASSETS.furniture_names[house.fur_type_list[outcome.fur]] if outcome.fur >= 0 else None
    place = f"the {word(fur)} in the {room}" if fur else f"the floor of the {room}"
    if outcome.obj >= 0:
        obj = ASSETS.object_names[house.obj_type_list[outcome.obj]]
        be = "were" if obj in _PLURAL else "was"
        where = f"{relation(fur)} {place}" if fur else f"on {place}"
        if outcome.action == Action.pickup:
            return f"The {word(obj)} {where} {be} picked up."
        if outcome.action == Action.drop:
            return f"The {word(obj)} {be} put {where}."
        return f"The {word(obj)} {where} {be} {_changed(outcome)}."
    if fur == "door":
        return f"A door was {_changed(outcome)}."
    return f"The {word(fur)} in the {room} was {_changed(outcome)}."


def _changed(outcome: Outcome) -> str:
    if outcome.action == Action.toggle:
        return "toggled on" if outcome.value else "toggled off"
    return {Action.open: "opened", Action.close: "closed", Action.clean: "cleaned"}[Action(outcome.action)]
