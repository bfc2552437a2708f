"""Generating the benchmark's datasets (paper supplement C; SPEC section 7).

For each *unit* (a whodunit scenario, or a single mission) and each agent role:

* ``test``: ``test_houses`` houses x ``test_per_house`` episodes. For a
  scenario each test episode is a group: agent A does mission A, agent B does
  mission B (and C, D, ... theirs, in N-suspect scenarios), each in a copy of
  the same house. Where several suspects' missions produce the query state, a
  group in which two suspects produce it first at the same step (no one
  culprit) is drawn again with the next redraw number in its seed.
* ``train-in``: ``train_per_house`` episodes in each test house, with the
  role's mission preferences.
* ``train-ood``: ``train_ood`` episodes, each in a house of its own.

The work is cut into shards, each a pure function of (seed, unit, split, role,
house, episode range), so shards can run on any core in any order and a killed
run resumes by skipping the shards the manifest already lists. Each shard is
written atomically; the manifest is rewritten atomically after each shard.
"""

from __future__ import annotations

import hashlib
import logging
import multiprocessing as mp
import os
import shutil
import zlib
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from marple_gym.datasets.manifest import DATASET_FORMAT, DATASET_VERSION, SPLITS, DatasetError, check_manifest
from marple_gym.datasets.shards import write_shard
from marple_gym.files import remove_stale_temporaries, write_json_atomic
from marple_gym.generation.config import AgentSpec, HouseConfig
from marple_gym.generation.generator import generate_world
from marple_gym.generation.original import HOUSE_SOURCES, original_config_file, original_house
from marple_gym.missions.mission import get_mission
from marple_gym.missions.scenarios import get_scenario
from marple_gym.missions.suspects import SuspectScenario
from marple_gym.missions.tables import check_tables, table_fingerprints
from marple_gym.planner.planner import HierarchicalPlanner
from marple_gym.recording.recorder import record_trajectory
from marple_gym.recording.records import Trajectory, WhodunitEpisode, first_producer
from marple_gym.validation import message_error, read_json_file
from marple_gym.version import __version__

MANIFEST = "manifest.json"
log = logging.getLogger(__name__)
_SPLIT_CODE = {"house": 0, "test": 1, "train-in": 2, "train-ood": 3}
MAX_REDRAWS = 50
PRACTICE_HOUSE = 2**30
"""House index of practice pairs (:func:`practice_pair`): past any test house a dataset can have."""
"""How often a test group without one first producer is drawn again before generation gives up."""


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


# ---- houses and episodes ----------------------------------------------------------------------------------


def _rng(spec: DatasetSpec, unit: str, split: str, *keys: int) -> np.random.Generator:
    return np.random.default_rng([spec.seed, zlib.crc32(unit.encode()), _SPLIT_CODE[split], *keys])


def _role_code(role: str) -> int:
    return zlib.crc32(role.encode())


def _without_agents(config: HouseConfig) -> HouseConfig:
    return replace(config, agents=[AgentSpec()])


def test_house(spec: DatasetSpec, unit: Unit, k: int) -> HouseConfig:
    """The explicit config of test house ``k`` of a unit (deterministic)."""
    world = generate_world(unit.house_config(spec.config), _rng(spec, unit.name, "house", k), unit.missions)
    return _without_agents(world.house.source["config"])


def _episode(
    house: HouseConfig, house_id: str, role: str, rng: np.random.Generator, seed: int, **planner
) -> Trajectory:
    """One agent's episode in a known house, starting at a random free cell."""
    world = generate_world(replace(house, agents=[AgentSpec(name=role)]), rng)
    agent = HierarchicalPlanner(world, rng=rng, **planner)
    return record_trajectory(world, agent, house=house, house_id=house_id, seed=seed)


def _shared_training_episode(
    unit: Unit, house: HouseConfig, house_id: str, role: str, rng: np.random.Generator, seed: int, **new_house
) -> Trajectory:
    """A training episode of a shared-house unit: every role acts with its preferences; ``role``'s is kept."""
    from marple_gym.recording.role_episodes import shared_episode

    planners = {r: {"preferences": prefs} for r, prefs in unit.roles.items()}
    _, trajectories = shared_episode(house, planners, rng, house_id=house_id, seed=seed, **new_house)
    return trajectories[list(unit.roles).index(role)]


def _ood_episode(spec: DatasetSpec, unit: Unit, role: str, i: int) -> Trajectory:
    rng = _rng(spec, unit.name, "train-ood", _role_code(role), i)
    if unit.shared:
        config = HouseConfig.load(spec.config)
        return _shared_training_episode(unit, config, f"ood-{role}-{i:05d}", role, rng, i, missions=unit.missions)
    config = replace(HouseConfig.load(spec.config), agents=[AgentSpec(name=role)])
    world = generate_world(config, rng, unit.missions)
    house = _without_agents(world.house.source["config"])
    agent = HierarchicalPlanner(world, rng=rng, preferences=unit.roles[role])
    return record_trajectory(world, agent, house=house, house_id=f"ood-{role}-{i:05d}", seed=i)


def _test_group(spec: DatasetSpec, unit: Unit, house: HouseConfig, house_id: str, k: int, i: int) -> list[Trajectory]:
    """Test episode ``i`` of house ``k``: one trajectory per role, each in its own copy of the house (or all in
    the one house, for a shared unit), drawn again (the redraw number joins the seed) until exactly one
    suspect produced the query state first."""
    for redraw in range(MAX_REDRAWS):
        again = (redraw,) if redraw else ()  # the first draw keeps the seeds of datasets made before redraws
        if unit.shared:
            from marple_gym.recording.role_episodes import shared_episode

            planners = {role: {"mission": mission} for role, mission in unit.test_missions.items()}
            rng = _rng(spec, unit.name, "test", k, i, *again)
            group = shared_episode(house, planners, rng, house_id=house_id, seed=i)[1]
            if first_producer(group, unit.query_mission, shared=True) is not None:
                return group
            continue
        group = [
            _episode(
                house, house_id, role, _rng(spec, unit.name, "test", k, i, _role_code(role), *again), i, mission=mission
            )
            for role, mission in unit.test_missions.items()
        ]
        if len(group) < 2 or unit.query_mission is None or first_producer(group, unit.query_mission) is not None:
            return group
    raise DatasetError(
        f"{unit.name}: test episode {i} of house {k}: no draw in {MAX_REDRAWS} had one suspect produce the "
        "query state first; the house cannot serve this scenario"
    )


def practice_pair(spec: DatasetSpec, unit_name: str, i: int) -> WhodunitEpisode:
    """Whodunit pair ``i`` of a unit in a house of its own, for practice trials (a study's habituation block).

    Drawn like the test pairs, from the spec's seed, in house :data:`PRACTICE_HOUSE`, which no split uses:
    the same dataset settings give the same practice pairs, and none of them is a pair that is scored.
    """
    unit = spec.unit(unit_name)
    house = test_house(spec, unit, PRACTICE_HOUSE)
    group = _test_group(spec, unit, house, f"{unit.name}-practice", PRACTICE_HOUSE, i)
    culprit = first_producer(group, unit.query_mission, unit.shared)
    return WhodunitEpisode(
        unit.name, unit.query_mission, tuple(group), culprit, f"{unit.name}/practice/{i:03d}", unit.shared
    )


def run_task(spec: DatasetSpec, task: ShardTask, root: Path) -> dict[str, Any]:
    """Generate and write one shard; return its manifest entry."""
    unit = spec.unit(task.unit)
    extra: dict[str, Any] = {"unit": unit.name, "split": task.split, "role": task.role}
    trajectories: list[Trajectory] = []
    if task.split == "train-ood":
        trajectories = [_ood_episode(spec, unit, task.role, i) for i in range(task.start, task.start + task.count)]
    else:
        house = test_house(spec, unit, task.house)
        house_id = f"{unit.name}-house-{task.house:02d}"
        for i in range(task.start, task.start + task.count):
            if task.split == "test":
                group = _test_group(spec, unit, house, house_id, task.house, i)
                extra.setdefault("groups", []).append(list(range(len(trajectories), len(trajectories) + len(group))))
                trajectories += group
                extra.setdefault("ids", []).append(f"{unit.name}/h{task.house:02d}/{i:03d}")
            else:
                rng = _rng(spec, unit.name, "train-in", _role_code(task.role), task.house, i)
                if unit.shared:
                    trajectories.append(_shared_training_episode(unit, house, house_id, task.role, rng, i))
                else:
                    prefs = unit.roles[task.role]
                    trajectories.append(_episode(house, house_id, task.role, rng, i, preferences=prefs))
        if task.split == "test":
            extra["roles"] = list(unit.test_missions)
            extra["query_mission"] = unit.query_mission
    path = root / task.path
    write_shard(path, trajectories, extra)
    return {
        "sha256": file_sha256(path),
        "episodes": len(trajectories),
        "steps": int(sum(t.length for t in trajectories)),
        "split": task.split,
        "unit": task.unit,
        "role": task.role,
    }


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---- the job ----------------------------------------------------------------------------------------------


def _worker(args: tuple[dict[str, Any], ShardTask, str]) -> tuple[str, dict[str, Any]]:
    spec_json, task, root = args
    return task.path, run_task(DatasetSpec.from_json(spec_json), task, Path(root))


@dataclass
class GenerationReport:
    """What a :func:`generate_dataset` call did."""

    root: Path
    shards_written: int
    shards_skipped: int
    episodes: int
    steps: int
    seconds: float = 0.0
    manifest: dict[str, Any] = field(default_factory=dict)


def load_manifest(root: Path) -> dict[str, Any] | None:
    """The checked manifest of dataset directory ``root``, or None when there is none.

    Raises :class:`DatasetError` naming the file and field when the manifest is
    damaged: not its schema, shards that its spec does not make, or shards
    missing from a manifest that says it is complete.
    """
    path = Path(root) / MANIFEST
    if not path.is_file():
        return None
    manifest = check_manifest(read_json_file(path, message_error(DatasetError), "manifest"), str(path))
    check_tables(manifest.get("tables"), str(path))
    spec = DatasetSpec.from_json(manifest["spec"])
    tasks = {t.path: t for t in spec.tasks()}
    for shard, entry in manifest["shards"].items():
        if shard not in tasks:
            raise DatasetError(f"{path}: shards.{shard}: not a shard of the dataset this manifest describes")
        task = tasks[shard]
        made = {"split": task.split, "unit": task.unit, "role": task.role, "episodes": spec.episodes_of(task)}
        for key, value in made.items():
            if entry[key] != value:  # the spec (its sizes, say) or the entry was edited after generation
                raise DatasetError(
                    f"{path}: shards.{shard}.{key}: {entry[key]!r}, but the spec makes {value!r}; the manifest was "
                    "edited or damaged"
                )
    missing = sorted(set(tasks) - set(manifest["shards"]))
    if manifest["complete"] and missing:
        raise DatasetError(
            f"{path}: complete: the manifest says the dataset is complete but does not list {len(missing)} of "
            f"its {len(tasks)} shards (e.g. {missing[0]}); the manifest was edited or damaged"
        )
    return manifest


def generate_dataset(
    spec: DatasetSpec, root: Path, workers: int | None = None, progress: bool = True
) -> GenerationReport:
    """Generate (or resume generating) ``spec`` into directory ``root``.

    A dataset there made with the same settings but other splits is extended to both's splits: each shard is a
    function of its own split's settings alone, so a split added later holds exactly what it would have held had
    it been generated with the others."""
    import time

    start = time.perf_counter()
    root = Path(root)
    manifest = load_manifest(root)
    if manifest is not None:
        spec = with_splits_of(spec, manifest["spec"], root)
        manifest["spec"] = spec.to_json()
    for unit in spec.units:  # a config that cannot serve a unit fails here, before anything is written
        test_house(spec, unit, 0)
    created, fresh = not root.exists(), manifest is None
    _clean_up_after_a_kill(root)
    root.mkdir(parents=True, exist_ok=True)
    if manifest is None:
        manifest = {
            "format": DATASET_FORMAT,
            "version": DATASET_VERSION,
            "generator": f"marple-gym {__version__}",
            "tables": table_fingerprints(),
            "spec": spec.to_json(),
            "shards": {},
            "complete": False,
        }
    try:
        written, skipped, steps = _run_tasks(spec, root, manifest, workers, progress)
    except BaseException:
        _clean_up_after_a_kill(root)  # the workers were terminated, perhaps mid-write
        if not manifest["shards"]:  # nothing worth keeping: leave nothing behind
            if created:
                shutil.rmtree(root, ignore_errors=True)
            elif fresh:
                (root / MANIFEST).unlink(missing_ok=True)
        else:
            log.warning(
                "%s keeps the %d shards written so far; run the same command again to resume",
                root,
                len(manifest["shards"]),
            )
        raise
    manifest["complete"] = True
    write_json_atomic(root / MANIFEST, manifest)
    total = sum(e["episodes"] for e in manifest["shards"].values())
    return GenerationReport(root, written, skipped, total, steps, time.perf_counter() - start, manifest)


def with_splits_of(spec: DatasetSpec, found: dict[str, Any], root: Path) -> DatasetSpec:
    """``spec`` with the splits of the dataset ``found`` at ``root`` added, if it was made with the same settings
    but for its splits (else a :class:`DatasetError`)."""
    if {**found, "splits": []} != {**spec.to_json(), "splits": []}:
        raise DatasetError(
            f"{root} holds a dataset generated with other settings; choose another --out or remove it first"
        )
    splits = set(spec.splits) | set(found["splits"])
    return replace(spec, splits=tuple(split for split in SPLITS if split in splits))


def _clean_up_after_a_kill(root: Path) -> None:
    """Remove the temporary files a killed generation (or its terminated workers) left half-written."""
    removed = remove_stale_temporaries(root) if root.is_dir() else []
    if removed:
        log.warning(
            "%s: removed %d half-written temporary file(s) left by a generation that was stopped", root, len(removed)
        )


def _run_tasks(
    spec: DatasetSpec, root: Path, manifest: dict[str, Any], workers: int | None, progress: bool
) -> tuple[int, int, int]:
    """Write the shards the manifest lacks, recording each as it lands: (written, skipped, steps)."""
    from tqdm import tqdm

    tasks = spec.tasks()
    done = {
        t.path
        for t in tasks
        if t.path in manifest["shards"]
        and (root / t.path).is_file()
        and file_sha256(root / t.path) == manifest["shards"][t.path]["sha256"]
    }
    pending = [t for t in tasks if t.path not in done]
    manifest["complete"] = False
    write_json_atomic(root / MANIFEST, manifest)
    episodes = sum(spec.episodes_of(t) for t in pending)
    bar = tqdm(total=episodes, unit="traj", desc="generating", disable=not progress)
    workers = workers or os.cpu_count() or 1
    jobs = [(spec.to_json(), t, str(root)) for t in pending]
    written = steps = 0
    if workers > 1 and len(jobs) > 1:
        # Not "fork": forking a process that runs threads (a logger's, a server's) can copy a lock held by one of
        # them into the child, which then hangs; the fork server starts its workers from a clean process.
        ctx = mp.get_context("forkserver") if "forkserver" in mp.get_all_start_methods() else mp.get_context("spawn")
        pool = ctx.Pool(min(workers, len(jobs)))
        results = pool.imap_unordered(_worker, jobs)
    else:
        pool = None
        results = map(_worker, jobs)
    try:
        for path, entry in results:
            manifest["shards"][path] = entry
            write_json_atomic(root / MANIFEST, manifest)
            bar.update(entry["episodes"])
            written += 1
            steps += entry["steps"]
    finally:
        bar.close()
        if pool is not None:
            pool.terminate()
            pool.join()
    return written, len(done), steps
