"""Scoring a family of plain items: each item holds an ``id``, a ``type`` and its normative ``answer``
(:mod:`marple_gym.datasets.items`), a method answers it, and an answer scores 1 when it equals the normative one.

What a family without scoring of its own gets: the family's call on the one method contract (:class:`ItemMethod`,
``answer(item)``), the accuracy per type and overall with 95 % bootstrap intervals over items (:func:`score_items`),
the results envelope's records for it (:class:`ItemResults`) and the table that sets methods side by side, grouped
by their role (:func:`format_items_table`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from marple_eval.methods.base import ROLES, Method
from marple_eval.metrics import bootstrap_interval, few_trials_warning
from marple_eval.plots import plot_accuracy_bars
from marple_eval.results import ENVELOPE, Results, creation_time, read_envelope
from marple_gym.validation import Fields
from marple_gym.version import __version__

ALL = "all"


class ItemMethod(Method, ABC):
    """Answers a family's plain items; a family of items subclasses it and sets ``family``."""

    @abstractmethod
    def answer(self, item: Mapping[str, Any]) -> Any:
        """The method's answer to ``item`` (compared with ``item["answer"]``)."""


def answer_record(item: Mapping[str, Any], given: Any) -> dict[str, Any]:
    """One answer as a results file (and a run's journal) holds it."""
    return {"id": item["id"], "type": item["type"], "answer": item["answer"], "given": given,
            "credit": float(given == item["answer"])}  # fmt: skip


def score_items(records: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per type (in order of first appearance) and :data:`ALL`: ``n``, ``accuracy`` and its 95 % bootstrap
    interval ``low``-``high`` over items, and a warning for groups too small to compare."""
    if not records:
        raise ValueError("no answers to score")
    groups: dict[str, list[float]] = {}
    for record in records:
        groups.setdefault(record["type"], []).append(float(record["credit"]))
    groups[ALL] = [float(r["credit"]) for r in records]
    out = {}
    for kind, credits in groups.items():
        low, high = bootstrap_interval(np.array(credits)[:, None])
        out[kind] = {"n": len(credits), "accuracy": float(np.mean(credits)), "low": float(low[0]),
                     "high": float(high[0]), "warning": few_trials_warning(len(credits))}  # fmt: skip
    return out


@dataclass
class ItemResults(Results):
    """One method's answers to a family's items and their scores: the results of a family of plain items (its
    ``family`` recorded in the envelope; see :mod:`marple_eval.results`)."""

    family: ClassVar[str] = "items"
    record_keys: ClassVar[tuple[str, ...]] = ("answers", "scores")

    method: str
    settings: dict[str, Any]
    answers: list[dict[str, Any]]
    scores: dict[str, Any]
    created: str = field(default_factory=creation_time)
    generator: str = f"marple-gym {__version__}"
    role: str = "method"
    of: str = "items"
    """The family whose items these are (written as the envelope's ``family``)."""

    def envelope(self) -> dict[str, Any]:
        return {**super().envelope(), "family": self.of}

    def records(self) -> dict[str, Any]:
        return {"answers": self.answers, "scores": self.scores}

    @classmethod
    def from_records(cls, top: Fields, envelope: dict[str, Any]) -> ItemResults:
        top.require("answers", "scores")
        for entry in top.entries("answers"):
            entry.allow(("id", "type", "answer", "given", "credit")).require("id", "type", "answer", "given", "credit")
            entry.str("id")
            entry.str("type")
            entry.number("credit", low=0.0, high=1.0)
        scores = top.fields("scores")
        for row in scores.data:
            group = scores.fields(row)
            for key in ("n", "accuracy", "low", "high"):
                group.number(key)
        return cls(answers=top.get("answers"), scores=top.get("scores"), **envelope)

    @classmethod
    def load_of(cls, family: str, path: str | Path) -> ItemResults:
        """Read the results file of ``family``'s items at ``path`` strictly."""
        top, envelope = read_envelope(path)
        found = envelope.pop("family")
        if found != family:
            raise top.fail("family", f"results of {found}, not of {family}")
        top.allow((*ENVELOPE, *cls.record_keys))
        return cls.from_records(top, {**envelope, "of": family})


def by_role(runs: Sequence[Any]) -> list[Any]:
    """Results in the order tables show them: methods, then shortcuts, then the answer key (each kept in order)."""
    return sorted(runs, key=lambda run: ROLES.index(run.role) if run.role in ROLES else 0)


def row_name(run: Any) -> str:
    """How a table names a run: its method, the answer key marked as such (the ceiling, never a method's row)."""
    return f"{run.method} (answer key)" if run.role == "answer_key" else run.method


def format_items_table(runs: Sequence[ItemResults]) -> str:
    """A Markdown table of accuracy per type with intervals and n, one column per run, grouped by role."""
    runs = by_role(runs)
    rows = list(dict.fromkeys(k for r in runs for k in r.scores if k != ALL)) + [ALL]
    names = [row_name(r) for r in runs]
    lines = ["| type | n | " + " | ".join(names) + " |", "| --- | --- |" + " --- |" * len(names)]
    for row in rows:
        n = next(r.scores[row]["n"] for r in runs if row in r.scores)
        cells = [
            f"{r.scores[row]['accuracy']:.2f} [{r.scores[row]['low']:.2f}, {r.scores[row]['high']:.2f}]"
            if row in r.scores
            else ""
            for r in runs
        ]
        lines.append(f"| {row} | {n} | " + " | ".join(cells) + " |")
    return "Accuracy per type, 95 % bootstrap intervals:\n\n" + "\n".join(lines)


def plot_items(runs: Sequence[ItemResults], path: str | Path, title: str | None = None) -> Path:
    """Save a PNG of accuracy per type (and overall) with 95 % intervals, one bar per run."""
    runs = by_role(runs)
    columns = list(dict.fromkeys(k for r in runs for k in r.scores if k != ALL)) + [ALL]
    bars = {row_name(r): {k: (g["accuracy"], g["low"], g["high"]) for k, g in r.scores.items()} for r in runs}
    return plot_accuracy_bars(bars, columns, path, "accuracy", title, chance=None)
