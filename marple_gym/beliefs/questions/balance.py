"""Balancing a split: the same number of questions of every type, each type counterbalanced against the cues.

A question's **signature** is what each shortcut rule of :data:`~marple_gym.beliefs.questions.cues.RULES` (but
"always (a)") does with it: +1 where it picks the right option, -1 the wrong one, 0 where it abstains. Within
each type and each verb naming the last target (what the narration has happened last), :func:`balance_split`
pairs every question with one of the mirrored signature (every +1 a -1), so each rule is right exactly as
often as wrong, and so is any rule that reads only these cues, however it combines them. Each pair gets its
options in both orders, so "always (a)" is right exactly half the time too. Questions without a partner are
left out, and a type asks at most one question at a moment of an episode. Every type keeps as many questions
as the scarcest one (a type with no pair at all is left out: a split too small to have one of every type says
so in its table); a type with more pairs than that keeps those that leave each object about as often the
right option as the wrong one (:data:`LEAN`), where the objects most often sought would otherwise answer goal
questions by name.

Whether that suffices is measured, not assumed: the shortcut panel (:mod:`marple_eval.beliefs.panel`) scores
these rules and a classifier trained on the training split's questions on every type.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from marple_gym.beliefs.questions.cues import RULES, Reading, read_text
from marple_gym.beliefs.questions.question import QUESTION_TYPES, BeliefQuestion
from marple_gym.beliefs.questions.text import question_text

SIGNED = tuple(name for name in RULES if name != "always (a)")
"""The rules whose choice does not depend on the options' order, which a signature records."""
LEAN = 1
"""Within a type, how much more often one object may be the right option than the wrong one (or the reverse),
while the type has pairs to choose from."""


def signature(reading: Reading, right: int) -> tuple[int, ...]:
    """What each rule of :data:`SIGNED` does with a question whose right option is ``right`` (+1 right, -1
    wrong, 0 abstains)."""
    out = []
    for name in SIGNED:
        choice = RULES[name](reading)
        out.append(0 if choice is None else (1 if choice == right else -1))
    return tuple(out)


def cell(question: BeliefQuestion) -> tuple[str, tuple[int, ...]]:
    """(the verb naming the last target, the signature) of a question."""
    reading = read_text(question_text(question))
    return reading.verb, signature(reading, question.answer)


def balance_split(
    questions: Sequence[BeliefQuestion], rng: np.random.Generator, limit: int | None = None
) -> list[BeliefQuestion]:
    """A balanced selection of ``questions`` (see the module docs), at most ``limit`` of each type, ordered by
    type and then as drawn."""
    pairs = {kind: _apart(_pairs([q for q in questions if q.type == kind], rng)) for kind in QUESTION_TYPES}
    present = [kind for kind in QUESTION_TYPES if pairs[kind]]
    n = min((len(pairs[kind]) for kind in present), default=0)
    n = n if limit is None else min(n, limit // 2)
    out = []
    for kind in present:
        for a, b in _least_leaning(pairs[kind], n):
            first = bool(rng.random() < 0.5)
            out += [a.ordered(first), b.ordered(not first)]
    return out


def _apart(pairs: list[tuple[BeliefQuestion, BeliefQuestion]]) -> list[tuple[BeliefQuestion, BeliefQuestion]]:
    """The pairs, in order, whose moments (episode, cut) no pair before them took: a type asks one question at a
    moment."""
    used: set[tuple[str, int]] = set()
    out = []
    for a, b in pairs:
        moments = {(a.episode.id, a.end_time), (b.episode.id, b.end_time)}
        if len(moments) == 2 and not moments & used:
            used |= moments
            out.append((a, b))
    return out


def _least_leaning(
    pairs: list[tuple[BeliefQuestion, BeliefQuestion]], n: int
) -> list[tuple[BeliefQuestion, BeliefQuestion]]:
    """``n`` of a type's pairs, taken in order while every object stays within :data:`LEAN` of being as often the
    right option as the wrong one; where none fits, the bound grows by one (a type with no more pairs than it
    needs keeps them all)."""
    rest, chosen, lean, bound = list(pairs), [], {}, LEAN
    while len(chosen) < n:
        for i, pair in enumerate(rest):
            after = _lean_after(lean, pair)
            if all(abs(v) <= bound for v in after.values()):
                chosen.append(rest.pop(i))
                lean.update(after)
                break
        else:
            bound += 1
    return chosen


def _lean_after(lean: dict[str, int], questions: tuple[BeliefQuestion, ...]) -> dict[str, int]:
    """How often each object of ``questions`` would be the right option's less the wrong one's, with them added to
    ``lean`` (only their objects; a belief question names one object in both options: no change)."""
    after: dict[str, int] = {}
    for q in questions:
        for statement, sign in ((q.options[q.answer], 1), (q.options[1 - q.answer], -1)):
            name = statement.goal if statement.is_goal else statement.obj
            after[name] = after.get(name, lean.get(name, 0)) + sign
    return after


def _pairs(questions: list[BeliefQuestion], rng: np.random.Generator) -> list[tuple[BeliefQuestion, BeliefQuestion]]:
    """Questions of one type paired with mirrored signatures within each verb, in a random order."""
    sides: dict[tuple, tuple[list, list]] = {}
    for q in questions:
        verb, sig = cell(q)
        mirror = tuple(-s for s in sig)
        key = (verb, max(sig, mirror))
        sides.setdefault(key, ([], []))[sig != key[1]].append(q)
    pairs = []
    for (_, sig), (left, right) in sides.items():
        left = [left[i] for i in rng.permutation(len(left))]
        right = [right[i] for i in rng.permutation(len(right))]
        if not any(sig):  # every rule abstains: any two make a pair
            pairs += list(zip(left[0::2], left[1::2]))
        else:
            pairs += list(zip(left, right))
    return [pairs[i] for i in rng.permutation(len(pairs))]
