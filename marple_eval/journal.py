"""A run's journal: the items a run has finished, appended one JSON line at a time beside its results file, so
that an interrupted run resumes where it stopped (every results-writing run uses it: the whodunit protocol,
the belief and expectation families).

The first line is the run's header (what a journal must match to be resumed: method and settings); every
other line one finished item. A last line cut short by a crash is dropped with a warning; a header of another
run, or any other line that is not JSON, is a :class:`~marple_eval.results.ResultsError` naming the journal
(and the line, or the settings that differ).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from marple_eval.results import ResultsError
from marple_gym.validation import message_error, read_json_lines


def journal_path(out: str | os.PathLike) -> Path:
    """The journal beside results file ``out``."""
    return Path(f"{out}.journal.jsonl")


def differing_settings(found: Any, header: dict[str, Any]) -> str:
    """Words for how a journal's header differs from this run's: the keys whose values differ."""
    found = found if isinstance(found, dict) else {}
    ours = json.loads(json.dumps(header))
    keys = sorted(k for k in {*found, *ours} if found.get(k) != ours.get(k))
    return f"other settings ({', '.join(keys)})"


class Journal:
    """The journal at ``path`` of the run described by ``header`` (see the module docs); ``mismatch`` words how
    another run's header differs (default: :func:`differing_settings`)."""

    def __init__(
        self,
        path: str | os.PathLike,
        header: dict[str, Any],
        mismatch: Callable[[Any, dict[str, Any]], str] = differing_settings,
    ) -> None:
        self.path = Path(path)
        self.header = header
        self.mismatch = mismatch

    def entries(self) -> list[tuple[int, Any]]:
        """(line number, item) of every finished item; none when there is no journal."""
        if not self.path.is_file():
            return []
        read = read_json_lines(self.path, message_error(ResultsError), "journal", drop_torn_tail=True)
        if read.torn_tail:  # cut it off, so that the next item starts a line of its own
            with open(self.path, "r+b") as f:
                f.truncate(self.path.stat().st_size - read.torn_tail)
        lines = read.entries
        if not lines:
            return []
        if lines[0][1] != json.loads(json.dumps(self.header)):
            raise ResultsError(
                f"{self.path}: a journal left by a run of {self.mismatch(lines[0][1], self.header)}; delete it or "
                "choose another --out"
            )
        return lines[1:]

    def append(self, item: Any) -> None:
        """Add a finished item, on disk before this returns; the first starts the journal with the header."""
        if not self.path.is_file():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(self.header) + "\n")
        with open(self.path, "a") as f:
            f.write(json.dumps(item) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def remove(self) -> None:
        """Delete the journal (its run's results are saved)."""
        self.path.unlink(missing_ok=True)
