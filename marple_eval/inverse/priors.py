"""Priors over an agent's missions, estimated from that agent's training split only.

An observer knows an agent from its past behaviour (the paper's D_i): here, the
relative frequency of the missions its training trajectories carried out (the
first mission of each). The test episode's labels are never read.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.datasets.manifest import DatasetError
from marple_gym.missions.scenarios import get_scenario

SPLITS = {"in": "train-in", "ood": "train-ood"}


@dataclass(frozen=True)
class MissionPrior:
    """P(mission) for one agent, and where it was estimated."""

    probabilities: dict[str, float]
    source: str
    trajectories: int

    def __post_init__(self) -> None:
        total = sum(self.probabilities.values())
        if not self.probabilities or any(p < 0 for p in self.probabilities.values()) or abs(total - 1.0) > 1e-9:
            raise ValueError(f"a mission prior needs non-negative probabilities summing to 1, got {self.probabilities}")

    def to_json(self) -> dict:
        return {"probabilities": self.probabilities, "source": self.source, "trajectories": self.trajectories}


def estimate_prior(data: MarpleDataset, unit: str, role: str, split: str = "train-in") -> MissionPrior:
    """Relative frequencies of the first mission of each ``split`` trajectory of ``role`` in ``unit``."""
    counts = Counter(record["missions"][0] for record in data.records(unit, split, role) if record["missions"])
    n = sum(counts.values())
    if not n:
        raise DatasetError(
            f"{data.root}: no {split} trajectories of role {role!r} in {unit!r} to estimate a prior from"
        )
    probabilities = {m: c / n for m, c in sorted(counts.items())}
    return MissionPrior(probabilities, f"{data.root}:{unit}/{split}/{role}", n)


@dataclass(frozen=True)
class TrainingPriors:
    """Resources for the protocol: (scenario, role) -> that agent's :class:`MissionPrior` from a training split."""

    data: str
    split: str = "in"

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise ValueError(f"training split must be one of {', '.join(SPLITS)}, got {self.split!r}")

    def __call__(self, scenario: str, role: str) -> dict[str, float]:
        """What a model receives: the probabilities only (the source names the role, which a model must not see)."""
        return dict(self.prior(scenario, role).probabilities)

    def prior(self, scenario: str, role: str) -> MissionPrior:
        return _cached_prior(self.data, scenario, role, SPLITS[self.split])

    def describe(self, scenarios: list[str]) -> dict[str, dict[str, dict]]:
        """Every prior a run uses, with its source, for its results file."""
        return {s: {r: self.prior(s, r).to_json() for r in get_scenario(s).roles} for s in scenarios}


@functools.lru_cache(maxsize=64)
def _cached_prior(data: str, scenario: str, role: str, split: str) -> MissionPrior:
    return estimate_prior(MarpleDataset(data), scenario, role, split)
