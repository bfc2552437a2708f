"""A belief method's results: the results envelope (:class:`~marple_eval.results.Results`), then its answer to
every question and the score table.

::

    {"format": "marple-results", "version": 3, "family": "beliefs", "method": "observer", "role": "answer_key",
     "created": "2026-11-27T10:00:00+00:00", "generator": "marple-gym 0.1.0",
     "settings": {"name": "observer", "reads": ["symbolic"], "data": "data/beliefs", ...},
     "answers": [{"id": "test/h000/0000/1.2/121", "type": "1.2", "answer": 0, "posterior": 1.0, "p": [1.0, 0.0]}],
     "scores": {"1.1": {"n": 68, "accuracy": 1.0, "low": 1.0, "high": 1.0, "chance": 0.5, "brier": 0.0, ...}, ...}}

``answer`` is the normative option (0: a, 1: b) and ``posterior`` the exact observer's P(a), so the file is
scored again without the questions. :func:`score_answers` scores answers given by question id (a method's, or
a study's participants': a choice of (a) is ``(1.0, 0.0)``, a slider ``(p, 1 - p)``). Files of the format
before the envelope (``marple-belief-results``, version 1) still load.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from marple_eval.beliefs.scoring import score, score_seeds
from marple_eval.results import Results, creation_time
from marple_gym.beliefs.questions.question import QUESTION_TYPES, BeliefQuestion
from marple_gym.validation import Fields
from marple_gym.version import __version__


def answer_record(question: BeliefQuestion, answer: Sequence[float]) -> dict[str, Any]:
    """One answer as a results file (and a run's journal) holds it."""
    a, b = (min(1.0, max(0.0, float(x))) for x in answer)  # sums of posterior masses: noise in the last bit
    return {"id": question.id, "type": question.type, "answer": question.answer, "posterior": question.posterior,
            "p": [a, b]}  # fmt: skip


def score_answers(questions: Sequence[BeliefQuestion], answers: Mapping[str, Sequence[float]]) -> dict[str, Any]:
    """:func:`~marple_eval.beliefs.scoring.score` of answers given by question id (every question answered;
    an answer is two non-negative numbers that do not both vanish)."""
    missing = [q.id for q in questions if q.id not in answers]
    if missing:
        raise ValueError(f"{len(missing)} questions have no answer, e.g. {missing[0]}")
    for key, p in answers.items():
        if len(p) != 2 or min(p) < 0 or sum(p) <= 0:
            raise ValueError(f"answer to {key}: expected (P(a), P(b)), two numbers >= 0 not both 0, got {list(p)}")
    return score(questions, [tuple(float(x) for x in answers[q.id]) for q in questions])


@dataclass
class BeliefResults(Results):
    """One method's answers to a question set and their scores (see the module docs): the belief family's
    results."""

    family: ClassVar[str] = "beliefs"
    record_keys: ClassVar[tuple[str, ...]] = ("answers", "scores")

    method: str
    settings: dict[str, Any]
    answers: list[dict[str, Any]]
    scores: dict[str, Any]
    created: str = field(default_factory=creation_time)
    generator: str = f"marple-gym {__version__}"
    role: str = "method"

    def records(self) -> dict[str, Any]:
        return {"answers": self.answers, "scores": self.scores}

    @classmethod
    def from_records(cls, top: Fields, envelope: dict[str, Any]) -> BeliefResults:
        top.require("answers", "scores")
        for entry in top.entries("answers"):
            entry.allow(("id", "type", "answer", "posterior", "p")).require("id", "type", "answer", "posterior", "p")
            entry.str("id")
            entry.str("type", choices=QUESTION_TYPES)
            entry.int("answer", low=0, high=1)
            entry.number("posterior", low=0.0, high=1.0)
            p = entry.list("p")
            if len(p) != 2 or not all(isinstance(x, int | float) and x >= 0 for x in p) or sum(p) <= 0:
                raise entry.fail("p", f"expected [P(a), P(b)], two numbers >= 0 not both 0, got {p}")
        scores = top.fields("scores")
        for row in scores.data:
            group = scores.fields(row)
            for key in ("n", "accuracy", "low", "high", "chance", "brier"):
                group.number(key)
        return cls(answers=top.get("answers"), scores=top.get("scores"), **envelope)


class _Answered(NamedTuple):
    """A question as its results record has it: what scoring reads (its type, answer and posterior)."""

    type: str
    answer: int
    posterior: float


def seed_scores(runs: Sequence[BeliefResults]) -> dict[str, Any]:
    """:func:`~marple_eval.beliefs.scoring.score_seeds` of one method's results for several training seeds (each
    run answering the same questions in the same order): accuracy over seeds and questions with the two-way
    interval, and each seed's own."""
    ids = [r["id"] for r in runs[0].answers]
    for run in runs[1:]:
        if [r["id"] for r in run.answers] != ids:
            raise ValueError(f"{run.method}: its seeds' results answer different questions; score them apart")
    questions = [_Answered(r["type"], r["answer"], r["posterior"]) for r in runs[0].answers]
    return score_seeds(questions, [[tuple(r["p"]) for r in run.answers] for run in runs])
