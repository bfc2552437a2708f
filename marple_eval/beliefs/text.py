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

from dataclasses import dataclass

from marple_eval.beliefs.questions import BeliefQuestion, Statement
from marple_gym.beliefs.episodes import SearchEpisode
from marple_gym.beliefs.locations import locations_of
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
    """One agent's story so far: its room, the piece it last went to, and whether it was waiting."""

    name: str
    room: int
    piece: int = -1
    idle: int = 0
    clauses: list[str] | None = None


def narrate(episode: SearchEpisode, end_time: int, names: tuple[str, ...]) -> str:
    """What the agents did before joint step ``end_time``, in order, and where the searcher heads at the cut."""
    trace = episode.trace()
    house = trace.house
    start = trace.states[0]
    tellers = [_Teller(names[i], _room(house, start, i)) for i in range(house.num_agents)]
    sentences = [f"{names[episode.searcher]} is in {room_words(house, tellers[episode.searcher].room)}."]
    for i, teller in enumerate(tellers):
        if i != episode.searcher:
            sentences.append(f"{teller.name} is in {room_words(house, teller.room)}.")
    current: _Teller | None = None
    clauses: list[str] = []
    subject = [tellers[episode.searcher] if len(tellers) == 1 else None]  # who the last sentence was about

    def flush() -> None:
        if current is not None and clauses:
            who = PRONOUN.get(current.name, "they").capitalize() if subject[0] is current else current.name
            sentences.append(f"{who} {_join(clauses)}.")
            subject[0] = current
        clauses.clear()

    for t in range(min(end_time, len(trace.outcomes))):
        after = trace.states[t + 1]
        for i, outcome in enumerate(trace.outcomes[t]):
            said = _tell(house, after, i, tellers[i], outcome)
            if said:
                if current is not tellers[i]:
                    flush()
                    current = tellers[i]
                clauses.extend(said)
    me = tellers[episode.searcher]
    heading = _heading(house, trace.states[end_time], episode.searcher, me)
    if heading:
        if current is not me:
            flush()
            current = me
        clauses.append(heading)
    flush()
    return " ".join(sentences)


def _room(house: House, state: WorldState, agent: int) -> int:
    x, y = state.agent_pos[agent].tolist()
    return house.room_of_cell(x, y)


def _tell(house: House, state: WorldState, agent: int, teller: _Teller, outcome) -> list[str]:
    """The clauses one action adds to an agent's story."""
    said: list[str] = []
    room = _room(house, state, agent)
    if room >= 0 and room != teller.room:
        teller.room, teller.piece = room, -1
        said.append(f"walks to {room_words(house, room)}")
    action = outcome.action
    if action == Action.idle:
        teller.idle += 1
        if teller.idle == _WAIT:
            said += _go_to(house, teller, outcome.fur) + ["waits"]
        return said
    teller.idle = 0
    if not outcome.success or outcome.fur < 0 or house.fur_type_list[outcome.fur] == DOOR:
        return said
    what = ""
    if action == Action.open:
        what = "opens it"
    elif action == Action.close:
        what = "closes it"
    elif action == Action.pickup:
        what = f"takes {object_phrase(ASSETS.object_names[house.obj_type_list[outcome.obj]])} from it"
    elif action == Action.drop:
        thing = object_phrase(ASSETS.object_names[house.obj_type_list[outcome.obj]])
        what = f"puts {thing} {_preposition(house, outcome.fur)} it"
    if what:
        said += _go_to(house, teller, outcome.fur) + [what]
    return said


def _go_to(house: House, teller: _Teller, piece: int) -> list[str]:
    if piece < 0 or piece == teller.piece:
        return []
    teller.piece = piece
    return [f"goes to {furniture_words(house, piece, room=False)}"]


def _heading(house: House, state: WorldState, agent: int, teller: _Teller) -> str:
    """Where the agent is heading at the cut: the piece it stands at (if it has not acted on it yet), else the
    nearest piece ahead of it in its room; nothing when it just acted or faces none."""
    x, y = state.agent_pos[agent].tolist()
    dx, dy = DIR_VEC[int(state.agent_dir[agent])]
    faced = house.fur_at[y + dy][x + dx]
    if faced >= 0 and house.fur_type_list[faced] != DOOR:
        return "" if faced == teller.piece else f"goes to {furniture_words(house, faced, room=False)}"
    for k in range(1, max(house.width, house.height)):
        cx, cy = x + k * dx, y + k * dy
        if not (0 <= cx < house.width and 0 <= cy < house.height) or house.wall[cy, cx]:
            return ""
        ahead = house.fur_at[cy][cx]
        if ahead < 0:
            continue
        if house.fur_type_list[ahead] != DOOR:
            return f"walks towards {furniture_words(house, ahead, room=False)}"
        beyond = house.room_of_cell(cx + dx, cy + dy)
        return f"walks towards the door to {room_words(house, beyond)}" if beyond >= 0 else ""
    return ""


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
