"""Two-option questions about a searching agent's belief and goal: MMToM-QA's seven types, in our world.

A question is asked at a cut of an episode (``end_time``: the actions before it are shown, with the state
they led to) and offers two statements, (a) and (b). Each type finds the moments its definition (MMToM-QA,
section 3.2) describes; a question is kept only where the exact observer
(:class:`~marple_gym.beliefs.questions.posterior.InversePlanner` with the true policy) gives the intended statement at
least :data:`DECISIVE` (0.9) of the probability. The answer is the observer's.

=====  ======================================  ===========================================================
type   moment                                  statements (intended first)
=====  ======================================  ===========================================================
1.1    about to open a container holding the   given goal X: thinks X is inside / is not inside
       goal object, not seen so far
1.2    about to open a container not holding   given goal X: thinks X is inside / is not inside
       the goal object (a false belief)
1.3    has been in a container's room without  given goal X: thinks X is not inside / is inside
       checking it, object not found yet
2.1    about to open a container holding the   wants X / wants Y
       unseen goal X, having seen Y and left it
2.2    about to open a container holding Y     if it thinks there is no Y inside: wants X / wants Y
       (not yet seen), searching for X
2.3    opened a container and closed it again  wants X (not seen yet) / wants Y (seen inside)
       without taking anything
2.4    walking, neither X nor Y seen, X lies   wants X / wants Y
       far away
=====  ======================================  ===========================================================

Every question records its episode (which rebuilds the house and replays every step), the cut and both
statements in structured form, so methods may read the text, the vision arrays and scene graphs, the frames,
or the symbols.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from marple_gym.beliefs.episodes import EpisodeTrace, SearchEpisode
from marple_gym.beliefs.locations import locations_of, object_piece, pieces_of, unique_objects
from marple_gym.beliefs.questions.posterior import InversePlanner
from marple_gym.errors import MarpleError
from marple_gym.validation import Fields, message_error
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS

QUESTION_TYPES: dict[str, str] = {
    "1.1": "true belief, short-term",
    "1.2": "false belief, short-term",
    "1.3": "belief tracking, long-term",
    "2.1": "goal inference given true belief",
    "2.2": "goal inference given false belief",
    "2.3": "goal inference given updated belief",
    "2.4": "goal inference given future actions",
}
"""MMToM-QA's seven question types, by their numbers."""
DECISIVE = 0.9
"""A question is kept only where the exact observer gives the intended statement at least this probability."""
FAR = 8
"""Type 2.4: the least number of steps (cells) between the agent and the object it wants, at the cut."""
WALKED = 4
"""Type 2.4: the least number of steps the agent has searched for before the cut (a heading to read)."""
APPROACH = 4
"""Types 2.1 and 2.2 cut up to this many steps before the container is opened, while the agent walks to it."""
OPEN, CLOSE, PICKUP, FORWARD = int(Action.open), int(Action.close), int(Action.pickup), int(Action.forward)
MOVES = frozenset({int(Action.left), int(Action.right), FORWARD})


@dataclass(frozen=True)
class Statement:
    """One option: the agent wants an object of type ``goal``, or thinks an object of type ``obj`` is (or,
    with ``inside`` False, is not) on or in furniture ``piece``."""

    goal: str | None = None
    obj: str | None = None
    piece: int = -1
    inside: bool = True

    @property
    def is_goal(self) -> bool:
        return self.goal is not None

    def to_json(self) -> dict:
        if self.is_goal:
            return {"goal": self.goal}
        return {"object": self.obj, "piece": self.piece, "inside": self.inside}

    @classmethod
    def from_json(cls, data: dict) -> Statement:
        if "goal" in data:
            return cls(goal=str(data["goal"]))
        return cls(obj=str(data["object"]), piece=int(data["piece"]), inside=bool(data["inside"]))


@dataclass(frozen=True)
class BeliefQuestion:
    """A two-option question about a searching agent at a cut of an episode (see the module docs)."""

    id: str
    type: str
    episode: SearchEpisode
    end_time: int
    """The cut: the actions before this joint step are shown, and the state they led to."""
    options: tuple[Statement, Statement]
    answer: int
    """0 for (a), 1 for (b): the option the exact observer favours."""
    posterior: float
    """The exact observer's probability of option (a)."""
    given: Statement | None = None
    """What the question supposes: the goal (belief questions) or a belief (type 2.2)."""
    start_time: int = 0
    split: str = "test"
    names: tuple[str, ...] = field(default=("Alice", "Bob"))
    """The agents' names in the text (the searcher's first)."""

    @property
    def letter(self) -> str:
        """The answer as MMToM-QA writes it, ``"a"`` or ``"b"``."""
        return "ab"[self.answer]

    @property
    def normative(self) -> tuple[float, float]:
        """The exact observer's probabilities of (a) and (b)."""
        return self.posterior, 1.0 - self.posterior

    def to_json(self, episode: int) -> dict[str, Any]:
        """The question as plain JSON, its episode named by ``episode``, its line in an episodes file."""
        return {
            "id": self.id,
            "type": self.type,
            "episode": episode,
            "start_time": self.start_time,
            "end_time": self.end_time,
            "options": [o.to_json() for o in self.options],
            "given": None if self.given is None else self.given.to_json(),
            "answer": self.answer,
            "posterior": self.posterior,
            "split": self.split,
            "names": list(self.names),
        }

    @classmethod
    def from_json(cls, data: Any, episodes: Sequence[SearchEpisode], file: str | None = None, where: str = ""):
        """A question from :meth:`to_json`'s form with ``episodes`` (the episodes file's, in order), read
        strictly: a :class:`QuestionError` names the field (and ``file``) of anything malformed."""
        f = Fields(data, where, message_error(QuestionError), file).allow(_KEYS).require(*_KEYS[:-2])
        index = f.int("episode", low=0, high=len(episodes) - 1)
        episode = episodes[index]
        end = f.int("end_time", low=1, high=episode.length)
        options = tuple(_statement(f, f"options[{i}]", o, episode) for i, o in enumerate(f.list("options")))
        if len(options) != 2:
            raise f.fail("options", f"expected two options, got {len(options)}")
        given = f.get("given")
        names = f.list("names", ["Alice", "Bob"])
        if not names or not all(isinstance(n, str) and n for n in names):
            raise f.fail("names", "expected a list of names")
        return cls(
            f.str("id"),
            f.str("type", choices=QUESTION_TYPES),
            episode,
            end,
            options,
            f.int("answer", low=0, high=1),
            f.number("posterior", low=0.0, high=1.0),
            None if given is None else _statement(f, "given", given, episode),
            f.int("start_time", low=0, high=end),
            f.str("split", "test"),
            tuple(names),
        )


class QuestionError(MarpleError, ValueError):
    """A question record that is malformed or does not fit its episode."""


_KEYS = ("id", "type", "episode", "start_time", "end_time", "options", "given", "answer", "posterior", "split", "names")


def _statement(f: Fields, key: str, data: Any, episode: SearchEpisode) -> Statement:
    s = f.child(data, f.path(key))
    if s.has("goal"):
        s.allow(("goal",))
        return Statement(goal=s.str("goal", choices=ASSETS.object_code))
    s.allow(("object", "piece", "inside")).require("object", "piece", "inside")
    return Statement(
        obj=s.str("object", choices=ASSETS.object_code),
        piece=s.int("piece", low=0, high=sum(len(r.furniture) for r in episode.house.rooms) - 1),
        inside=s.bool("inside"),
    )


@dataclass(frozen=True)
class Candidate:
    """A moment one type's definition describes, before the observer decides on it."""

    type: str
    end_time: int
    intended: Statement
    other: Statement
    given: Statement | None = None


def statement_probability(planner: InversePlanner, statement: Statement, t: int, given: Statement | None) -> float:
    """P(a belief statement | the goal ``given`` supposes, the actions before t)."""
    code = ASSETS.object_code[statement.obj]
    goal = ASSETS.object_code[given.goal]
    p = planner.belief_probability(goal, code, statement.piece, t)
    return p if statement.inside else 1.0 - p


def option_probabilities(
    planner: InversePlanner, options: Sequence[Statement], t: int, given: Statement | None
) -> tuple[float, float]:
    """The observer's probabilities of two options at cut ``t`` (they sum to one)."""
    first, second = options
    if first.is_goal:
        condition = None
        if given is not None and not given.is_goal:
            condition = (ASSETS.object_code[given.obj], given.piece, given.inside)
        p = planner.goal_probability(ASSETS.object_code[first.goal], ASSETS.object_code[second.goal], t, condition)
        return p, 1.0 - p
    a = statement_probability(planner, first, t, given)
    b = statement_probability(planner, second, t, given)
    total = a + b
    return (0.5, 0.5) if total <= 0 else (a / total, b / total)


# ---- finding the moments --------------------------------------------------------------------------------------


class Moments:
    """What the types' definitions ask of an episode, worked out once: opening and closing events, sightings."""

    def __init__(self, episode: SearchEpisode) -> None:
        self.episode = episode
        self.trace: EpisodeTrace = episode.trace()
        self.house = self.trace.house
        self.locations = locations_of(self.house)
        self.goal = episode.goal_code
        self.end = episode.found if episode.found >= 0 else episode.length
        self.steps = range(episode.search_start, self.end)
        first = self.trace.states[0]
        self.objects = unique_objects(self.house, first)  # type -> object index, as the house began
        me = episode.searcher
        self.events = [(t, self.trace.outcomes[t][me]) for t in self.steps]
        self.opens = [
            (t, o.fur) for t, o in self.events if o.action == OPEN and o.success and self.locations.gated >> o.fur & 1
        ]

    def approach(self, t: int) -> range:
        """The cuts while the searcher walks up to the container it opens at step ``t``: up to
        :data:`APPROACH` steps back, none before its previous interaction."""
        start = t
        while (
            start > max(self.steps.start + 1, t - APPROACH + 1)
            and self.episode.actions[start - 1, self.episode.searcher] in MOVES
        ):
            start -= 1
        return range(start, t + 1)

    def seen_before(self, code: int, t: int) -> bool:
        """Has the searcher seen an object of type ``code`` at any step up to ``t``?"""
        return any(s is not None for s in self.trace.sightings(code)[: t + 1])

    def contents(self, piece: int, t: int) -> list[int]:
        """The types of the single objects lying on or in ``piece`` at step ``t``."""
        state = self.trace.states[t]
        return [code for code, obj in self.objects.items() if object_piece(self.house, state, obj) == piece]

    def piece_of(self, code: int, t: int) -> int:
        obj = self.objects.get(code)
        return -1 if obj is None else object_piece(self.house, self.trace.states[t], obj)

    def name(self, code: int) -> str:
        return ASSETS.object_names[code]


def _belief_pair(goal: str, piece: int, inside_first: bool) -> tuple[Statement, Statement]:
    yes, no = Statement(obj=goal, piece=piece, inside=True), Statement(obj=goal, piece=piece, inside=False)
    return (yes, no) if inside_first else (no, yes)


def _type_1_1_and_1_2(m: Moments) -> Iterable[Candidate]:
    goal = m.name(m.goal)
    for t, piece in m.opens:
        holds = m.piece_of(m.goal, t) == piece
        if holds and m.seen_before(m.goal, t):
            continue
        intended, other = _belief_pair(goal, piece, True)
        yield Candidate("1.1" if holds else "1.2", t, intended, other, Statement(goal=goal))


def _type_1_3(m: Moments) -> Iterable[Candidate]:
    goal = m.name(m.goal)
    candidates = pieces_of(m.locations.candidates(m.goal))
    rooms_visited: set[int] = set()
    checked = 0
    for t in m.steps:
        percept = m.trace.percepts[t]
        checked |= percept.pieces
        x, y = m.trace.states[t].agent_pos[m.episode.searcher].tolist()
        rooms_visited.add(m.house.room_of_cell(x, y))
        if t == m.steps.start:
            continue
        for piece in candidates:
            if checked >> piece & 1 or int(m.house.fur_room[piece]) not in rooms_visited:
                continue
            intended, other = _belief_pair(goal, piece, False)
            yield Candidate("1.3", t, intended, other, Statement(goal=goal))


def _type_2_1(m: Moments) -> Iterable[Candidate]:
    for t, piece in m.opens:
        if m.piece_of(m.goal, t) != piece or m.seen_before(m.goal, t):
            continue
        for cut in m.approach(t):
            for code in m.objects:
                if code != m.goal and m.seen_before(code, cut) and m.piece_of(code, cut) not in (-1, piece):
                    yield Candidate("2.1", cut, Statement(goal=m.name(m.goal)), Statement(goal=m.name(code)))


def _type_2_2(m: Moments) -> Iterable[Candidate]:
    for t, piece in m.opens:
        for cut in m.approach(t):
            for code in m.contents(piece, cut):
                if code == m.goal or m.seen_before(code, cut) or not m.locations.candidates(code) >> piece & 1:
                    continue
                given = Statement(obj=m.name(code), piece=piece, inside=False)
                yield Candidate("2.2", cut, Statement(goal=m.name(m.goal)), Statement(goal=m.name(code)), given)


def _type_2_3(m: Moments) -> Iterable[Candidate]:
    opened: dict[int, int] = {}
    for t, outcome in m.events:
        if not outcome.success or outcome.fur < 0:
            continue
        if outcome.action == OPEN:
            opened[outcome.fur] = t
        elif outcome.action == PICKUP:
            opened.clear()
        elif outcome.action == CLOSE and outcome.fur in opened and m.piece_of(m.goal, t) != outcome.fur:
            if m.seen_before(m.goal, t + 1):
                continue
            for code in m.contents(outcome.fur, t):
                if code != m.goal and m.trace.sightings(code)[opened[outcome.fur] + 1] is not None:
                    yield Candidate("2.3", t + 1, Statement(goal=m.name(m.goal)), Statement(goal=m.name(code)))


def _type_2_4(m: Moments) -> Iterable[Candidate]:
    me = m.episode.searcher
    for t in m.steps:
        if t < m.steps.start + WALKED or int(m.episode.actions[t - 1, me]) != FORWARD or m.seen_before(m.goal, t):
            continue
        state = m.trace.states[t]
        goal_piece = m.piece_of(m.goal, t)
        if goal_piece < 0:
            continue
        x, y = state.agent_pos[me].tolist()
        gx, gy = m.house.fur_pos[goal_piece].tolist()
        if abs(gx - x) + abs(gy - y) < FAR or m.house.room_of_cell(x, y) == int(m.house.fur_room[goal_piece]):
            continue
        for code in m.objects:
            if code != m.goal and not m.seen_before(code, t) and m.piece_of(code, t) >= 0:
                yield Candidate("2.4", t, Statement(goal=m.name(m.goal)), Statement(goal=m.name(code)))


FINDERS = (_type_1_1_and_1_2, _type_1_3, _type_2_1, _type_2_2, _type_2_3, _type_2_4)


def candidates(episode: SearchEpisode) -> list[Candidate]:
    """Every moment of ``episode`` that one of the types describes, before the observer decides."""
    m = Moments(episode)
    return [c for finder in FINDERS for c in finder(m)]


def episode_questions(
    episode: SearchEpisode,
    rng: np.random.Generator,
    types: Sequence[str] = tuple(QUESTION_TYPES),
    *,
    threshold: float = DECISIVE,
    per_type: int = 1,
    split: str = "test",
    names: tuple[str, ...] = ("Alice", "Bob"),
    planner: InversePlanner | None = None,
) -> list[BeliefQuestion]:
    """The questions of ``episode``: for each type, up to ``per_type`` of its decisive moments drawn at random
    (at most one question per cut), each with its options in a random order."""
    unknown = [t for t in types if t not in QUESTION_TYPES]
    if unknown:
        raise ValueError(f"unknown question types {unknown}; choose from {', '.join(QUESTION_TYPES)}")
    planner = InversePlanner(episode) if planner is None else planner
    by_type: dict[str, list[Candidate]] = {}
    for c in candidates(episode):
        if c.type in types:
            by_type.setdefault(c.type, []).append(c)
    questions: list[BeliefQuestion] = []
    cuts: set[int] = set()
    # The scarcest types choose their cuts first (ties in a random order), so that one per cut leaves most types
    # a question: the moment a container is opened serves four of them.
    scarcity = {kind: len({c.end_time for c in by_type.get(kind, [])}) for kind in types}
    ties = rng.random(len(types)).tolist()
    for kind in sorted(types, key=lambda k: (scarcity[k], ties[list(types).index(k)])):
        pool = by_type.get(kind, [])
        order = rng.permutation(len(pool)).tolist() if pool else []
        kept = 0
        for i in order:
            if kept >= per_type:
                break
            c = pool[i]
            if c.end_time in cuts:
                continue
            p_intended, _ = option_probabilities(planner, (c.intended, c.other), c.end_time, c.given)
            p_intended = min(1.0, p_intended)  # a sum of posterior masses may round a hair above one
            if p_intended < threshold:
                continue
            swap = bool(rng.random() < 0.5)
            options = (c.other, c.intended) if swap else (c.intended, c.other)
            posterior = 1.0 - p_intended if swap else p_intended
            qid = f"{episode.id}/{kind}/{c.end_time}"
            questions.append(
                BeliefQuestion(qid, kind, episode, c.end_time, options, int(swap), posterior, c.given, 0, split, names)
            )
            cuts.add(c.end_time)
            kept += 1
    return questions
