"""The moments MMToM-QA's seven question types describe, found in an episode, and the questions asked there.

Each type is a kind of moment (MMToM-QA, section 3.2) and a kind of pair of options; which option is right is
never part of the definition: the exact observer
(:class:`~marple_gym.beliefs.questions.posterior.InversePlanner` with the true policy) decides, and a question
is kept only where it gives one option at least :data:`~marple_gym.beliefs.questions.question.DECISIVE`. So a
type holds questions with either answer, and a set can be balanced so that no cue in the words gives the
answer away (:mod:`marple_gym.beliefs.questions.balance`). Belief questions suppose a goal, the searcher's own
or another object's, as MMToM-QA's "if she has been trying to get X" does; they are about closed containers,
whose insides are seen only when opened. "The last target" is the piece of furniture the story names last as
gone to or acted on, by anyone (:func:`~marple_gym.beliefs.questions.text.last_target`).

=====  ============================================================  ================================================
type   moment (the cut)                                              options
=====  ============================================================  ================================================
1.1    the last target c is a closed container: the searcher is      given goal X (c could hold X): thinks X is
       about to open it, or the story last told someone close it     inside c / is not; the observer's answer agrees
                                                                     with the world (a true belief)
1.2    the same                                                      the same; the answer disagrees with the world
                                                                     (a false belief)
1.3    the searcher has been in the room of a closed container c     given goal X, never seen (c could hold X):
       and left it without opening c; c is not the last target       thinks X is inside c / is not
2.1    about to open a closed container c                            wants X / wants Y, X inside c, not seen so far
2.2    about to open a closed container c                            if it thinks there is no Z inside c (Z is, not
                                                                     seen so far): wants Z / wants Y
2.3    has opened a container and closed it again without taking     wants X / wants Y, neither inside it
       anything, and gone to no other piece since
2.4    walking, at least :data:`WALKED` steps into the search, at    wants X / wants Y, neither seen so far, neither
       no piece of furniture                                         in the last target nor in the room it is in,
                                                                     one at least :data:`FAR` cells away
=====  ============================================================  ================================================

Where this departs from MMToM-QA's wording it is for balance: its 1.1 and 1.2 are always "thinks it is there"
and its 1.3 always "thinks it is not", so the statement's polarity alone answers them; its 2.1 offers a second
object the searcher has seen and left, and its 2.3 the object the searcher has just seen inside, so "the one
in the container it goes to" and "not the one it just saw" answer them (see docs/beliefs.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from marple_gym.beliefs.episodes import EpisodeTrace, SearchEpisode
from marple_gym.beliefs.locations import locations_of, object_piece, pieces_of, unique_objects
from marple_gym.beliefs.questions.balance import cell
from marple_gym.beliefs.questions.posterior import InversePlanner
from marple_gym.beliefs.questions.question import (
    DECISIVE,
    QUESTION_TYPES,
    BeliefQuestion,
    Statement,
    option_probabilities,
)
from marple_gym.beliefs.questions.text import last_target, story
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS

FAR = 8
"""Type 2.4: the least number of cells (Manhattan) between the searcher and one of the two objects."""
WALKED = 4
"""Type 2.4: the least number of steps the searcher has searched for before the cut (a heading to read)."""
PER_TYPE = 3
"""Questions one episode gives at most of each type and cell (what the cues do with them,
:func:`~marple_gym.beliefs.questions.balance.cell`), each type's at cuts of their own."""
TRIES = 200
"""Moments of each type (of one episode) put to the observer at most."""
PLAUSIBLE = 0.01
"""A goal is plausible where the actions make it at least this likely, relative to the likeliest one
(:meth:`Moments.plausible`): about one slip (:attr:`~marple_gym.beliefs.search.SearchSettings.lapse`), no more."""
OPEN, CLOSE, PICKUP, FORWARD = int(Action.open), int(Action.close), int(Action.pickup), int(Action.forward)
MOVES = frozenset({int(Action.left), int(Action.right), FORWARD})


@dataclass(frozen=True)
class Candidate:
    """A moment one type describes, with its two options (in no particular order), before the observer decides."""

    type: str
    end_time: int
    options: tuple[Statement, Statement]
    given: Statement | None = None


class Moments:
    """What the types ask of one episode, worked out once: its cuts, who did what before each, who saw what."""

    def __init__(self, episode: SearchEpisode) -> None:
        self.episode = episode
        self.trace: EpisodeTrace = episode.trace()
        self.house = self.trace.house
        self.locations = locations_of(self.house)
        self.me = episode.searcher
        # The cuts: at least one action shown, the searcher's pick-up of its object never.
        self.last = episode.found - 1 if episode.found > 0 else episode.length
        self.cuts = range(1, self.last + 1)
        self.search = range(episode.search_start + 1, self.last + 1)
        """The cuts after at least one action of the search."""
        self.objects = unique_objects(self.house, self.trace.states[0])  # type -> object index
        self._evidence: dict[tuple, dict[int, float]] = {}

    # ---- what the story tells ----------------------------------------------------------------------------------

    @cached_property
    def targets(self) -> list[tuple[int, int, str]]:
        """For every cut t (index t), :func:`last_target` of the story up to it."""
        return [(-1, -1, "")] + [last_target(story(self.episode, t)) for t in self.cuts]

    def outcome(self, t: int):
        """What the searcher's action before cut ``t`` did."""
        return self.trace.outcomes[t - 1][self.me]

    def faced(self, t: int) -> int:
        """The closed container the searcher faces at cut ``t`` having just walked or turned to it, else -1."""
        agent, piece, kind = self.targets[t]
        if agent != self.me or kind != "go" or self.episode.actions[t - 1, self.me] not in MOVES:
            return -1
        return piece if self.locations.closed(self.trace.states[t]) >> piece & 1 else -1

    def closed_in_vain(self, t: int) -> int:
        """The container the searcher closed by its action before ``t`` after opening it and taking nothing out,
        else -1."""
        o = self.outcome(t)
        if not (o.success and o.action == CLOSE and o.fur >= 0):
            return -1
        for s in range(t - 1, self.episode.search_start - 1, -1):
            before = self.outcome(s) if s > 0 else None
            if before is None or (before.action == PICKUP and before.success):
                return -1
            if before.action == OPEN and before.success and before.fur == o.fur:
                return o.fur
        return -1

    # ---- who saw what ------------------------------------------------------------------------------------------

    def seen_before(self, code: int, t: int) -> bool:
        """Has the searcher seen an object of type ``code`` in any state up to cut ``t``?"""
        return any(s is not None for s in self.trace.sightings(code)[: t + 1])

    def piece_of(self, code: int, t: int) -> int:
        """The piece an object of type ``code`` lies on or in at cut ``t`` (-1: carried, or no single one)."""
        obj = self.objects.get(code)
        return -1 if obj is None else object_piece(self.house, self.trace.states[t], obj)

    def carried(self, code: int, t: int) -> bool:
        """Does the searcher hold the object of type ``code`` at cut ``t``?"""
        return self.objects.get(code, -1) in self.trace.states[t].carrying[self.me].tolist()

    def containers(self, code: int) -> list[int]:
        """The closed-when-shut containers (gated pieces) that could hold an object of type ``code``."""
        return pieces_of(self.locations.candidates(code) & self.locations.gated)

    def room(self, t: int) -> int:
        x, y = self.trace.states[t].agent_pos[self.me].tolist()
        return self.house.room_of_cell(x, y)

    @cached_property
    def opened(self) -> list[int]:
        """For every state t, bits of the containers the searcher has seen the inside of up to t."""
        out, seen = [], 0
        for percept in self.trace.percepts:
            seen |= percept.pieces & self.locations.gated
            out.append(seen)
        return out

    def name(self, code: int) -> str:
        return ASSETS.object_names[code]

    def plausible(self, planner: InversePlanner, goal: int, t: int, given: Statement | None = None) -> bool:
        """Is ``goal`` a goal the searcher may have, given its actions before ``t`` (and a belief the question
        supposes): within a factor :data:`PLAUSIBLE` of the likeliest of the house's single objects? A belief
        question supposes such a goal, and a goal question's answer is one: supposing a goal the actions rule
        out, or choosing the lesser of two goals they both rule out, would ask what no one could tell."""
        condition = None
        if given is not None and not given.is_goal:
            condition = (ASSETS.object_code[given.obj], given.piece, given.inside)
        evidence = self._evidence.get((t, condition))
        if evidence is None:
            evidence = {g: planner.goal_log_evidence(g, t, condition) for g in self.objects}
            self._evidence[(t, condition)] = evidence
        return evidence.get(goal, -np.inf) >= max(evidence.values()) + np.log(PLAUSIBLE)


def _goal(m: Moments, code: int) -> Statement:
    return Statement(goal=m.name(code))


def _belief(m: Moments, code: int, piece: int) -> tuple[Statement, Statement]:
    name = m.name(code)
    return Statement(obj=name, piece=piece, inside=True), Statement(obj=name, piece=piece, inside=False)


def _short_term(m: Moments) -> Iterator[Candidate]:
    """1.1 and 1.2 (told apart once the observer has decided, :func:`_true_or_false`)."""
    for t in m.cuts:
        _, c, verb = m.targets[t]
        if c < 0 or not m.locations.gated >> c & 1 or not (m.faced(t) == c or verb == "closes {}"):
            continue
        for code in m.objects:
            if m.locations.candidates(code) >> c & 1 and not m.carried(code, t):
                yield Candidate("1.1", t, _belief(m, code, c), _goal(m, code))


def _tracking(m: Moments) -> Iterator[Candidate]:
    """1.3: a container of a room the searcher has left without opening it, an object it has never seen."""
    visited: set[int] = set()
    for t in m.search:
        visited.add(m.room(t - 1))
        here = m.room(t)
        target = m.targets[t][1]
        for code in m.objects:
            if m.seen_before(code, t) or m.carried(code, t):
                continue
            for c in m.containers(code):
                room = int(m.house.fur_room[c])
                if c != target and room in visited and room != here and not m.opened[t] >> c & 1:
                    yield Candidate("1.3", t, _belief(m, code, c), _goal(m, code))


def _true_belief_goal(m: Moments) -> Iterator[Candidate]:
    """2.1: about to open a container holding an object not seen so far, and any other object."""
    for t in m.search:
        c = m.faced(t)
        if c < 0:
            continue
        inside = [code for code in m.objects if m.piece_of(code, t) == c and not m.seen_before(code, t)]
        for x in inside:
            for y in m.objects:
                if y != x and not m.carried(y, t) and m.piece_of(y, t) >= 0:
                    yield Candidate("2.1", t, (_goal(m, x), _goal(m, y)))


def _false_belief_goal(m: Moments) -> Iterator[Candidate]:
    """2.2: about to open a container, supposing the searcher thinks an object in it (not seen) is not."""
    for t in m.search:
        c = m.faced(t)
        if c < 0:
            continue
        for z in m.objects:
            if m.piece_of(z, t) != c or m.seen_before(z, t) or not m.locations.candidates(z) >> c & 1:
                continue
            given = Statement(obj=m.name(z), piece=c, inside=False)
            for y in m.objects:
                if y != z and not m.carried(y, t) and m.piece_of(y, t) >= 0:
                    yield Candidate("2.2", t, (_goal(m, z), _goal(m, y)), given)


def _updated_belief_goal(m: Moments) -> Iterator[Candidate]:
    """2.3: a container closed again in vain, two objects elsewhere."""
    closed = -1  # the container the searcher last closed in vain, while the story names no other target since
    for t in m.search:
        agent, target, verb = m.targets[t]
        if m.closed_in_vain(t) >= 0:
            closed = m.closed_in_vain(t)
        elif (agent, target, verb) != (m.me, closed, "closes {}"):
            closed = -1
        if closed < 0:
            continue
        away = [code for code in m.objects if m.piece_of(code, t) not in (-1, closed) and not m.carried(code, t)]
        for i, x in enumerate(away):
            for y in away[i + 1 :]:
                yield Candidate("2.3", t, (_goal(m, x), _goal(m, y)))


def _future_actions_goal(m: Moments) -> Iterator[Candidate]:
    """2.4: walking, two unseen objects away from the last target and the room, one of them far."""
    for t in m.search:
        if t - m.episode.search_start < WALKED or m.episode.actions[t - 1, m.me] != FORWARD or m.targets[t][2] == "go":
            continue
        x, y = m.trace.states[t].agent_pos[m.me].tolist()
        target, here = m.targets[t][1], m.room(t)
        far: dict[int, bool] = {}
        for code in m.objects:
            piece = m.piece_of(code, t)
            if piece < 0 or piece == target or int(m.house.fur_room[piece]) == here or m.seen_before(code, t):
                continue
            px, py = m.house.fur_pos[piece].tolist()
            far[code] = abs(px - x) + abs(py - y) >= FAR
        codes = sorted(far)
        for i, a in enumerate(codes):
            for b in codes[i + 1 :]:
                if far[a] or far[b]:
                    yield Candidate("2.4", t, (_goal(m, a), _goal(m, b)))


FINDERS = {
    "1.1": _short_term,
    "1.2": _short_term,
    "1.3": _tracking,
    "2.1": _true_belief_goal,
    "2.2": _false_belief_goal,
    "2.3": _updated_belief_goal,
    "2.4": _future_actions_goal,
}
"""Each type's finder (1.1 and 1.2 share one: the observer's answer tells them apart)."""


def candidates(episode: SearchEpisode, types: Sequence[str] = tuple(QUESTION_TYPES)) -> list[Candidate]:
    """Every moment of ``episode`` that one of ``types`` describes, with its options, before the observer
    decides (the short-term moments are labelled 1.1 until then)."""
    m = Moments(episode)
    finders = dict.fromkeys(FINDERS[t] for t in types)  # one pass of the shared finder
    return [c for finder in finders for c in finder(m)]


def _true_or_false(m: Moments, candidate: Candidate, answer: Statement) -> str:
    """1.1 where the answer about the container agrees with the world at the cut, else 1.2."""
    there = m.piece_of(ASSETS.object_code[answer.obj], candidate.end_time) == answer.piece
    return "1.1" if there == answer.inside else "1.2"


def episode_questions(
    episode: SearchEpisode,
    rng: np.random.Generator,
    types: Sequence[str] = tuple(QUESTION_TYPES),
    *,
    threshold: float = DECISIVE,
    per_type: int = PER_TYPE,
    split: str = "test",
    names: tuple[str, ...] = ("Alice", "Bob"),
    planner: InversePlanner | None = None,
) -> list[BeliefQuestion]:
    """The questions of ``episode``: of each type's moments, up to :data:`TRIES` drawn at random are put to the
    observer, and of those it decides (one option at least ``threshold``, about a plausible goal) at most two are
    kept a type and cut (those the cues get most wrong and most right), up to ``per_type`` of each type and
    cell (:func:`~marple_gym.beliefs.questions.balance.cell`), each with its options in a random order (a
    balanced split orders them again, and keeps at most one a type and cut)."""
    unknown = [t for t in types if t not in QUESTION_TYPES]
    if unknown:
        raise ValueError(f"unknown question types {unknown}; choose from {', '.join(QUESTION_TYPES)}")
    planner = InversePlanner(episode) if planner is None else planner
    m = Moments(episode)
    pools: dict[str, list[Candidate]] = {}
    for c in candidates(episode, types):
        pools.setdefault(c.type, []).append(c)
    at_cut: dict[tuple[str, int], list[tuple[BeliefQuestion, tuple]]] = {}
    for pool in (pools[k] for k in sorted(pools)):
        for i in rng.permutation(len(pool))[:TRIES].tolist():
            question = _decide(m, planner, pool[i], threshold, split, names)
            if question is not None and question.type in types:
                at_cut.setdefault((question.type, question.end_time), []).append((question, cell(question)))
    kept: list[BeliefQuestion] = []
    counts: dict[tuple, int] = {}
    for (kind, _), found in at_cut.items():
        # At most two candidates a type and cut: the one the cues get wrong most often and the one they get right
        # most often. A type's moments favour one side of most cues, and balancing keeps a question only with a
        # partner from the other side (and then only one question of the type at the cut).
        ordered = sorted(found, key=lambda f: sum(f[1][1]))
        for question, where in dict.fromkeys([ordered[0], ordered[-1]]):
            if counts.get((kind, where), 0) < per_type:
                counts[(kind, where)] = counts.get((kind, where), 0) + 1
                kept.append(question)
    order = rng.random(len(kept)) < 0.5
    return [q.ordered(bool(first)) for q, first in zip(sorted(kept, key=lambda q: (q.type, q.end_time)), order)]


def _decide(
    m: Moments, planner: InversePlanner, c: Candidate, threshold: float, split: str, names: tuple[str, ...]
) -> BeliefQuestion | None:
    """The question of a moment if the observer decides it (its right option first), else None."""
    p, _ = option_probabilities(planner, c.options, c.end_time, c.given)
    p = min(1.0, max(0.0, p))  # sums of posterior masses: noise in the last bit
    if max(p, 1.0 - p) < threshold:
        return None
    right, wrong = c.options if p >= 0.5 else c.options[::-1]
    supposed = ASSETS.object_code[(right if right.is_goal else c.given).goal]
    if not m.plausible(planner, supposed, c.end_time, c.given if right.is_goal else None):
        return None
    kind = _true_or_false(m, c, right) if c.type == "1.1" else c.type
    qid = f"{m.episode.id}/{kind}/{c.end_time}"
    return BeliefQuestion(qid, kind, m.episode, c.end_time, (right, wrong), 0, max(p, 1.0 - p), c.given, 0, split,
                          names)  # fmt: skip
