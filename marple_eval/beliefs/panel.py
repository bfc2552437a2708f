"""The shortcut panel: rules that answer belief questions without a theory of mind, scored like methods.

A benchmark item must need the ability it claims to test. These rules read only the words of a question
(its cues, :mod:`marple_gym.beliefs.questions.cues`) and never reason about what anyone sees, believes or
wants:

* **always (a)**; **always "there is"** (a belief statement's polarity); **the last target** (the option
  naming the last piece of furniture the narration has anyone go to or act on: "there is" for a container
  that is the last target, "there isn't" for one that is not; for a goal, the object the house description
  puts there); **the premise's object** (the option naming the object the premise names; its opposite is
  "against the premise"); **the object that could be in more places** (for a goal, the option whose object
  the described house could hold in more places, by what goes where in houses); **the longer option**; **more
  words from the narration**;
* **a text classifier** (:class:`TextClassifier`): a logistic regression on the differences between the two
  options' words and cues, each cue also per type and per verb naming the last target, trained on the
  training split's questions and scored on the test split.

Each answers a question as a method does ((P(a), P(b)); an abstaining rule one half each), so the panel is
scored per type with intervals exactly as methods are (:func:`marple_eval.beliefs.scoring.score`). A set
**passes** (:func:`verdict`) when every rule's accuracy on every type lies within :data:`BAND` (a rule far
below one half is as good as its opposite far above it) while every answer is the exact observer's and
decisive (:data:`~marple_gym.beliefs.questions.question.DECISIVE`).

The rules read texts, so the panel also runs on any file in MMToM-QA's format
(:func:`panel_scores` on :class:`TextQuestion` rows), where, without a training split, the classifier is
cross-fitted over the test split's episodes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from marple_eval.beliefs.methods import BeliefMethod
from marple_eval.beliefs.results import BeliefResults, answer_record
from marple_eval.beliefs.scoring import score
from marple_gym.beliefs.questions.cues import RULES, Reading, places, read_text, words
from marple_gym.beliefs.questions.question import DECISIVE, QUESTION_TYPES, BeliefQuestion
from marple_gym.beliefs.questions.sets import read_question_set, record_panel
from marple_gym.beliefs.questions.text import question_text

BAND = (0.40, 0.60)
"""A rule passes a type where its accuracy lies within this band."""
READS: dict[str, frozenset[str]] = {
    "always (a)": frozenset({"options"}),
    "always there is": frozenset({"options"}),
    "last target": frozenset({"options", "text"}),
    "the premise's object": frozenset({"options", "premise"}),
    "the object that could be in more places": frozenset({"options", "house", "what goes where"}),
    "longer option": frozenset({"options"}),
    "more words from the narration": frozenset({"options", "text"}),
}
"""What each rule reads of a question."""
VERBS = ("goes to", "walks towards", "heads for", "opens", "closes", "takes", "puts", "")
"""The verbs that may name the last target (the classifier's context)."""
PENALTIES = (0.1, 1.0, 10.0, 100.0)
"""The classifier's L2 penalties, one chosen by cross-validation over the training questions' episodes."""
FOLDS = 5


class TextQuestion(NamedTuple):
    """A question as a file in MMToM-QA's format has it: its text, type, answer (0: a, 1: b) and a group the
    classifier's cross-fitting keeps together (the episode)."""

    text: str
    type: str
    answer: int
    group: str = ""

    @property
    def posterior(self) -> float:
        """The answer key as a certainty (the release has no posterior)."""
        return 1.0 - float(self.answer)

    @classmethod
    def of(cls, question: BeliefQuestion) -> TextQuestion:
        return cls(question_text(question), question.type, question.answer, question.episode.id)


def _text(question: BeliefQuestion | TextQuestion) -> str:
    return question.text if isinstance(question, TextQuestion) else question_text(question)


def _choice(choice: int | None) -> tuple[float, float]:
    return (0.5, 0.5) if choice is None else ((1.0, 0.0) if choice == 0 else (0.0, 1.0))


class ShortcutRule(BeliefMethod):
    """One rule of the panel (see the module docs) as a method."""

    role = "shortcut"

    def __init__(self, name: str) -> None:
        if name not in RULES:
            raise ValueError(f"unknown shortcut rule {name!r}; choose from {', '.join(RULES)}")
        self.name = name
        self.reads = READS[name]
        self.rule = RULES[name]

    def answer(self, question: BeliefQuestion | TextQuestion) -> tuple[float, float]:
        return _choice(self.rule(read_text(_text(question))))


# ---- the text classifier --------------------------------------------------------------------------------------


def _cues(reading: Reading, option: int) -> np.ndarray:
    """The cues of one option: polarity, the last target, the premise's object, the places its object could lie,
    length, words shared with the narration, its object named in the narration."""
    o = reading.options[option]
    told = words(reading.narration)
    if reading.is_belief:
        at_target = float(reading.target is not None and o.piece == reading.target)
    else:
        at_target = float(o.object in reading.house.get(reading.target or "", ()))
    return np.array([
        0.0 if o.positive is None else (1.0 if o.positive else -1.0),
        at_target,
        float(o.object == reading.premise_object),
        places(reading, o.object) / 5.0,
        len(o.text) / 50.0,
        len(words(o.text) & told) / 5.0,
        float(words(o.object) <= told),
    ])  # fmt: skip


@dataclass
class _Design:
    """How questions become features: the words of the options the classifier knows (from its training set)."""

    vocabulary: dict[str, int]

    @classmethod
    def fit(cls, readings: Sequence[Reading]) -> _Design:
        names = sorted({w for r in readings for o in r.options for w in words(o.text)})
        return cls({w: i for i, w in enumerate(names)})

    def features(self, reading: Reading, kind: str) -> np.ndarray:
        """Option (a)'s features less option (b)'s (so swapping the options flips them), each cue also per type
        and per verb, with a per-type constant for (a)'s position."""
        cues = _cues(reading, 0) - _cues(reading, 1)
        context = np.concatenate([[1.0], _one_hot(kind, tuple(QUESTION_TYPES)), _one_hot(reading.verb, VERBS)])
        bag = np.zeros(len(self.vocabulary))
        for sign, o in ((1.0, reading.options[0]), (-1.0, reading.options[1])):
            for w in words(o.text):
                if w in self.vocabulary:
                    bag[self.vocabulary[w]] += sign
        position = np.concatenate([[1.0], _one_hot(kind, tuple(QUESTION_TYPES))])
        return np.concatenate([np.outer(cues, context).ravel(), bag, position])


def _one_hot(value: str, values: tuple[str, ...]) -> np.ndarray:
    out = np.zeros(len(values))
    if value in values:
        out[values.index(value)] = 1.0
    return out


def fit_logistic(x: np.ndarray, y: np.ndarray, penalty: float, steps: int = 50) -> np.ndarray:
    """Weights of an L2-penalised logistic regression (no separate bias: give a constant feature), by Newton's
    method: P(y = 1 | x) = sigmoid(x @ w). Each step is solved by conjugate gradients, with products of ``x``
    and vectors only: small, and free of the matrix products a threaded BLAS slows down on a busy machine."""
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (p - y) + penalty * w
        curvature = p * (1.0 - p)
        step = _conjugate_gradient(lambda v, c=curvature: x.T @ (c * (x @ v)) + penalty * v, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def _conjugate_gradient(product, b: np.ndarray, tolerance: float = 1e-12) -> np.ndarray:
    """The solution of A s = b for a symmetric positive definite A given as ``product(v) = A v``."""
    s = np.zeros_like(b)
    r = b.copy()
    d = r.copy()
    rr = float(r @ r)
    for _ in range(len(b)):
        if rr <= tolerance:
            break
        ad = product(d)
        alpha = rr / float(d @ ad)
        s += alpha * d
        r -= alpha * ad
        rr, previous = float(r @ r), rr
        d = r + (rr / previous) * d
    return s


class TextClassifier(BeliefMethod):
    """The panel's classifier (see the module docs): :meth:`fit` on training questions, then answer others."""

    name = "text classifier"
    role = "shortcut"
    reads = frozenset({"text", "options", "premise"})

    def __init__(self) -> None:
        self.design: _Design | None = None
        self.weights: np.ndarray | None = None
        self.penalty: float | None = None

    def fit(self, questions: Sequence[BeliefQuestion | TextQuestion], seed: int = 0) -> TextClassifier:
        """Learn from ``questions`` (their texts, types and answers), the penalty chosen by cross-validation
        over their episodes (``seed`` draws the folds)."""
        if len(questions) < 2:
            raise ValueError("the text classifier needs training questions (a split with questions of its own)")
        readings = [read_text(_text(q)) for q in questions]
        kinds = [q.type for q in questions]
        y = np.array([1.0 - q.answer for q in questions])  # 1 where (a) is right
        groups = [_group(q) for q in questions]
        self.design = _Design.fit(readings)
        x = np.stack([self.design.features(r, k) for r, k in zip(readings, kinds)])
        folds = _folds(groups, seed)
        best = min(PENALTIES, key=lambda lam: _held_out_loss(x, y, folds, lam))
        self.penalty = best
        self.weights = fit_logistic(x, y, best)
        return self

    def answer(self, question: BeliefQuestion | TextQuestion) -> tuple[float, float]:
        if self.design is None or self.weights is None:
            raise RuntimeError("fit the text classifier on training questions first")
        x = self.design.features(read_text(_text(question)), question.type)
        a = float(1.0 / (1.0 + np.exp(-(x @ self.weights))))
        return a, 1.0 - a

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "penalty": self.penalty}


def _group(question: BeliefQuestion | TextQuestion) -> str:
    return question.group if isinstance(question, TextQuestion) else question.episode.id


def _folds(groups: Sequence[str], seed: int, folds: int = FOLDS) -> np.ndarray:
    """Each item's fold, whole groups (episodes) together."""
    names = sorted(set(groups))
    order = np.random.default_rng(seed).permutation(len(names))
    fold_of = {names[i]: k % folds for k, i in enumerate(order)}
    return np.array([fold_of[g] for g in groups])


def _held_out_loss(x: np.ndarray, y: np.ndarray, folds: np.ndarray, penalty: float) -> float:
    loss = 0.0
    for k in np.unique(folds):
        w = fit_logistic(x[folds != k], y[folds != k], penalty)
        p = np.clip(1.0 / (1.0 + np.exp(-(x[folds == k] @ w))), 1e-6, 1 - 1e-6)
        yk = y[folds == k]
        loss -= float((yk * np.log(p) + (1 - yk) * np.log(1 - p)).sum())
    return loss


def cross_fitted(questions: Sequence[BeliefQuestion | TextQuestion], seed: int = 0) -> list[tuple[float, float]]:
    """The classifier's answers to ``questions`` when no training split exists: each fold of their episodes
    answered by a classifier fitted on the other folds."""
    folds = _folds([_group(q) for q in questions], seed)
    answers: list[tuple[float, float]] = [(0.5, 0.5)] * len(questions)
    for k in np.unique(folds):
        train = [q for q, f in zip(questions, folds) if f != k]
        if len({_group(q) for q in train}) < 2:
            continue  # too few episodes to learn from: these questions keep a coin's answer
        model = TextClassifier().fit(train, seed)
        for i in np.flatnonzero(folds == k):
            answers[i] = model.answer(questions[i])
    return answers


# ---- the panel ------------------------------------------------------------------------------------------------


def panel_methods() -> list[ShortcutRule]:
    """The panel's rules that need no training, as methods."""
    return [ShortcutRule(name) for name in RULES]


def panel_answers(
    test: Sequence[BeliefQuestion | TextQuestion], train: Sequence[BeliefQuestion | TextQuestion] = (), seed: int = 0
) -> dict[str, tuple[dict[str, Any], list[tuple[float, float]]]]:
    """Every rule's settings and answers to ``test`` by name, the classifier's trained on ``train``
    (cross-fitted over ``test``'s episodes when ``train`` is empty, named so)."""
    out = {rule.name: (rule.settings(), rule.answer_all(test)) for rule in panel_methods()}
    if train:
        classifier = TextClassifier().fit(train, seed)
        out[classifier.name] = (classifier.settings(), classifier.answer_all(test))
    else:
        name = f"{TextClassifier.name} (cross-fitted)"
        out[name] = ({**TextClassifier().settings(), "name": name}, cross_fitted(test, seed))
    return out


def panel_scores(
    test: Sequence[BeliefQuestion | TextQuestion], train: Sequence[BeliefQuestion | TextQuestion] = (), seed: int = 0
) -> dict[str, dict[str, Any]]:
    """Every rule's :func:`~marple_eval.beliefs.scoring.score` on ``test`` by name (see :func:`panel_answers`)."""
    return {name: score(test, answers) for name, (_, answers) in panel_answers(test, train, seed).items()}


def verdict(
    scores: dict[str, dict[str, Any]], questions: Sequence[BeliefQuestion] = (), band: tuple[float, float] = BAND
) -> dict[str, Any]:
    """Does a set pass the panel? Every rule's accuracy on every type within ``band``, and (given the
    ``questions``) every answer decisive for the exact observer. Returns ``{"passes", "band", "failures":
    [{"rule", "type", "accuracy", "n"}], "undecided", "scores"}``."""
    failures = [
        {"rule": name, "type": kind, "accuracy": group["accuracy"], "n": group["n"]}
        for name, result in scores.items()
        for kind, group in result.items()
        if kind in QUESTION_TYPES and not band[0] <= group["accuracy"] <= band[1]
    ]
    undecided = [q.id for q in questions if max(q.normative) < DECISIVE]
    return {"passes": not failures and not undecided, "band": list(band), "failures": failures,
            "undecided": undecided, "scores": scores}  # fmt: skip


def format_verdict(result: dict[str, Any]) -> str:
    """The verdict in one line: passes, or which rules fail on which types."""
    low, high = result["band"]
    if result["passes"]:
        return f"shortcut panel: **passes** (every rule within {low:.2f}-{high:.2f} on every type)"
    parts = [f"{f['rule']} on {f['type']}: {f['accuracy']:.2f} (n = {f['n']})" for f in result["failures"]]
    if result["undecided"]:
        parts.append(f"{len(result['undecided'])} answers the exact observer does not decide")
    return f"shortcut panel: **fails** (outside {low:.2f}-{high:.2f}: " + "; ".join(parts) + ")"


def check_set(root: str | os.PathLike, seed: int = 0) -> dict[str, Any]:
    """Run the panel on a finished set (the classifier trained on its training split's questions, or cross-fitted
    over the test split's episodes where the training split has none), record its verdict beside the set's
    manifest (:func:`~marple_gym.beliefs.questions.sets.record_panel`) and return it."""
    return run_panel(root, seed)[0]


def run_panel(root: str | os.PathLike, seed: int = 0) -> tuple[dict[str, Any], list[BeliefResults]]:
    """:func:`check_set`'s verdict (recorded beside the set's manifest) and every rule's results on the set's test
    split, role ``shortcut``, to save and set beside the methods' in a table."""
    test = read_question_set(root, "test")
    if not test:
        raise ValueError(f"{root}: the set's test split has no questions (a set this small has no balanced pair)")
    train = read_question_set(root, "train")
    answered = panel_answers(test, train, seed)
    scores = {name: score(test, answers) for name, (_, answers) in answered.items()}
    result = verdict(scores, test)
    record_panel(root, result)
    runs = [
        BeliefResults(name, {**settings, "data": str(root), "seed": seed},
                      [answer_record(q, a) for q, a in zip(test, answers)], scores[name], role="shortcut")
        for name, (settings, answers) in answered.items()
    ]  # fmt: skip
    return result, runs
