"""An expectation method's results: the results envelope (:class:`~marple_eval.results.Results`), then its
ratings of every test trial (and, for a learned method, of its generalisation tests' splits), from which the
tables are computed.

::

    {"format": "marple-results", "version": 3, "family": "expectations", "method": "observer",
     "role": "answer_key", "created": "...", "generator": "marple-gym 0.1.0",
     "settings": {"data": "data/expectations", "seed": 0, ...},
     "ratings": [{"trial": "goal_preferences/1.1/test/00000", "scenario": "goal_preferences", "type": "1.1",
                  "expected": 0.4, "surprising": 3.1}, ...],
     "generalisation": {"leave_one_type_out": {"without 1.1": [RATING, ...], ...}, ...}}

:meth:`RatingResults.table` is :func:`~marple_eval.expectations.scoring.accuracy_table` of the ratings;
:meth:`RatingResults.generalisation_tables` pools each test whose splits test different types (all, leave one
type or scenario out: one table) and lays out the others split by split (single type or scenario). Files of the
format before the envelope (``marple-expectation-results``, version 1) still load.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from marple_eval.expectations.methods import Rating
from marple_eval.expectations.scoring import (
    GENERALISATION_TESTS,
    POOLED_TESTS,
    Accuracy,
    accuracy_table,
    generalisation_tests,
    matrix,
    pooled,
)
from marple_eval.results import Results, creation_time
from marple_gym.validation import Fields
from marple_gym.version import __version__


def read_rating(entry: Fields) -> Rating:
    """One rating of a results file or a journal, read strictly."""
    entry.allow(("trial", "scenario", "type", "expected", "surprising"))
    entry.require("trial", "scenario", "type", "expected", "surprising")
    return Rating(entry.str("trial"), entry.str("scenario"), entry.str("type"), entry.number("expected"),
                  entry.number("surprising"))  # fmt: skip


@dataclass
class RatingResults(Results):
    """One method's ratings of a trial set (see the module docs): the expectation family's results."""

    family: ClassVar[str] = "expectations"
    record_keys: ClassVar[tuple[str, ...]] = ("ratings", "generalisation")

    method: str
    settings: dict[str, Any]
    ratings: list[Rating]
    generalisation: dict[str, dict[str, list[Rating]]] = field(default_factory=dict)
    created: str = field(default_factory=creation_time)
    generator: str = f"marple-gym {__version__}"
    role: str = "method"

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

    def records(self) -> dict[str, Any]:
        return {
            "ratings": [r.to_dict() for r in self.ratings],
            "generalisation": {
                name: {label: [r.to_dict() for r in ratings] for label, ratings in splits.items()}
                for name, splits in self.generalisation.items()
            },
        }

    @classmethod
    def from_records(cls, top: Fields, envelope: dict[str, Any]) -> RatingResults:
        top.require("ratings")
        ratings = [read_rating(e) for e in top.entries("ratings")]
        generalisation: dict[str, dict[str, list[Rating]]] = {}
        tests = top.fields("generalisation", {})
        for name in tests.data:
            if name not in GENERALISATION_TESTS:
                raise tests.fail(name, f"unknown generalisation test; expected one of {GENERALISATION_TESTS}")
            splits = tests.fields(name)
            generalisation[name] = {label: [read_rating(e) for e in splits.entries(label)] for label in splits.data}
        return cls(ratings=ratings, generalisation=generalisation, **envelope)
