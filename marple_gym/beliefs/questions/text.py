"""The text condition: a question as a person reads it, in MMToM-QA's layout.

::

    What's inside the apartment: <the house as the episode began, room by room> \\n
    Actions taken by Alice: <what the agents did up to the cut> \\n
    Question: <premise>, which one of the following statements is more likely to be true?
    (a) ... (b) ... Please respond with either a or b.

The house is described from the first state (every container's contents, as MMToM-QA's text tells what
the video cannot show); the narration tells, in order, which room each agent walks to, which piece of
furniture it goes to and what it does there (opens, closes, takes or puts down an object, waits), and at the
cut where it is heading. Turns and single steps are not told. Furniture of one type in one room is numbered
from the left ("the second cabinet in the kitchen").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from marple_gym.beliefs.episodes import SearchEpisode
from marple_gym.beliefs.locations import locations_of
from marple_gym.beliefs.questions.question import BeliefQuestion, Statement
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS, DOOR, HOLDS_INSIDE
from marple_gym.world.house import DIR_VEC, House
from marple_gym.world.state import WorldState

PEOPLE: tuple[tuple[str, str], ...] = (
    ("Alice", "she"),
    ("Bob", "he"),
    ("Carol", "she"),
    ("David", "he"),
    ("Emma", "she"),
    ("Frank", "he"),
    ("Grace", "she"),
    ("Henry", "he"),
)
"""The names agents are given in the text, with their pronouns."""
PRONOUN = dict(PEOPLE)
_ROOM_WORDS = {"LivingRoom": "living room"}
_FURNITURE_WORDS = {"electric_refrigerator": "fridge"}
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_WAIT = 3
"""Idling this many steps in a row is told as waiting."""


MASS_NOUNS = frozenset(
    {
        "beef",
        "bread",
        "chicken",
        "clothes",
        "dogfood",
        "jewelry",
        "juice",
        "lettuce",
        "oatmeal",
        "plywood",
        "pop",
        "salad",
        "soap",
        "soup",
        "sugar",
        "vegetable_oil",
        "water",
    }
)
"""Objects told with "some" ("some water"), never counted."""
_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def object_words(name: str) -> str:
    return {"dogfood": "dog food"}.get(name, name.replace("_", " "))


def with_article(words: str) -> str:
    return ("an " if words[0] in "aeiou" else "a ") + words


def plural(words: str) -> str:
    if words.endswith("knife"):
        return words[:-2] + "ves"
    if words.endswith(("s", "sh", "ch", "x", "o")):
        return words + "es"
    if words.endswith("y") and words[-2] not in "aeiou":
        return words[:-1] + "ies"
    return words + "s"


def object_phrase(name: str, count: int = 1) -> str:
    """ "an apple", "two apples", "some water"."""
    words = object_words(name)
    if name in MASS_NOUNS:
        return "some " + words
    if count == 1:
        return with_article(words)
    return f"{_NUMBERS[count] if count < len(_NUMBERS) else count} {plural(words)}"


def _objects(names: list[str]) -> tuple[str, int]:
    """The objects of a list, each type once with its count, and how many things that makes (for is/are)."""
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    phrases = [object_phrase(n, c) for n, c in counts.items()]
    return _join(phrases), len(names)


def room_words(house: House, room: int) -> str:
    """ "the kitchen", or "the second bedroom" where the house has several rooms of one type."""
    kind = house.rooms[room].type
    same = [r for r, spec in enumerate(house.rooms) if spec.type == kind]
    words = _ROOM_WORDS.get(kind, kind.lower())
    return f"the {_ORDINALS[same.index(room)]} {words}" if len(same) > 1 else f"the {words}"


def furniture_words(house: House, piece: int, room: bool = True) -> str:
    """ "the cabinet in the kitchen", numbered from the left where the room has several of the type."""
    kind = house.fur_type_list[piece]
    home = int(house.fur_room[piece])
    same = sorted(
        (f for f, t in enumerate(house.fur_type_list) if t == kind and int(house.fur_room[f]) == home),
        key=lambda f: tuple(house.fur_pos[f].tolist()),
    )
    name = ASSETS.furniture_names[kind]
    words = _FURNITURE_WORDS.get(name, name.replace("_", " "))
    if len(same) > 1:
        words = f"{_ORDINALS[same.index(piece)]} {words}"
    return f"the {words} in {room_words(house, home)}" if room else f"the {words}"


def _join(items: list[str]) -> str:
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _preposition(house: House, piece: int) -> str:
    return "inside" if ASSETS.fur_holds[house.fur_type_list[piece]] == HOLDS_INSIDE else "on"


# ---- the house -------------------------------------------------------------------------------------------------


def describe_house(house: House, state: WorldState) -> str:
    """Every room with its furniture and what lies on and in each piece, in ``state``."""
    locations = locations_of(house)
    held: dict[int, list[str]] = {}
    floor: dict[int, list[str]] = {}
    for obj, code in enumerate(house.obj_type_list):
        x, y = state.obj_pos[obj].tolist()
        if x < 0:
            continue
        words = ASSETS.object_names[code]
        piece = locations.piece_at(x, y)
        if piece >= 0:
            held.setdefault(piece, []).append(words)
        elif house.room_of_cell(x, y) >= 0:
            floor.setdefault(house.room_of_cell(x, y), []).append(words)
    rooms = [with_article(room_words(house, r).removeprefix("the ")) for r in range(len(house.rooms))]
    parts = [f"The apartment has {len(rooms)} rooms: {_join(rooms)}."]
    for r in range(len(house.rooms)):
        pieces = [f for f in range(house.num_furniture) if int(house.fur_room[f]) == r and house.fur_type[f] != DOOR]
        where = room_words(house, r)
        if not pieces:
            parts.append(f"There is no furniture in {where}.")
            continue
        names = [with_article(furniture_words(house, f, room=False).removeprefix("the ")) for f in pieces]
        sentence = [f"In {where} there {'is' if len(names) == 1 else 'are'} {_join(names)}."]
        for f in pieces:
            if not locations.all >> f & 1:
                continue
            name = furniture_words(house, f, room=False)
            things = held.get(f, [])
            if things:
                listed, n = _objects(things)
                sentence.append(
                    f"{_preposition(house, f).capitalize()} {name} there {'is' if n == 1 else 'are'} {listed}."
                )
            else:
                empty = "is empty" if _preposition(house, f) == "inside" else "has nothing on it"
                sentence.append(f"{name[0].upper() + name[1:]} {empty}.")
        if r in floor:
            listed, n = _objects(floor[r])
            sentence.append(f"On the floor there {'is' if n == 1 else 'are'} {listed}.")
        parts.append(" ".join(sentence))
    return "\n".join(parts)


# ---- what the agents did ---------------------------------------------------------------------------------------


@dataclass
class _Teller:
    """One agent's story so far: its room, the piece it last went to, how long it has idled, and its walk since
    it last stopped (the rooms it entered and the pieces it passed, in order, told when it stops)."""

    name: str
    room: int
    tells_passing: bool
    piece: int = -1
    idle: int = 0
    walk: list[tuple[str, int]] = field(default_factory=list)


def narrate(episode: SearchEpisode, end_time: int, names: tuple[str, ...]) -> str:
    """What the agents did before joint step ``end_time``, in order, and, as MMToM-QA's text tells the action
    in progress, the piece of furniture the searcher is walking to at the cut."""
    trace = episode.trace()
    house = trace.house
    start = trace.states[0]
    me = episode.searcher
    tellers = [_Teller(names[i], _room(house, start, i), i == me) for i in range(house.num_agents)]
    sentences = [f"{names[me]} is in {room_words(house, tellers[me].room)}."]
    sentences += [f"{t.name} is in {room_words(house, t.room)}." for i, t in enumerate(tellers) if i != me]
    current: _Teller | None = None
    clauses: list[str] = []
    subject = [tellers[me] if len(tellers) == 1 else None]  # who the last sentence was about

    def say(teller: _Teller, said: list[str]) -> None:
        nonlocal current
        if not said:
            return
        if current is not teller:
            flush()
            current = teller
        clauses.extend(said)

    def flush() -> None:
        if current is not None and clauses:
            who = PRONOUN.get(current.name, "they").capitalize() if subject[0] is current else current.name
            sentences.append(f"{who} {_join(clauses)}.")
            subject[0] = current
        clauses.clear()

    for t in range(min(end_time, len(trace.outcomes))):
        after = trace.states[t + 1]
        for i, outcome in enumerate(trace.outcomes[t]):
            say(tellers[i], _tell(house, after, i, tellers[i], outcome))
    for i, teller in enumerate(tellers):
        if i != me:
            say(teller, _stop(house, teller, -1))
    say(tellers[me], _heading(house, trace, end_time, tellers[me]))
    flush()
    return " ".join(sentences)


def _room(house: House, state: WorldState, agent: int) -> int:
    x, y = state.agent_pos[agent].tolist()
    return house.room_of_cell(x, y)


def _tell(house: House, state: WorldState, agent: int, teller: _Teller, outcome) -> list[str]:
    """The clauses one action adds to an agent's story (a step adds none: its walk is told when it stops)."""
    room = _room(house, state, agent)
    if room >= 0 and room != teller.room:
        teller.room, teller.piece = room, -1
        teller.walk.append(("room", room))
    action = outcome.action
    if action == Action.forward and outcome.success and teller.tells_passing:
        for f in _beside(house, state, agent):
            if f != teller.piece and ("pass", f) not in teller.walk:
                teller.walk.append(("pass", f))
    if action == Action.idle:
        teller.idle += 1
        return _stop(house, teller, outcome.fur) + ["waits"] if teller.idle == _WAIT else []
    teller.idle = 0
    if not outcome.success or outcome.fur < 0 or house.fur_type_list[outcome.fur] == DOOR:
        return []
    thing = "" if outcome.obj < 0 else object_phrase(ASSETS.object_names[house.obj_type_list[outcome.obj]])
    what = {
        Action.open: "opens it",
        Action.close: "closes it",
        Action.pickup: f"takes {thing} from it",
        Action.drop: f"puts {thing} {_preposition(house, outcome.fur)} it",
    }.get(action)
    return _stop(house, teller, outcome.fur) + [what] if what else []


def _beside(house: House, state: WorldState, agent: int) -> list[int]:
    """The pieces holding objects next to the agent's cell."""
    x, y = state.agent_pos[agent].tolist()
    locations = locations_of(house)
    return [f for dx, dy in DIR_VEC if (f := locations.piece_at(x + dx, y + dy)) >= 0]


def _walked(house: House, teller: _Teller, piece: int) -> list[str]:
    """The agent's walk since it last stopped: the rooms it entered and the pieces it passed (not ``piece``)."""
    said = [
        f"walks to {room_words(house, n)}" if kind == "room" else f"passes {furniture_words(house, n, room=False)}"
        for kind, n in teller.walk
        if kind == "room" or n != piece
    ]
    teller.walk.clear()
    return said


def _stop(house: House, teller: _Teller, piece: int) -> list[str]:
    """The walk told up to a stop at ``piece`` (-1: none), and going to the piece if it is a new one."""
    said = _walked(house, teller, piece)
    if piece >= 0 and piece != teller.piece:
        teller.piece = piece
        said.append(f"goes to {furniture_words(house, piece, room=False)}")
    return said


def _heading(house: House, trace, end_time: int, teller: _Teller) -> list[str]:
    """The searcher's walk at the cut, and the piece it is walking to: the piece of its next interaction (the
    action in progress, as MMToM-QA's text tells it), unless it stands at the piece it last acted on."""
    me = trace.episode.searcher
    destination = next(
        (
            s[me].fur
            for s in trace.outcomes[end_time:]
            if s[me].success and s[me].action in _STOPS and s[me].fur >= 0 and house.fur_type_list[s[me].fur] != DOOR
        ),
        -1,
    )
    said = _walked(house, teller, destination)
    if destination < 0 or destination == teller.piece:
        return said
    state = trace.states[end_time]
    x, y = state.agent_pos[me].tolist()
    dx, dy = DIR_VEC[int(state.agent_dir[me])]
    here = house.fur_at[y + dy][x + dx] == destination
    elsewhere = int(house.fur_room[destination]) != _room(house, state, me)
    where = furniture_words(house, destination, room=elsewhere)
    return said + [f"goes to {where}" if here else f"walks towards {where}"]


_STOPS = frozenset({Action.open, Action.close, Action.pickup, Action.drop})


# ---- the question ----------------------------------------------------------------------------------------------


def statement_words(house: House, statement: Statement, name: str) -> str:
    """One option, as MMToM-QA words it."""
    if statement.is_goal:
        return f"{name} has been trying to get {object_phrase(statement.goal)}."
    thing = object_words(statement.obj)
    where = f"{_preposition(house, statement.piece)} {furniture_words(house, statement.piece)}"
    if statement.inside:
        return f"{name} thinks that there is {object_phrase(statement.obj)} {where}."
    return f"{name} thinks that there isn't any {thing} {where}."


def premise_words(house: House, question: BeliefQuestion, name: str) -> str:
    given = question.given
    if given is None:
        return "Which one of the following statements is more likely to be true?"
    if given.is_goal:
        supposed = f"If {name} has been trying to get {object_phrase(given.goal)}"
    else:
        where = f"{_preposition(house, given.piece)} {furniture_words(house, given.piece)}"
        thing = object_phrase(given.obj)
        verb = "is" if given.inside else "isn't"
        supposed = f"If {name} thinks there {verb} {thing} {where}"
    return f"{supposed}, which one of the following statements is more likely to be true?"


def question_words(question: BeliefQuestion) -> str:
    """The question and its two options, as MMToM-QA asks them."""
    house = question.episode.trace().house
    name = question.names[question.episode.searcher]
    a, b = (statement_words(house, s, name) for s in question.options)
    return f"{premise_words(house, question, name)} (a) {a} (b) {b} Please respond with either a or b."


def question_text(question: BeliefQuestion) -> str:
    """The whole text input of a question (see the module docs)."""
    trace = question.episode.trace()
    names = question.names[: trace.house.num_agents]
    who = _join(list(names))
    return (
        f"What's inside the apartment: {describe_house(trace.house, trace.states[0])} \n"
        f"Actions taken by {who}: {narrate(question.episode, question.end_time, names)} \n"
        f"Question: {question_words(question)}"
    )
