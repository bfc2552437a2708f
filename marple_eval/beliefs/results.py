"""A belief method's results file: its settings, its answer to every question and the score table.

::

    {"format": "marple-belief-results", "version": 1, "method": "observer", "created": "2026-11-27T10:00:00+00:00",
     "settings": {"name": "observer", "condition": "symbolic", "data": "data/beliefs", ...},
     "answers": [{"id": "test/h000/0000/1.2/121", "type": "1.2", "answer": 0, "posterior": 1.0, "p": [1.0, 0.0]}],
     "scores": {"1.1": {"n": 68, "accuracy": 1.0, "low": 1.0, "high": 1.0, "chance": 0.5, "brier": 0.0, ...}, ...}}

``answer`` is the normative option (0: a, 1: b) and ``posterior`` the exact observer's P(a), so the file is
scored again without the questions. :func:`score_answers` scores answers given by question id (a method's, or
a study's participants': a choice of (a) is ``(1.0, 0.0)``, a slider ``(p, 1 - p)``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from marple_eval.beliefs.scoring import score
from marple_eval.results import ResultsError, creation_time
from marple_gym.beliefs.questions.question import QUESTION_TYPES, BeliefQuestion
from marple_gym.files import write_json_atomic
from marple_gym.validation import message_error, read_json_file, reader

FORMAT = "marple-belief-results"
VERSION = 1


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
class BeliefResults:
    """One method's answers to a question set and their scores (see the module docs)."""

    method: str
    settings: dict[str, Any]
    answers: list[dict[str, Any]]
    scores: dict[str, Any]
    created: str = field(default_factory=creation_time)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "method": self.method, "created": self.created,
                "settings": self.settings, "answers": self.answers, "scores": self.scores}  # fmt: skip

    def save(self, path: str | os.PathLike) -> Path:
        """Write atomically."""
        return write_json_atomic(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike) -> BeliefResults:
        """Read a results file strictly (:class:`ResultsError` naming the file and the field)."""
        top = reader(read_json_file(path, message_error(ResultsError), "results file"), str(path),
                     message_error(ResultsError))  # fmt: skip
        top.allow(("format", "version", "method", "created", "settings", "answers", "scores"))
        top.require("format", "version", "method", "settings", "answers", "scores")
        if top.get("format") != FORMAT:
            raise top.fail("format", f"not a belief results file (expected {FORMAT!r})")
        if top.get("version") != VERSION:
            raise top.fail("version", f"version {top.get('version')!r} is not supported (expected {VERSION})")
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
        return cls(top.str("method"), top.mapping("settings"), top.get("answers"), top.get("scores"),
                   top.str("created", ""))  # fmt: skip
