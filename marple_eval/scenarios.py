"""Whodunit scenarios for evaluation: the paper's five, any unique pair, preference settings.

The scenario table is data shipped with ``marple_gym`` (it also drives dataset
generation); this module is the evaluation-side view, with the paper's
preference settings as named variants (SPEC section 5, paper section 6.4):
``"shower@0.8"`` gives each agent its own mission with probability 0.8.
"""

from __future__ import annotations

from marple_gym.missions.scenarios import (
    SCENARIOS,
    SCENARIOS_VERSION,
    Scenario,
    ScenarioError,
    get_scenario,
    question_for,
    similarity,
)

PREFERENCE_SETTINGS: dict[str, float] = {"pref-1.0": 1.0, "pref-0.8": 0.8, "pref-0.6": 0.6}
"""The paper's mission-preference settings: own mission 1.0, 0.8, 0.6."""

PAPER_SCENARIOS: tuple[str, ...] = tuple(SCENARIOS)
"""In order of difficulty: pillow, shower, snack, plant, laundry."""


def scenario_variants(name: str) -> list[Scenario]:
    """A scenario under each of the paper's preference settings."""
    base = get_scenario(name)
    return [base.with_preference(p) for p in PREFERENCE_SETTINGS.values()]


__all__ = [
    "PAPER_SCENARIOS",
    "PREFERENCE_SETTINGS",
    "SCENARIOS",
    "SCENARIOS_VERSION",
    "Scenario",
    "ScenarioError",
    "get_scenario",
    "question_for",
    "scenario_variants",
    "similarity",
]
