"""The shortcut panel: rules with no theory of mind, which read only the test episode, scored as methods are.

A trial type tests a theory of mind only if nothing short of one orders its
pairs. The panel's rules look at the test alone, never at the familiarisation,
and rate a test by one thing an onlooker can count in it:

* ``steps``: its length in actions (the episode's length);
* ``path-length``: the cells the agent was seen to cover;
* ``turns``: the quarter turns it was seen to make;
* ``detour``: how much longer its path is than the straight way from where it
  started to where it ended ("the straighter path is the expected one");
* ``obstacles-revealed``: how few obstacles a lifted occluder shows ("nothing
  behind the occluder is the surprise").

Beside them the panel holds a learned rater that sees only the test (ToMnet
without the familiarisation, :mod:`marple_agents.tomnet`). Each rule is scored
per type like a method (:func:`~marple_eval.expectations.scoring.accuracy_table`).
A set **passes** when every rule's tie-as-half score on every type lies within
:data:`PASS_BAND`: a rule far below 0.5 is as good as its opposite far above
it, and only the tie-as-half figure treats a rule and its opposite alike
(strictly, a rule that ties on every pair scores 0 and so does its opposite).
:func:`panel_verdict` gives the verdict and the cells outside the band, and
:func:`record_verdict` writes it into the set's manifest.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from marple_eval.expectations.methods import ExpectationMethod
from marple_eval.expectations.scoring import Accuracy
from marple_gym.datasets.sharded import record_check
from marple_gym.expectations.trial import EpisodeEvidence, TrialView
from marple_gym.world.actions import Action
from marple_gym.world.state import CH_FUR

PASS_BAND = (0.40, 0.60)
"""The tie-as-half scores a shortcut rule may reach on a type of a set that passes."""
CHECK = "shortcut_panel"
"""The name the panel's verdict is recorded under in a set's manifest."""


@dataclass(frozen=True)
class Counts:
    """What the panel's rules count in one test episode, as an onlooker sees it (see module docs)."""

    steps: int
    path_length: int
    turns: int
    detour: int
    obstacles_revealed: int


def counts_of(test: EpisodeEvidence) -> Counts:
    """The counts of ``test``: only what the onlooker sees (a stretch behind the occluder counts as the straight
    way between where the agent vanished and where it reappeared)."""
    cells = [(x, y) for x, y, _ in (p for p in test.poses if p is not None)]
    path = sum(abs(a[0] - b[0]) + abs(a[1] - b[1]) for a, b in zip(cells, cells[1:]))
    straight = abs(cells[-1][0] - cells[0][0]) + abs(cells[-1][1] - cells[0][1]) if cells else 0
    turning = {int(Action.left), int(Action.right)}
    revealed = 0
    if test.revealed is not None:
        revealed = int(np.count_nonzero(test.hidden & (test.revealed[..., CH_FUR] > 0)))
    return Counts(
        steps=test.steps,
        path_length=path,
        turns=sum(a in turning for a in test.actions),
        detour=path - straight,
        obstacles_revealed=revealed,
    )


class ShortcutRule(ExpectationMethod):
    """Rates each test by one of its :class:`Counts` (the field ``counts``; negated where ``fewer`` is the cue);
    ``says`` is the cue in words. Each rule is a method of role "shortcut", registered under its ``name``."""

    role = "shortcut"
    reads = frozenset({"test"})
    counts: str = "steps"
    fewer: bool = False
    says: str = ""

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "says": self.says}

    def rate(self, view: TrialView) -> list[float]:
        """The count of each test of ``view``, in its order."""
        sign = -1.0 if self.fewer else 1.0
        return [sign * getattr(counts_of(test), self.counts) for test in view.tests]


class StepsRule(ShortcutRule):
    name, counts, says = "steps", "steps", "the longer test is the surprising one"


class PathLengthRule(ShortcutRule):
    name, counts, says = "path-length", "path_length", "the test that covers more ground is the surprising one"


class TurnsRule(ShortcutRule):
    name, counts, says = "turns", "turns", "the test with more turns is the surprising one"


class DetourRule(ShortcutRule):
    name, counts, says = "detour", "detour", "the straighter path is the expected one"


class ObstaclesRevealedRule(ShortcutRule):
    name, counts, says = "obstacles-revealed", "obstacles_revealed", "an emptier reveal is the surprising one"
    fewer = True


RULES: tuple[ShortcutRule, ...] = (StepsRule(), PathLengthRule(), TurnsRule(), DetourRule(), ObstaclesRevealedRule())
"""The panel's counting rules (the learned test-only rater is in :mod:`marple_agents.tomnet`)."""


@dataclass(frozen=True)
class PanelVerdict:
    """Does a set pass the panel, and which (rule, type) cells lie outside :data:`PASS_BAND`, with their
    tie-as-half scores."""

    passes: bool
    outside: dict[str, dict[str, float]]
    rules: tuple[str, ...]
    types: tuple[str, ...]

    def to_json(self) -> dict:
        return {"passes": self.passes, "band": list(PASS_BAND), "rules": list(self.rules), "types": list(self.types),
                "outside": self.outside}  # fmt: skip

    def summary(self) -> str:
        """One line: passes, or the cells outside the band."""
        low, high = PASS_BAND
        if self.passes:
            return f"shortcut panel: passes (every rule within {low:.2f}-{high:.2f} on every type)"
        cells = "; ".join(
            f"{rule}: " + ", ".join(f"{t} {v:.2f}" for t, v in by_type.items())
            for rule, by_type in self.outside.items()
        )
        return f"shortcut panel: fails ({cells} outside {low:.2f}-{high:.2f}, ties counting half)"


def panel_verdict(tables: Mapping[str, Mapping[str, Accuracy]], types: Sequence[str]) -> PanelVerdict:
    """The verdict of the panel rules' accuracy tables (rule name -> :func:`accuracy_table`) on ``types``."""
    low, high = PASS_BAND
    outside: dict[str, dict[str, float]] = {}
    for rule, table in tables.items():
        for kind in types:
            half = round(table[kind].half, 6)
            if not low <= half <= high:
                outside.setdefault(rule, {})[kind] = half
    return PanelVerdict(not outside, outside, tuple(tables), tuple(types))


def record_verdict(root: str | os.PathLike, verdict: PanelVerdict) -> None:
    """Write ``verdict`` into the manifest of the set in ``root`` (under :data:`CHECK`)."""
    record_check(root, CHECK, verdict.to_json())
