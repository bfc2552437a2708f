"""The text condition: a question as a person reads it, in MMToM-QA's layout.

::

    What's inside the apartment: <the house as the episode began, room by room> \\n
    Actions taken by Alice: <what the agents did up to the cut> \\n
    Question: <premise>, which one of the following statements is more likely to be true?
    (a) ... (b) ... Please respond with either a or b.

The house is described from the first state (every container's contents, as MMToM-QA's text tells what
the video cannot show); the narration tells, in order, which room each agent walks to, which piece of
furniture it goes to and what it does there (opens, closes, takes or puts down an object, waits), and at the
cut where the searcher stands: nothing after the cut is told, not even where it is heading. Turns and single
steps are not told. Furniture is named with its room, and pieces of one type in one room are numbered from
the left ("the second cabinet in the kitchen").
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple
from weakref import WeakKeyDictionary

from marple_gym.beliefs.episodes import EpisodeTrace, SearchEpisode
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


_OBJECT_WORDS = {"dogfood": "dog food"}


def object_words(name: str) -> str:
    """ "pot plant" for ``pot_plant``."""
    return _OBJECT_WORDS.get(name, name.replace("_", " "))


def object_name(words: str) -> str:
    """The object type :func:`object_words` tells as ``words`` (the words themselves where none does)."""
    named = {v: k for k, v in _OBJECT_WORDS.items()}
    return named.get(words, words.replace(" ", "_"))


def furniture_name(words: str) -> str:
    """The furniture type a description names ``words`` ("fridge", "second cabinet"), its number dropped."""
    if words.split(" ", 1)[0] in _ORDINALS:
        words = words.split(" ", 1)[1]
    named = {v: k for k, v in _FURNITURE_WORDS.items()}
    return named.get(words, words.replace(" ", "_"))


def room_type(words: str) -> str:
    """The room type of ``words`` ("the living room", "the second bedroom")."""
    words = words.removeprefix("the ")
    if words.split(" ", 1)[0] in _ORDINALS:
        words = words.split(" ", 1)[1]
    named = {v: k for k, v in _ROOM_WORDS.items()}
    return named.get(words, words.capitalize())


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


class Clause(NamedTuple):
    """One thing an agent is told to do: ``kind`` is ``"room"`` (walks to room ``place``), ``"pass"`` (passes
    piece ``place``), ``"go"`` (goes to piece ``place``), ``"act"`` (does ``verb`` to piece ``place``: ``verb``
    holds ``{}`` where the piece is named), ``"head"`` (at the cut, walks straight at piece or door ``place``)
    or ``"wait"``."""

    kind: str
    place: int = -1
    verb: str = ""


@dataclass
class _Teller:
    """One agent's story so far: its room, the piece it last went to, how long it has idled, and its walk since
    it last stopped (the rooms it entered and the pieces it passed, in order, told when it stops)."""

    agent: int
    room: int
    tells_passing: bool
    piece: int = -1
    idle: int = 0
    walk: list[Clause] = field(default_factory=list)
    moved: bool = False
    """Has it stepped since it last stopped at a piece?"""


def story(episode: SearchEpisode, end_time: int) -> list[tuple[int, list[Clause]]]:
    """What the agents did before joint step ``end_time``, as (agent, clauses) runs in the order they are told:
    each agent's walk is told when it stops at a piece of furniture (or at the cut), so the runs of two agents
    moving at once do not interleave step by step. At the cut, the searcher's walk so far, and the piece it has
    walked up to and faces, if any (having stepped since it last stopped): where it stands is what the last
    frame shows; where it is going is not told."""
    return _chronicle(episode.trace()).story(end_time)


class _Chronicle:
    """An episode told once, step by step: every clause told, and after each step how many there were and
    where each agent's story stood, so that the story up to any cut is a prefix and a few closing clauses."""

    def __init__(self, trace: EpisodeTrace) -> None:
        self.trace = trace
        house, me = trace.house, trace.episode.searcher
        tellers = [_Teller(i, _room(house, trace.states[0], i), i == me) for i in range(house.num_agents)]
        self.told: list[tuple[int, Clause]] = []
        self.marks = [(0, _snapshot(tellers))]
        for t, outcomes in enumerate(trace.outcomes):
            for i, outcome in enumerate(outcomes):
                self.told += [(i, c) for c in _tell(house, trace.states[t + 1], i, tellers[i], outcome)]
            self.marks.append((len(self.told), _snapshot(tellers)))
        self.house_text = describe_house(house, trace.states[0])
        self.told_as: dict[tuple[int, tuple[str, ...]], str] = {}
        """Narrations already worked out, by (cut, names)."""

    def story(self, end_time: int) -> list[tuple[int, list[Clause]]]:
        end_time = max(0, min(end_time, len(self.marks) - 1))
        count, snapshot = self.marks[end_time]
        tellers = _snapshot(snapshot)
        me = self.trace.episode.searcher
        told = self.told[:count]
        for i, teller in enumerate(tellers):
            if i != me:
                told += [(i, c) for c in _stop(teller, -1)]
        faced = _faced(self.trace.house, self.trace.states[end_time], me) if tellers[me].moved else -1
        told += [(me, c) for c in _stop(tellers[me], faced)]
        last = self.trace.outcomes[end_time - 1][me] if end_time > 0 else None
        if faced < 0 and last is not None and last.action == Action.forward and last.success:
            ahead = _ahead(self.trace.house, self.trace.states[end_time], me)
            told += [(me, Clause("head", ahead))] if ahead >= 0 else []
        runs: list[tuple[int, list[Clause]]] = []
        for agent, clause in told:
            if runs and runs[-1][0] == agent:
                runs[-1][1].append(clause)
            else:
                runs.append((agent, [clause]))
        return runs


def _snapshot(tellers: list[_Teller]) -> list[_Teller]:
    return [replace(t, walk=list(t.walk)) for t in tellers]


_CHRONICLES: WeakKeyDictionary[EpisodeTrace, _Chronicle] = WeakKeyDictionary()


def _chronicle(trace: EpisodeTrace) -> _Chronicle:
    """The chronicle of a replayed episode, made once."""
    found = _CHRONICLES.get(trace)
    if found is None:
        found = _CHRONICLES[trace] = _Chronicle(trace)
    return found


def last_target(runs: list[tuple[int, list[Clause]]]) -> tuple[int, int, str]:
    """(agent, piece, kind) of the last clause of a :func:`story` that names a piece an agent went to, acted on or
    (at the cut) heads for (``"go"``, ``"act"`` with its verb, or ``"head"``); (-1, -1, "") if there is none."""
    for agent, clauses in reversed(runs):
        for clause in reversed(clauses):
            if clause.kind in ("go", "act", "head"):
                return agent, clause.place, clause.verb or clause.kind
    return -1, -1, ""


def narrate(episode: SearchEpisode, end_time: int, names: tuple[str, ...]) -> str:
    """The story before joint step ``end_time`` (:func:`story`) in words: who is where at the start, then each
    run of one agent's clauses as a sentence. Pieces are named with their room; "it" stands only for the piece
    the clause before named, in the same sentence, so a reader always knows whose furniture and which."""
    chronicle = _chronicle(episode.trace())
    key = (end_time, tuple(names))
    if key not in chronicle.told_as:  # the questions of a moment share their narration: worked out once
        chronicle.told_as[key] = _narrate(episode, end_time, names)
    return chronicle.told_as[key]


def _narrate(episode: SearchEpisode, end_time: int, names: tuple[str, ...]) -> str:
    trace = episode.trace()
    house = trace.house
    me = episode.searcher
    first = trace.states[0]
    order = [me] + [i for i in range(house.num_agents) if i != me]
    sentences = [f"{names[i]} is in {room_words(house, _room(house, first, i))}." for i in order]
    previous = me if house.num_agents == 1 else -1  # who the last sentence was about
    rooms = [_room(house, first, i) for i in range(house.num_agents)]
    for agent, clauses in story(episode, end_time):
        who = PRONOUN.get(names[agent], "they").capitalize() if agent == previous else names[agent]
        sentences.append(f"{who} {_join(_render(house, clauses, rooms[agent]))}.")
        previous = agent
        rooms[agent] = next((c.place for c in reversed(clauses) if c.kind == "room"), rooms[agent])
    return " ".join(sentences)


def _render(house: House, clauses: list[Clause], room: int = -1) -> list[str]:
    """The clauses of one sentence in words ("it" for the piece the clause before named), its agent in ``room``
    as it begins."""
    last, last_room = -1, room
    out = []
    for clause in clauses:
        if clause.kind == "wait":
            out.append("waits")
            continue
        if clause.kind == "room":
            out.append(f"walks to {room_words(house, clause.place)}")
            last, last_room = -1, clause.place
            continue
        if clause.kind == "head" and house.fur_type_list[clause.place] == DOOR:
            out.append(f"heads for {_door_words(house, clause.place, last_room)}")
            continue
        piece = "it" if clause.place == last else furniture_words(house, clause.place)
        last = clause.place
        verbs = {"pass": "passes {}", "go": "goes to {}", "head": "heads for {}"}
        out.append(verbs.get(clause.kind, clause.verb).format(piece))
    return out


def _door_words(house: House, door: int, room: int) -> str:
    """ "the door to the kitchen": named by the room on its other side from ``room``."""
    x, y = house.fur_pos[door].tolist()
    sides = [house.room_of_cell(x + dx, y + dy) for dx, dy in DIR_VEC]
    beyond = [r for r in sides if r >= 0 and r != room]
    return f"the door to {room_words(house, beyond[0])}" if beyond else "a door"


def _room(house: House, state: WorldState, agent: int) -> int:
    x, y = state.agent_pos[agent].tolist()
    return house.room_of_cell(x, y)


def _ahead(house: House, state: WorldState, agent: int) -> int:
    """The first piece of furniture (a door too) in the agent's way, straight ahead in its room; -1 if a wall
    comes first."""
    x, y = state.agent_pos[agent].tolist()
    dx, dy = DIR_VEC[int(state.agent_dir[agent])]
    while 0 <= x + dx < house.width and 0 <= y + dy < house.height:
        x, y = x + dx, y + dy
        f = house.fur_at[y][x]
        if f >= 0:
            return f if house.fur_type_list[f] == DOOR or locations_of(house).all >> f & 1 else -1
        if house.room_of_cell(x, y) < 0:
            return -1
    return -1


def _faced(house: House, state: WorldState, agent: int) -> int:
    """The piece holding objects the agent faces, -1 if none."""
    x, y = state.agent_pos[agent].tolist()
    dx, dy = DIR_VEC[int(state.agent_dir[agent])]
    return locations_of(house).piece_at(x + dx, y + dy)


def _tell(house: House, state: WorldState, agent: int, teller: _Teller, outcome) -> list[Clause]:
    """The clauses one action adds to an agent's story (a step adds none: its walk is told when it stops)."""
    room = _room(house, state, agent)
    if room >= 0 and room != teller.room:
        teller.room, teller.piece = room, -1
        teller.walk.append(Clause("room", room))
    action = outcome.action
    if action == Action.forward and outcome.success:
        teller.moved = True
    if action == Action.forward and outcome.success and teller.tells_passing:
        for f in _beside(house, state, agent):
            if f != teller.piece and Clause("pass", f) not in teller.walk:
                teller.walk.append(Clause("pass", f))
    if action == Action.idle:
        teller.idle += 1
        return _stop(teller, outcome.fur) + [Clause("wait")] if teller.idle == _WAIT else []
    teller.idle = 0
    if not outcome.success or outcome.fur < 0 or house.fur_type_list[outcome.fur] == DOOR:
        return []
    thing = "" if outcome.obj < 0 else object_phrase(ASSETS.object_names[house.obj_type_list[outcome.obj]])
    verb = {
        Action.open: "opens {}",
        Action.close: "closes {}",
        Action.pickup: f"takes {thing} from {{}}",
        Action.drop: f"puts {thing} {_preposition(house, outcome.fur)} {{}}",
    }.get(action)
    return _stop(teller, outcome.fur) + [Clause("act", outcome.fur, verb)] if verb else []


def _beside(house: House, state: WorldState, agent: int) -> list[int]:
    """The pieces holding objects next to the agent's cell."""
    x, y = state.agent_pos[agent].tolist()
    locations = locations_of(house)
    return [f for dx, dy in DIR_VEC if (f := locations.piece_at(x + dx, y + dy)) >= 0]


def _stop(teller: _Teller, piece: int) -> list[Clause]:
    """The walk told up to a stop at ``piece`` (-1: none; the pieces passed, not ``piece``), and going to the
    piece if it is a new one."""
    said = [c for c in teller.walk if c.kind == "room" or c.place != piece]
    teller.walk.clear()
    if piece >= 0:
        teller.moved = False
    if piece >= 0 and piece != teller.piece:
        teller.piece = piece
        said.append(Clause("go", piece))
    return said


# ---- the question ----------------------------------------------------------------------------------------------


def statement_words(house: House, statement: Statement, name: str) -> str:
    """One option, as MMToM-QA words it (a goal with "the": a question's objects are the house's only ones of
    their kind, and an article of their own would set two options apart by a word)."""
    if statement.is_goal:
        return f"{name} has been trying to get the {object_words(statement.goal)}."
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
        supposed = f"If {name} has been trying to get the {object_words(given.goal)}"
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
        f"What's inside the apartment: {_chronicle(trace).house_text} \n"
        f"Actions taken by {who}: {narrate(question.episode, question.end_time, names)} \n"
        f"Question: {question_words(question)}"
    )
