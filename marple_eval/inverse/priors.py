"""Priors over an agent's missions: what an observer knows of each agent before it sees it act.

:data:`MISSION_PRIORS` names the choices (docs/evaluation.md, "Which prior"):

* ``uniform`` (the default): every agent gets the same uniform prior over the
  scenario's missions, the missions the question puts in play. The observer
  knows what may have happened, not who does what; the posterior over each
  agent's missions then comes from its observed actions alone;
* ``uniform-all``: the same over all ten missions;
* ``labels``: **privileged**. The relative frequency of the missions an agent's
  own training trajectories carried out (the first mission of each, the
  training split's mission labels). In the paper's two-agent setting at
  preference 1.0 it is a point mass on the agent's test mission: the observer
  is told each agent's mission before any evidence. The test episode's labels
  are never read, but the training labels name the answer's mission all the same.

Every results file records which one a run used (``settings.mission_prior``)
and every prior it used with its source (``settings.mission_priors``).
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.datasets.manifest import DatasetError
from marple_gym.missions.scenarios import get_scenario

SPLITS = {"in": "train-in", "ood": "train-ood"}
MISSION_PRIORS = ("uniform", "uniform-all", "labels")
"""The label-free priors (the scenario's missions, or all ten, uniformly) and the privileged training labels."""
DEFAULT_MISSION_PRIOR = "uniform"
PRIVILEGED_PRIORS = frozenset({"labels"})
"""Priors that read the agents' training labels: the answer's mission, in the paper's setting."""


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
    """Resources for the protocol: (scenario, role) -> that agent's :class:`MissionPrior` from a training split's
    mission labels (the privileged ``labels`` prior, see module docs)."""

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


@dataclass(frozen=True)
class UniformPriors:
    """Resources for the protocol: the same uniform prior for every agent, over the scenario's missions
    (``scope="scenario"``) or over all ten (``scope="all"``). Reads no data."""

    scope: str = "scenario"

    def __post_init__(self) -> None:
        if self.scope not in ("scenario", "all"):
            raise ValueError(f"a uniform prior's scope is 'scenario' or 'all', got {self.scope!r}")

    def __call__(self, scenario: str, role: str) -> dict[str, float]:
        """What a model receives: the probabilities (the same for every role, so they name none)."""
        return dict(self.prior(scenario, role).probabilities)

    def prior(self, scenario: str, role: str) -> MissionPrior:
        from marple_gym.missions import MISSIONS
        from marple_gym.missions.scenarios import get_scenario

        if self.scope == "all":
            missions = sorted(MISSIONS)
        else:
            missions = sorted({m for prefs in get_scenario(scenario).roles.values() for m in prefs})
        return MissionPrior({m: 1.0 / len(missions) for m in missions}, f"uniform over the {self._words}", 0)

    @property
    def _words(self) -> str:
        return "scenario's missions" if self.scope == "scenario" else "ten missions"

    def describe(self, scenarios: list[str]) -> dict[str, dict[str, dict]]:
        """Every prior a run uses, with its source, for its results file."""
        from marple_gym.missions.scenarios import get_scenario

        return {s: {r: self.prior(s, r).to_json() for r in get_scenario(s).roles} for s in scenarios}


MissionPriors = TrainingPriors | UniformPriors
"""Resources that give each agent its mission prior, and describe them for the results."""


def mission_priors(name: str, data: str | None = None, split: str | None = None) -> MissionPriors:
    """The priors :data:`MISSION_PRIORS` names: ``labels`` needs the dataset (``data``) and the agent models'
    training split (``split``, ``in`` when None) whose episodes' missions it counts."""
    if name == "uniform":
        return UniformPriors("scenario")
    if name == "uniform-all":
        return UniformPriors("all")
    if name == "labels":
        if data is None:
            raise ValueError("the training-label prior counts each agent's training missions: it needs the dataset")
        return TrainingPriors(str(data), split or "in")
    raise ValueError(f"unknown mission prior {name!r}; choose from {', '.join(MISSION_PRIORS)}")


@functools.lru_cache(maxsize=64)
def _cached_prior(data: str, scenario: str, role: str, split: str) -> MissionPrior:
    return estimate_prior(MarpleDataset(data), scenario, role, split)
