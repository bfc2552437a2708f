"""What a dataset is: a :class:`DatasetSpec` (units, sizes, seed, house config, splits) and the shards it is cut into.

For each *unit* (a whodunit scenario, or a single mission) and each agent role:

* ``test``: ``test_houses`` houses x ``test_per_house`` episodes. For a
  scenario each test episode is a group: agent A does mission A, agent B does
  mission B (and C, D, ... theirs, in N-suspect scenarios), each in a copy of
  the same house.
* ``train-in``: ``train_per_house`` episodes in each test house, with the
  role's mission preferences.
* ``train-ood``: ``train_ood`` episodes, each in a house of its own.

The work is cut into shards (:class:`ShardTask`), each a pure function of (seed, unit, split, role, house,
episode range): :mod:`marple_gym.datasets.episodes` draws one, :mod:`marple_gym.datasets.generate` runs them all.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from marple_gym.datasets.manifest import SPLITS, DatasetError
from marple_gym.generation.config import HouseConfig
from marple_gym.generation.original import HOUSE_SOURCES, original_config_file, original_house
from marple_gym.missions.mission import get_mission
from marple_gym.missions.scenarios import get_scenario
from marple_gym.missions.suspects import SuspectScenario


@dataclass(frozen=True)
class Sizes:
    """How many houses and episodes each split has."""

    test_houses: int = 10
    test_per_house: int = 50
    train_per_house: int = 500
    train_ood: int = 5000

    def scaled(self, factor: float) -> Sizes:
        """Smaller (or larger) sizes, keeping at least one of everything."""

        def s(n: int) -> int:
            return max(1, round(n * factor))

        return Sizes(s(self.test_houses), s(self.test_per_house), s(self.train_per_house), s(self.train_ood))


PAPER_SIZES = Sizes()


@dataclass(frozen=True)
class Unit:
    """What one part of a dataset is about: a scenario (roles A, B, ...) or one mission (role A).

    ``shared``: the scenario's suspects act at once in one house instead of each in a copy of it.
    ``houses``: where its test and train-in houses come from, new random houses (from the spec's config) or
    the original benchmark's house for the scenario (:mod:`marple_gym.generation.original`).
    """

    name: str
    roles: dict[str, dict[str, float]]
    test_missions: dict[str, str]
    query_mission: str | None = None
    shared: bool = False
    houses: str = "random"

    def __post_init__(self) -> None:
        if self.houses not in HOUSE_SOURCES:
            raise DatasetError(
                f"unit {self.name}: houses must be one of {', '.join(HOUSE_SOURCES)}, got {self.houses!r}"
            )
        if self.houses == "original":
            original_config_file(self.test_missions.values())  # refuses a unit the original benchmark had no house for

    @classmethod
    def scenario(cls, name: str, houses: str = "random") -> Unit:
        s = get_scenario(name)
        if isinstance(s, SuspectScenario):
            return cls(s.name, s.roles, s.test_missions, s.query_of, s.shared, houses)
        return cls(s.name, s.roles, {"A": s.mission_a, "B": s.mission_b}, s.mission_a, houses=houses)

    def to_json(self) -> dict[str, Any]:
        """The unit as a manifest records it (``shared`` and ``houses`` only when not the default, so older
        manifests read the same)."""
        defaults = {"shared": False, "houses": "random"}
        return {k: v for k, v in asdict(self).items() if k not in defaults or v != defaults[k]}

    def house_config(self, config: dict[str, Any] | None) -> HouseConfig:
        """The config of this unit's test and train-in houses, given the spec's (``config``)."""
        if self.houses == "original":
            return original_house(self.test_missions.values())
        return HouseConfig.load(config)

    @classmethod
    def mission(cls, name: str, preferences: dict[str, float] | None = None) -> Unit:
        get_mission(name)
        return cls(name, {"A": dict(preferences or {name: 1.0})}, {"A": name}, name)

    @property
    def missions(self) -> list[str]:
        """Every mission any role may do: the houses must serve them all."""
        names = [m for prefs in self.roles.values() for m, w in prefs.items() if w > 0]
        return list(dict.fromkeys(names + list(self.test_missions.values())))


@dataclass(frozen=True)
class ShardTask:
    """One shard's worth of work."""

    unit: str
    split: str
    role: str
    house: int  # test house index (-1 for train-ood)
    start: int
    count: int

    @property
    def path(self) -> str:
        house = "" if self.house < 0 else f"h{self.house:02d}-"
        return f"{self.unit}/{self.split}/{self.role}/shard-{house}{self.start:05d}.npz"


@dataclass
class DatasetSpec:
    """Everything that determines a dataset's content."""

    units: list[Unit]
    sizes: Sizes = PAPER_SIZES
    seed: int = 0
    config: dict[str, Any] | None = None
    splits: tuple[str, ...] = SPLITS
    shard_size: int = 250

    def to_json(self) -> dict[str, Any]:
        return {
            "units": [u.to_json() for u in self.units],
            "sizes": asdict(self.sizes),
            "seed": self.seed,
            "config": self.config,
            "splits": list(self.splits),
            "shard_size": self.shard_size,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DatasetSpec:
        """The spec of a manifest that :func:`~marple_gym.datasets.manifest.check_spec` accepted (it requires
        every key read here with ``[]``; ``config`` may be absent or null: no config)."""
        return cls(
            units=[Unit(**u) for u in data["units"]],
            sizes=Sizes(**data["sizes"]),
            seed=data["seed"],
            config=data.get("config"),  # optional: check_spec allows it to be left out
            splits=tuple(data["splits"]),
            shard_size=data["shard_size"],
        )

    def unit(self, name: str) -> Unit:
        for u in self.units:
            if u.name == name:
                return u
        raise DatasetError(f"no unit {name!r} in this dataset; it has {', '.join(u.name for u in self.units)}")

    def episodes_of(self, task: ShardTask) -> int:
        """How many trajectories a task's shard holds (a test pair holds one per role)."""
        return task.count * (len(self.unit(task.unit).test_missions) if task.split == "test" else 1)

    def tasks(self) -> list[ShardTask]:
        out = []
        z = self.sizes
        for u in self.units:
            if "test" in self.splits:
                out += [
                    ShardTask(u.name, "test", "+".join(u.roles), k, 0, z.test_per_house) for k in range(z.test_houses)
                ]
            for role in u.roles:
                if "train-in" in self.splits:
                    for k in range(z.test_houses):
                        out += _chunks(u.name, "train-in", role, k, z.train_per_house, self.shard_size)
                if "train-ood" in self.splits:
                    out += _chunks(u.name, "train-ood", role, -1, z.train_ood, self.shard_size)
        return out


def _chunks(unit: str, split: str, role: str, house: int, total: int, size: int) -> list[ShardTask]:
    return [ShardTask(unit, split, role, house, s, min(size, total - s)) for s in range(0, total, size)]
