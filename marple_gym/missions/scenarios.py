"""Whodunit scenarios: two missions and a query state only agent A's mission produces.

The five paper scenarios are data (``data/scenarios.json``); any pair of
missions makes a scenario with :meth:`Scenario.from_missions`, which refuses a
query state that agent B's mission also produces. ``preference`` gives each
agent its own mission with that probability and the other agent's mission
otherwise (the paper's 1.0 / 0.8 / 0.6 settings).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, replace
from importlib import resources

from marple_gym.missions.mission import Mission, Subgoal, get_mission
from marple_gym.missions.questions import ScenarioError, question_for, same_state_change
from marple_gym.missions.suspects import SUSPECT_SCENARIOS, SuspectScenario, parse_suspect_scenario


@dataclass(frozen=True)
class Scenario:
    """Agent A (the culprit) and agent B, their mission preferences, and the question."""

    name: str
    question: str
    mission_a: str
    mission_b: str
    preference: float = 1.0
    paper_horizon: float | None = None
    paper_similarity: float | None = None

    def __post_init__(self) -> None:
        for m in (self.mission_a, self.mission_b):
            get_mission(m)
        if self.mission_a == self.mission_b:
            raise ScenarioError(f"scenario {self.name}: the two agents need different missions")
        if not 0.5 <= self.preference <= 1.0:
            raise ScenarioError(f"scenario {self.name}: preference must lie in [0.5, 1], got {self.preference}")
        query = self.query
        clash = [sg for sg in get_mission(self.mission_b).subgoals if same_state_change(sg, query)]
        if clash:
            raise ScenarioError(
                f"scenario {self.name}: the query state {query.name} is not unique to {self.mission_a}; "
                f"{self.mission_b} produces it too"
            )

    @classmethod
    def from_missions(cls, mission_a: str, mission_b: str, preference: float = 1.0) -> Scenario:
        """A scenario for any pair of missions whose A-side query state B never produces."""
        query = get_mission(mission_a).query_subgoal
        return cls(f"{mission_a}-vs-{mission_b}", question_for(query), mission_a, mission_b, preference)

    @property
    def query_mission(self) -> Mission:
        return get_mission(self.mission_a)

    @property
    def query(self) -> Subgoal:
        return self.query_mission.query_subgoal

    @property
    def roles(self) -> dict[str, dict[str, float]]:
        """Mission preferences of agents A and B."""
        p, q = self.preference, round(1.0 - self.preference, 9)
        prefs_a = {self.mission_a: p, self.mission_b: q} if q > 0 else {self.mission_a: 1.0}
        prefs_b = {self.mission_b: p, self.mission_a: q} if q > 0 else {self.mission_b: 1.0}
        return {"A": prefs_a, "B": prefs_b}

    def with_preference(self, preference: float) -> Scenario:
        """The same scenario with both agents preferring their own mission with ``preference``."""
        suffix = "" if preference == 1.0 else f"@{preference:g}"
        return replace(self, name=self.name.split("@")[0] + suffix, preference=preference)


def similarity(mission_a: str, mission_b: str) -> float:
    """Mission similarity (supplement A.3): (J(subgoal actions) + 0.5 J(subgoal rooms)) / 1.5."""
    a, b = get_mission(mission_a).subgoals, get_mission(mission_b).subgoals

    def jaccard(x: set, y: set) -> float:
        return len(x & y) / len(x | y)

    actions = jaccard({s.action for s in a}, {s.action for s in b})
    rooms = jaccard({s.room for s in a}, {s.room for s in b})
    return (actions + 0.5 * rooms) / 1.5


def _load() -> tuple[int, dict[str, Scenario]]:
    data = json.loads(resources.files("marple_gym.missions").joinpath("data/scenarios.json").read_text())
    return data["version"], {name: Scenario(name=name, **spec) for name, spec in data["scenarios"].items()}


SCENARIOS_VERSION, SCENARIOS = _load()
"""The paper's five scenarios by short name: pillow, shower, snack, plant, laundry."""


def get_scenario(name: str) -> Scenario | SuspectScenario:
    """A paper scenario by name, ``name@0.8`` for a preference variant, ``missionA-vs-missionB``, or an
    N-suspect scenario such as ``sandwich-3`` or ``sandwich-3-shared`` (:mod:`marple_gym.missions.suspects`)."""
    base, at, pref = name.partition("@")
    if at and not pref.strip():
        raise ScenarioError(f"scenario {name!r}: no preference after '@'; write e.g. {base}@0.8, or {base} alone")
    if base in SCENARIOS:
        scenario = SCENARIOS[base]
    elif "-vs-" in base:
        scenario = Scenario.from_missions(*base.split("-vs-", 1))
    elif (suspects := parse_suspect_scenario(base)) is not None:
        scenario = suspects
    else:
        close = difflib.get_close_matches(base, [*SCENARIOS, *SUSPECT_SCENARIOS], n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ScenarioError(
            f"unknown scenario {name!r}{hint}; use one of {', '.join(SCENARIOS)}, 'missionA-vs-missionB', or an "
            f"N-suspect scenario ({', '.join(f'{k}-3' for k in SUSPECT_SCENARIOS)}; '-shared' for one house)"
        )
    if pref:
        try:
            scenario = scenario.with_preference(float(pref))
        except ValueError as exc:
            raise ScenarioError(f"scenario {name!r}: bad preference {pref!r} ({exc})") from None
    return scenario
