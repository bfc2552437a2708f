"""A surprise rater's results file: its settings, its ratings of every test trial (and, for a learned rater,
of its generalisation tests' splits), from which the tables are computed.

::

    {"format": "marple-expectation-results", "version": 1, "method": "exact", "created": "...",
     "settings": {"data": "data/expectations", "seed": 0, ...},
     "ratings": [{"trial": "goal_preferences/1.1/test/00000", "scenario": "goal_preferences", "type": "1.1",
                  "expected": 0.4, "surprising": 3.1}, ...],
     "generalisation": {"leave_one_type_out": {"without 1.1": [RATING, ...], ...}, ...}}

:meth:`RatingResults.table` is :func:`~marple_eval.expectations.scoring.accuracy_table` of the ratings;
:meth:`RatingResults.generalisation_tables` pools each test whose splits test different types (all, leave one
type or scenario out: one table) and lays out the others split by split (single type or scenario).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from marple_eval.expectations.raters import Rating
from marple_eval.expectations.scoring import (
    GENERALISATION_TESTS,
    POOLED_TESTS,
    Accuracy,
    accuracy_table,
    generalisation_tests,
    matrix,
    pooled,
)
from marple_eval.results import ResultsError, creation_time
from marple_gym.files import write_json_atomic
from marple_gym.validation import Fields, message_error, read_json_file, reader

FORMAT = "marple-expectation-results"
VERSION = 1


def read_rating(entry: Fields) -> Rating:
    """One rating of a results file or a journal, read strictly."""
    entry.allow(("trial", "scenario", "type", "expected", "surprising"))
    entry.require("trial", "scenario", "type", "expected", "surprising")
    return Rating(entry.str("trial"), entry.str("scenario"), entry.str("type"), entry.number("expected"),
                  entry.number("surprising"))  # fmt: skip


@dataclass
class RatingResults:
    """One rater's ratings of a trial set (see the module docs)."""

    method: str
    settings: dict[str, Any]
    ratings: list[Rating]
    generalisation: dict[str, dict[str, list[Rating]]] = field(default_factory=dict)
    created: str = field(default_factory=creation_time)

    def table(self) -> dict[str, Accuracy]:
        return accuracy_table(self.ratings)

    def generalisation_tables(self) -> dict[str, dict[str, Accuracy] | dict[str, dict[str, Accuracy]]]:
        """Test name -> one table (pooled tests) or split label -> table (the others)."""
        out: dict[str, Any] = {}
        for name, splits in self.generalisation.items():
            known = {s.label: s for s in generalisation_tests(name)}
            results = [(known[label], ratings) for label, ratings in splits.items() if label in known]
            out[name] = pooled(results) if name in POOLED_TESTS else matrix(results)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "method": self.method,
            "created": self.created,
            "settings": self.settings,
            "ratings": [r.to_dict() for r in self.ratings],
            "generalisation": {
                name: {label: [r.to_dict() for r in ratings] for label, ratings in splits.items()}
                for name, splits in self.generalisation.items()
            },
        }

    def save(self, path: str | os.PathLike) -> Path:
        """Write atomically."""
        return write_json_atomic(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike) -> RatingResults:
        """Read a results file strictly (:class:`ResultsError` naming the file and the field)."""
        error = message_error(ResultsError)
        top = reader(read_json_file(path, error, "results file"), str(path), error)
        top.allow(("format", "version", "method", "created", "settings", "ratings", "generalisation"))
        top.require("format", "version", "method", "settings", "ratings")
        if top.get("format") != FORMAT:
            raise top.fail("format", f"not an expectation results file (expected {FORMAT!r})")
        if top.get("version") != VERSION:
            raise top.fail("version", f"version {top.get('version')!r} is not supported (expected {VERSION})")
        ratings = [read_rating(e) for e in top.entries("ratings")]
        generalisation: dict[str, dict[str, list[Rating]]] = {}
        tests = top.fields("generalisation", {})
        for name in tests.data:
            if name not in GENERALISATION_TESTS:
                raise tests.fail(name, f"unknown generalisation test; expected one of {GENERALISATION_TESTS}")
            splits = tests.fields(name)
            generalisation[name] = {label: [read_rating(e) for e in splits.entries(label)] for label in splits.data}
        return cls(top.str("method"), top.mapping("settings"), ratings, generalisation, top.str("created", ""))
