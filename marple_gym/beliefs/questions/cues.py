"""What a question's words say on their surface: the cues a reader without a theory of mind could answer from.

:func:`read_text` parses the text input of a question (MMToM-QA's layout, :mod:`.text`) into a
:class:`Reading`: the house as described, the narration, the premise and the two options, with what a
surface reader picks out of them: each option's polarity ("there is" / "there isn't"), its object and
container, **the last target** (the last piece of furniture the narration has anyone go to, walk towards or
act on), the verb that names it, and the object the premise names. It reads the words only, so it works on
any file in the release's format, and on texts of earlier versions of this generator.

:data:`RULES` are the shortcut rules built on these cues, each choosing an option or abstaining (None): the
shortcut panel (:mod:`marple_eval.beliefs.panel`) scores them as methods, and the set writer balances every
type so that none of them beats a coin (:mod:`.balance`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from marple_gym.beliefs.questions.text import furniture_name, object_name, room_type
from marple_gym.world.assets import ASSETS

ROOM_HEAD = re.compile(r"^In (the [a-z ]+?) there (?:is|are) ")
"""A room's line in the house description."""
_HOLDING = re.compile(r"(?:Inside|On) (the [a-z ]+?) there (?:is|are) ([^.]+)\.")
_TOLD = re.compile(
    r"(?P<verb>goes to|walks towards|heads for|passes|opens|closes|takes .+? from|puts .+? (?:inside|on)|walks to|is in)"
    r" (?P<what>it|the [a-z ]+?)(?= in the |,|\.| and |$)(?: in (?P<room>the [a-z ]+?)(?=,|\.| and |$))?"
)
_TARGET_VERBS = ("goes to", "walks towards", "heads for", "opens", "closes", "takes", "puts")
_BELIEF = re.compile(r"thinks that there (is|isn't) (?:an? |any |some )?(.+?) (?:inside|on) (the .+?)\.$")
_GOAL = re.compile(r"has been trying to get (?:an? |some |any |the )?(.+?)\.$")
_PREMISE_GOAL = re.compile(r"^If \S+ has been trying to get (?:an? |some |the )?(.+?),")
_PREMISE_BELIEF = re.compile(r"^If \S+ thinks there (?:is|isn't) (?:an? |any |some )?(.+?) (?:inside|on) ")
_WORDS = re.compile(r"[a-z']+")
_COUNTED = re.compile(r"^(?:an?|some|one|two|three|four|five|six|seven|eight|nine|ten|\d+) ")


@dataclass(frozen=True)
class Option:
    """One option as its words say it."""

    text: str
    object: str
    """The object it names ("apple", "dog food")."""
    positive: bool | None = None
    """A belief statement: True for "thinks that there is", False for "there isn't"; None for a goal."""
    piece: str | None = None
    """A belief statement's container, with its room ("the fridge in the kitchen")."""


@dataclass(frozen=True)
class Reading:
    """A question's text as a surface reader sees it (see the module docs)."""

    house: dict[str, tuple[str, ...]]
    """Each piece of furniture (with its room) -> the objects the description puts on or in it."""
    pieces: tuple[tuple[str, str], ...]
    """Every piece of furniture the description lists: (furniture type, room type)."""
    narration: str
    premise: str
    options: tuple[Option, Option]
    target: str | None
    """The last target, with its room, or None if the narration names none."""
    verb: str
    """The verb that names the last target ("goes to", "opens", "closes", "takes", "puts", "heads for", "walks towards"; ""
    for none)."""
    premise_object: str | None
    """The object the premise supposes a goal or a belief about (None without a premise)."""

    @property
    def is_belief(self) -> bool:
        return self.options[0].positive is not None


class CueError(ValueError):
    """A text that is not a question in MMToM-QA's layout."""


def read_text(text: str) -> Reading:
    """The :class:`Reading` of a question's whole text input (see the module docs)."""
    try:
        head, rest = text.split("\nActions taken by ", 1)
        narration, question = rest.split("\nQuestion: ", 1)
    except ValueError:
        raise CueError("expected 'What's inside ...', 'Actions taken by ...' and 'Question: ...' parts") from None
    narration = narration.split(": ", 1)[1].strip() if ": " in narration else narration.strip()
    found = re.match(r"(.*\?) \(a\) (.*?) \(b\) (.*?)(?: Please respond with either a or b\.)?\s*$", question.strip())
    if found is None:
        raise CueError("expected a question followed by options (a) and (b)")
    premise, a, b = found.groups()
    target, verb = last_target(narration)
    return Reading(house_contents(head), house_pieces(head), narration, premise, (_option(a), _option(b)), target,
                   verb, _premise_object(premise))  # fmt: skip


@lru_cache(maxsize=64)
def house_contents(description: str) -> dict[str, tuple[str, ...]]:
    """Each piece of furniture, named with its room, -> the objects a house description puts on or in it (the
    questions of one episode share their description: it is read once)."""
    out: dict[str, tuple[str, ...]] = {}
    for line in description.replace("What's inside the apartment: ", "").splitlines():
        room = ROOM_HEAD.match(line.strip())
        if room is None:
            continue
        for piece, listed in _HOLDING.findall(line):
            things = re.split(r", | and ", listed)
            out[f"{piece} in {room.group(1)}"] = tuple(_COUNTED.sub("", t).strip() for t in things)
    return out


@lru_cache(maxsize=64)
def house_pieces(description: str) -> tuple[tuple[str, str], ...]:
    """(furniture type, room type) of every piece of furniture a house description lists, room by room."""
    out = []
    for line in description.replace("What's inside the apartment: ", "").splitlines():
        room = ROOM_HEAD.match(line.strip())
        if room is None:
            continue
        listed = line.strip()[room.end() :].split(".", 1)[0]
        for words in re.split(r", | and ", listed):
            out.append((furniture_name(_COUNTED.sub("", words.strip())), room_type(room.group(1))))
    return tuple(out)


def places(reading: Reading, thing: str) -> int:
    """How many of the described pieces could hold an object ``thing`` (its words), by what houses are like:
    a piece that accepts its kind, in a room where it is found (what the generator itself follows)."""
    name = object_name(thing)
    if name not in ASSETS.object_code:
        return 0
    kind = ASSETS.object_type(name)
    count = 0
    for furniture, room in reading.pieces:
        if furniture in ASSETS.furniture_code:
            accepts = ASSETS.furniture_type(furniture).accepts
            count += kind.category in accepts and room in kind.rooms
    return count


@lru_cache(maxsize=1024)
def last_target(narration: str) -> tuple[str | None, str]:
    """(the last target with its room, its verb) of a narration (see the module docs); (None, "") if none.

    A piece told without its room is in the room its agent was last told to be in or walk to; "it" is the
    piece the sentence named last."""
    rooms: dict[str, str] = {}  # who -> the room it was last told to be in
    target, verb = None, ""
    who = ""
    for sentence in re.split(r"(?<=\.) ", narration):
        subject = sentence.split(" ", 1)[0]
        if subject not in ("He", "She", "They"):
            who = subject
        named = None
        for m in _TOLD.finditer(sentence):
            kind, what, room = m.group("verb"), m.group("what"), m.group("room")
            if kind in ("walks to", "is in"):
                if what != "it":
                    rooms[who] = what
                named = None
                continue
            piece = named if what == "it" else f"{what} in {room or rooms.get(who, 'the house')}"
            named = piece
            if piece is not None and kind.split(" ")[0] in {v.split(" ")[0] for v in _TARGET_VERBS}:
                target, verb = piece, next(v for v in _TARGET_VERBS if kind.startswith(v.split(" ")[0]))
    return target, verb


def _option(text: str) -> Option:
    text = text.strip()
    belief = _BELIEF.search(text)
    if belief is not None:
        polarity, thing, piece = belief.groups()
        return Option(text, thing, polarity == "is", piece)
    goal = _GOAL.search(text)
    if goal is None:
        raise CueError(f"an option that is neither a belief nor a goal statement: {text!r}")
    return Option(text, goal.group(1))


def _premise_object(premise: str) -> str | None:
    for pattern in (_PREMISE_GOAL, _PREMISE_BELIEF):
        found = pattern.match(premise)
        if found is not None:
            return found.group(1)
    return None


def words(text: str) -> set[str]:
    """The lower-case words of a text."""
    return set(_WORDS.findall(text.lower()))


# ---- the rules ----------------------------------------------------------------------------------------------

Rule = Callable[[Reading], "int | None"]


def _one(flags: list[bool]) -> int | None:
    """The index of the one option flagged, None unless exactly one is."""
    return flags.index(True) if flags.count(True) == 1 else None


def always_a(r: Reading) -> int | None:
    """Option (a), always."""
    return 0


def positive(r: Reading) -> int | None:
    """The belief statement "thinks that there is"; abstains on goal questions."""
    return _one([o.positive is True for o in r.options]) if r.is_belief else None


def last_target_rule(r: Reading) -> int | None:
    """The option naming the last target: for a belief, "there is" if its container is the last target and
    "there isn't" if not; for a goal, the object the description puts in the last target."""
    if r.target is None:
        return None
    if r.is_belief:
        here = r.options[0].piece == r.target
        return _one([o.positive == here for o in r.options])
    held = r.house.get(r.target, ())
    return _one([o.object in held for o in r.options])


def wider(r: Reading) -> int | None:
    """For a goal, the object that could lie in more of the house's places (knowing what goes where, and nothing
    of anyone's actions); abstains on belief questions (one object in both options)."""
    if r.is_belief:
        return None
    a, b = (places(r, o.object) for o in r.options)
    return None if a == b else int(b > a)


def premise_rule(r: Reading) -> int | None:
    """The option naming the object the premise names (its opposite: against the premise)."""
    if r.premise_object is None:
        return None
    return _one([o.object == r.premise_object for o in r.options])


def longer(r: Reading) -> int | None:
    """The longer option."""
    a, b = (len(o.text) for o in r.options)
    return None if a == b else int(b > a)


def overlap(r: Reading) -> int | None:
    """The option sharing more words with the narration."""
    told = words(r.narration)
    a, b = (len(words(o.text) & told) for o in r.options)
    return None if a == b else int(b > a)


RULES: dict[str, Rule] = {
    "always (a)": always_a,
    "always there is": positive,
    "last target": last_target_rule,
    "the premise's object": premise_rule,
    "the object that could be in more places": wider,
    "longer option": longer,
    "more words from the narration": overlap,
}
"""The panel's rules that need no training, by name (each chooses 0 for (a), 1 for (b), or None)."""
