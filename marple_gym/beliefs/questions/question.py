"""Two-option questions about a searching agent's belief and goal (MMToM-QA's seven types): the record of one
question and what its options mean to the exact observer.

A question is asked at a cut of an episode (``end_time``: the actions before it are shown, with the state
they led to) and offers two statements, (a) and (b): that the searcher thinks an object is (or is not) inside
a container, given a goal it supposes, or that it has been trying to get an object, perhaps given a belief.
Its answer is the exact observer's (:class:`~marple_gym.beliefs.questions.posterior.InversePlanner` with the
true policy), which gives it at least :data:`DECISIVE` of the probability. Where each type's moments are found
is :mod:`marple_gym.beliefs.questions.moments`.

Every question records its episode (which rebuilds the house and replays every step), the cut and both
statements in structured form, so methods may read the text, the vision arrays and scene graphs, the frames,
or the symbols.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from marple_gym.beliefs.episodes import SearchEpisode
from marple_gym.beliefs.questions.posterior import InversePlanner
from marple_gym.errors import MarpleError
from marple_gym.validation import Fields, message_error
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
"""A question is kept only where the exact observer gives one of its options at least this probability."""


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

    def ordered(self, right_first: bool) -> BeliefQuestion:
        """The same question with its right option first (``right_first``) or second."""
        right, wrong = self.options[self.answer], self.options[1 - self.answer]
        p_right = self.normative[self.answer]
        if right_first:
            return replace(self, options=(right, wrong), answer=0, posterior=p_right)
        return replace(self, options=(wrong, right), answer=1, posterior=1.0 - p_right)

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
