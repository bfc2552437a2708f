"""Balancing a split: the same number of questions of every type, each type counterbalanced against the cues.

A question's **signature** is what each shortcut rule of :data:`~marple_gym.beliefs.questions.cues.RULES` (but
"always (a)") does with it: +1 where it picks the right option, -1 the wrong one, 0 where it abstains. Within
each type and each verb naming the last target (what the narration has happened last), :func:`balance_split`
pairs every question with one of the mirrored signature (every +1 a -1), so each rule is right exactly as
often as wrong, and so is any rule that reads only these cues, however it combines them. Each pair gets its
options in both orders, so "always (a)" is right exactly half the time too. Questions without a partner are
left out; at most one question is kept at a cut of an episode (as MMToM-QA asks at most one a moment); and
every type keeps as many questions as the scarcest one (a type with no pair at all is left out: a split too
small to have one of every type says so in its table).

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
    type and then as drawn. The questions come with their right option first (as
    :func:`~marple_gym.beliefs.questions.moments.episode_questions` makes them) or in any order."""
    pairs = {kind: _pairs([q for q in questions if q.type == kind], rng) for kind in QUESTION_TYPES}
    used: set[tuple[str, int]] = set()
    chosen: dict[str, list[tuple[BeliefQuestion, BeliefQuestion]]] = {kind: [] for kind in QUESTION_TYPES}
    wanted = None if limit is None else limit // 2
    # Round by round, the type with the fewest pairs left chooses first, so the scarce ones keep their moments.
    while True:
        open_types = [k for k in QUESTION_TYPES if pairs[k] and (wanted is None or len(chosen[k]) < wanted)]
        if not open_types:
            break
        for kind in sorted(open_types, key=lambda k: (len(pairs[k]), k)):
            while pairs[kind]:
                a, b = pairs[kind].pop()
                keys = {(a.episode.id, a.end_time), (b.episode.id, b.end_time)}
                if len(keys) == 2 and not keys & used:
                    used |= keys
                    chosen[kind].append((a, b))
                    break
    present = [k for k in QUESTION_TYPES if chosen[k]]
    n = min((len(chosen[k]) for k in present), default=0)
    out = []
    for kind in present:
        for a, b in chosen[kind][:n]:
            first = bool(rng.random() < 0.5)
            out += [a.ordered(first), b.ordered(not first)]
    return out


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
