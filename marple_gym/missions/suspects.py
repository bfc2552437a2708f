"""Whodunit with N suspects: query states that several suspects' missions can produce.

The paper poses two suspects and a query state only the culprit's mission
produces (its own limit, paper section 7). Here a scenario names a query state
and N >= 2 suspects, each with a mission; every suspect whose mission produces
the query state may have done it, and the culprit is whoever produced it
first (the others may have been on their way). Scenarios are data
(``data/suspects.json``); a name picks one and its size::

    sandwich-3          three suspects, each in a copy of the house (the paper's setting, generalised)
    sandwich-4-shared   four suspects acting at once in one shared house
    sandwich-3@0.8      each suspect prefers its own mission with 0.8

Roles are labelled A, B, C, ... in the order of the scenario's suspects. No
role is the culprit by definition: which one is depends on the episode.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from functools import cached_property
from importlib import resources

from marple_gym.missions.mission import MISSIONS, Subgoal, get_mission
from marple_gym.missions.questions import ScenarioError, question_for, same_state_change

MAX_SUSPECTS = len(MISSIONS)
"""Every suspect has a mission of its own, so at most one suspect per mission."""

_NAME = re.compile(r"^(?P<key>[a-z_]+)(?:-(?P<n>\d+))?(?P<shared>-shared)?$")


def suspect_labels(n: int) -> tuple[str, ...]:
    """The role labels of ``n`` suspects: A, B, C, ..."""
    if not 1 <= n <= 26:
        raise ScenarioError(f"cannot label {n} suspects (1 to 26)")
    return tuple(chr(ord("A") + i) for i in range(n))


def check_suspects(n: int) -> int:
    """``n`` if it is a valid number of suspects, else a :class:`ScenarioError` saying the range."""
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= MAX_SUSPECTS:
        raise ScenarioError(f"a whodunit needs 2 to {MAX_SUSPECTS} suspects (one mission each), got {n!r}")
    return n


@dataclass(frozen=True)
class SuspectScenario:
    """N suspects with their missions, a query state, and where they act (see module docs)."""

    name: str
    question: str
    query_of: str
    """The mission whose query state is asked about (the records key query steps by it)."""
    missions: tuple[str, ...]
    """One mission per suspect, roles A, B, C, ... in order."""
    shared: bool = False
    preference: float = 1.0

    def __post_init__(self) -> None:
        check_suspects(len(self.missions))
        for m in (self.query_of, *self.missions):
            get_mission(m)
        if len(set(self.missions)) != len(self.missions):
            raise ScenarioError(f"scenario {self.name}: every suspect needs a mission of its own, got {self.missions}")
        if not 0.0 < self.preference <= 1.0:
            raise ScenarioError(f"scenario {self.name}: preference must lie in (0, 1], got {self.preference}")
        if not self.producers:
            raise ScenarioError(
                f"scenario {self.name}: no suspect's mission produces the query state {self.query.name}"
            )

    @property
    def suspects(self) -> int:
        return len(self.missions)

    @property
    def labels(self) -> tuple[str, ...]:
        return suspect_labels(self.suspects)

    @property
    def query(self) -> Subgoal:
        return get_mission(self.query_of).query_subgoal

    @cached_property
    def producers(self) -> tuple[str, ...]:
        """The roles whose mission produces the query state: the possible culprits."""
        return tuple(
            label
            for label, m in zip(self.labels, self.missions)
            if any(same_state_change(sg, self.query) for sg in get_mission(m).subgoals)
        )

    @property
    def test_missions(self) -> dict[str, str]:
        """Each role's mission in test episodes."""
        return dict(zip(self.labels, self.missions))

    @property
    def roles(self) -> dict[str, dict[str, float]]:
        """Mission preferences per role: its own mission with ``preference``, the rest spread evenly over the
        other suspects' missions (with two suspects, the paper's setting)."""
        p = self.preference
        rest = round((1.0 - p) / (self.suspects - 1), 9)
        out = {}
        for label, own in self.test_missions.items():
            prefs = {own: p}
            if rest > 0:
                prefs.update({m: rest for m in self.missions if m != own})
            out[label] = prefs
        return out

    def with_preference(self, preference: float) -> SuspectScenario:
        """The same scenario with every suspect preferring its own mission with ``preference``."""
        suffix = "" if preference == 1.0 else f"@{preference:g}"
        return replace(self, name=self.name.split("@")[0] + suffix, preference=preference)


def _load() -> tuple[int, int, dict[str, dict]]:
    data = json.loads(resources.files("marple_gym.missions").joinpath("data/suspects.json").read_text())
    return data["version"], data["default_suspects"], data["scenarios"]


SUSPECTS_VERSION, DEFAULT_SUSPECTS, SUSPECT_SCENARIOS = _load()
"""The N-suspect scenarios by key (sandwich, light, television, clothes), as the data file gives them."""


def suspect_scenario(key: str, suspects: int = DEFAULT_SUSPECTS, shared: bool = False) -> SuspectScenario:
    """The scenario ``key`` of the data file with ``suspects`` suspects, in copies of a house or one shared."""
    if key not in SUSPECT_SCENARIOS:
        raise ScenarioError(f"unknown N-suspect scenario {key!r}; choose from {', '.join(SUSPECT_SCENARIOS)}")
    check_suspects(suspects)
    spec = SUSPECT_SCENARIOS[key]
    order = list(dict.fromkeys([*spec["suspects"], *MISSIONS]))  # listed first, then the rest in table order
    query = get_mission(spec["query"]).query_subgoal
    name = f"{key}-{suspects}" + ("-shared" if shared else "")
    return SuspectScenario(
        name, spec.get("question") or question_for(query), spec["query"], tuple(order[:suspects]), shared
    )


def parse_suspect_scenario(base: str) -> SuspectScenario | None:
    """The scenario a name such as ``sandwich-3-shared`` stands for (no preference suffix); None if the name is
    not of that form or its key is not an N-suspect scenario."""
    match = _NAME.match(base)
    if match is None or match["key"] not in SUSPECT_SCENARIOS:
        return None
    n = int(match["n"]) if match["n"] else DEFAULT_SUSPECTS
    return suspect_scenario(match["key"], n, bool(match["shared"]))


def suspect_scenarios(suspects: int = DEFAULT_SUSPECTS, shared: bool = False) -> list[SuspectScenario]:
    """Every N-suspect scenario of the data file at this size."""
    return [suspect_scenario(key, suspects, shared) for key in SUSPECT_SCENARIOS]
