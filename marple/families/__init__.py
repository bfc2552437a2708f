"""The families of benchmark items, one object each that the commands call (the contract:
:class:`~marple.families.base.Family`), and the table of them.

:data:`FAMILIES` names this package's: ``whodunit`` (MARPLE's scenarios, the default), ``beliefs`` (MMToM-QA's
belief and goal questions) and ``expectations`` (AGENT's expectation trials). Outside packages add families
through the ``marple.families`` entry-point group (each entry point, named as the family, names its
:class:`~marple.families.base.Family` subclass). :func:`family` finds one by name, :func:`family_of` by a set's
folder, :func:`results_families` by results files.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from importlib.metadata import entry_points
from pathlib import Path

from marple.families.base import Family, FamilyError
from marple_eval.results import read_envelope

FAMILIES = {
    "whodunit": "marple.families.whodunit:WhodunitFamily",
    "beliefs": "marple.families.beliefs:BeliefFamily",
    "expectations": "marple.families.expectations:ExpectationFamily",
}
"""This package's families by name: where each one's class is (imported when it is asked for, so that a command
loads only its family's code)."""
PLUGINS = "marple.families"
"""The entry-point group through which outside packages add families."""
DEFAULT = "whodunit"


def family_names() -> list[str]:
    """Every family's name: this package's, then those plugins add."""
    return [*FAMILIES, *sorted(ep.name for ep in entry_points(group=PLUGINS) if ep.name not in FAMILIES)]


def family(name: str) -> Family:
    """The family called ``name`` (a :class:`FamilyError` naming the families there are)."""
    if name in FAMILIES:
        module, _, attribute = FAMILIES[name].partition(":")
        return getattr(importlib.import_module(module), attribute)()
    for ep in entry_points(group=PLUGINS):
        if ep.name == name:
            made = ep.load()()
            if not isinstance(made, Family) or made.name != name:
                raise FamilyError(f"family plugin {ep.value} ({name}) is not a Family called {name!r}")
            return made
    raise FamilyError(f"--family {name}: no such family; the families are {', '.join(family_names())}")


def family_of(folder: str | Path) -> Family:
    """The family whose set ``folder`` holds; a folder no family recognises is the default family's (whodunit: its
    reader then says what is wrong with it)."""
    for name in family_names():
        found = family(name)
        if found.holds(folder):
            return found
    return family(DEFAULT)


def results_families(paths: Sequence[str | Path]) -> dict[str, list[str | Path]]:
    """Results files grouped by their family, in order (a file that is no readable results file counts as the
    default family's: its reader then says what is wrong with it)."""
    grouped: dict[str, list[str | Path]] = {}
    for path in paths:
        try:
            name = read_envelope(path, allow_nan=True)[1]["family"]
        except (OSError, ValueError):
            name = DEFAULT
        grouped.setdefault(name, []).append(path)
    return grouped


__all__ = ["FAMILIES", "Family", "FamilyError", "family", "family_names", "family_of", "results_families"]
