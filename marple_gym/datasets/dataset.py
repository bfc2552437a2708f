"""Reading a generated dataset: episodes, whodunit pairs and training samples.

::

    data = MarpleDataset("data/marple")
    for episode in data.whodunit("laundry"):          # test pairs
        ...
    samples = data.samples("laundry", "train-in", role="A")
    samples.vision, samples.action, samples.subgoal   # numpy arrays for training
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from marple_gym.datasets.manifest import MANIFEST, DatasetError, check_manifest
from marple_gym.datasets.sharded import check_fingerprints, spec_fingerprint
from marple_gym.datasets.shards import ShardError, file_sha256, read_shard, read_shard_meta
from marple_gym.datasets.spec import DatasetSpec
from marple_gym.missions.tables import check_tables
from marple_gym.recording.records import Trajectory, WhodunitEpisode, first_producer
from marple_gym.validation import message_error, read_json_file

log = logging.getLogger(__name__)


def dataset_fingerprint(spec: dict[str, Any]) -> str:
    """The fingerprint of a dataset spec that each shard's entry records: the spec without its splits (a shard is
    a function of its own split's settings alone, so a dataset extended by another split keeps its shards)."""
    return spec_fingerprint({k: v for k, v in spec.items() if k != "splits"})


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
    check_fingerprints(path, manifest, dataset_fingerprint(spec.to_json()))  # a setting edited that counts miss
    missing = sorted(set(tasks) - set(manifest["shards"]))
    if manifest["complete"] and missing:
        raise DatasetError(
            f"{path}: complete: the manifest says the dataset is complete but does not list {len(missing)} of "
            f"its {len(tasks)} shards (e.g. {missing[0]}); the manifest was edited or damaged"
        )
    return manifest


@dataclass
class Samples:
    """(observation, action, subgoal) training samples, one row per action taken.

    ``subgoal`` columns are the codes of the current subgoal's action, object,
    furniture and room (0 where a subgoal names no object, and all -1 once the
    mission is done). ``house`` names the house of each sample, so training and
    validation can be split by house.
    """

    vision: np.ndarray  # (N, H, W, 8) uint8
    action: np.ndarray  # (N,) int64
    subgoal: np.ndarray  # (N, 4) int64: action, object, furniture, room
    audio: np.ndarray  # (N,) int64: the sound of the action taken (what a listener hears next)
    house: np.ndarray  # (N,) str
    episode: np.ndarray  # (N,) int64 index of the trajectory the sample comes from

    def __len__(self) -> int:
        return len(self.action)

    def select(self, mask: np.ndarray) -> Samples:
        return Samples(*(getattr(self, f)[mask] for f in self.__dataclass_fields__))


def subgoal_codes(trajectory: Trajectory) -> np.ndarray:
    """(T+1, 4) codes of the current subgoal (action, object, furniture, room) per observation."""
    out = np.full((trajectory.length + 1, 4), -1, dtype=np.int64)
    for t in range(trajectory.length + 1):
        sg = trajectory.subgoal_at(t)
        if sg is not None:
            out[t] = sg.codes
    return out


class MarpleDataset:
    """A dataset directory written by ``marple generate``."""

    def __init__(self, root: str | Path, verify: bool = True) -> None:
        self.root = Path(root)
        manifest = load_manifest(self.root)
        if manifest is None:
            raise DatasetError(f"{self.root}: no dataset here (no manifest.json); create one with `marple generate`")
        self.manifest = manifest
        self.spec = DatasetSpec.from_json(manifest["spec"])
        self.verify = verify

    @property
    def complete(self) -> bool:
        return bool(self.manifest.get("complete"))

    def missing_shards(self) -> list[str]:
        """Shards the spec makes that the manifest does not list (an interrupted generation)."""
        return [t.path for t in self.spec.tasks() if t.path not in self.manifest["shards"]]

    def check_complete(self, allow_incomplete: bool = False) -> None:
        """Refuse an incomplete dataset (or, with ``allow_incomplete``, log a warning)."""
        if self.complete:
            return
        missing, total = len(self.missing_shards()), len(self.spec.tasks())
        message = (
            f"{self.root / MANIFEST}: the dataset is incomplete ({missing} of {total} shards missing: its generation "
            "was interrupted); finish it by running the same `marple generate` command again"
        )
        if not allow_incomplete:
            raise DatasetError(message + ", or pass --allow-incomplete to use the shards that are there")
        log.warning("%s; using the shards that are there (--allow-incomplete)", message)

    @cached_property
    def units(self) -> list[str]:
        return [u.name for u in self.spec.units]

    def shards(self, unit: str, split: str, role: str | None = None) -> list[str]:
        """Shard paths of one unit and split (and role), in generation order."""
        self.spec.unit(unit)
        return [
            t.path
            for t in self.spec.tasks()
            if t.unit == unit
            and t.split == split
            and (role is None or t.role == role)
            and t.path in self.manifest["shards"]
        ]

    def _read(self, path: str) -> tuple[list[Trajectory], dict]:
        trajectories, meta = read_shard(self._checked(path))
        self._check_listing(path, meta, len(trajectories))
        return trajectories, meta

    def _checked(self, path: str) -> Path:
        """The shard file of ``path``, its checksum checked against the manifest's (when verifying)."""
        full = self.root / path
        if self.verify:
            expected = self.manifest["shards"][path]["sha256"]
            if not full.is_file():
                raise ShardError(
                    f"{full}: shard file is missing; run `marple generate` again with the same settings to restore it"
                )
            if file_sha256(full) != expected:
                raise ShardError(
                    f"{full}: checksum mismatch (the shard is truncated or was modified); "
                    "delete it and run `marple generate` again with the same settings to restore it"
                )
        return full

    def _check_listing(self, path: str, meta: dict, episodes: int) -> None:
        """A shard of another split or unit copied here (and its checksum put in the manifest) is named, not misread."""
        entry = self.manifest["shards"][path]
        found = [meta.get(key) for key in ("unit", "split", "role")] + [episodes]
        listed = [entry[key] for key in ("unit", "split", "role", "episodes")]
        if found != listed:
            raise ShardError(
                f"{self.root / path}: holds {found[3]} {found[1]} trajectories of unit {found[0]!r} role {found[2]!r}, "
                f"but the manifest lists it as {listed[3]} {listed[1]} trajectories of unit {listed[0]!r} role "
                f"{listed[2]!r}; was it copied from another dataset or split?"
            )

    def trajectories(self, unit: str, split: str, role: str | None = None) -> Iterator[Trajectory]:
        """Every trajectory of a unit's split (test pairs come as consecutive trajectories)."""
        for path in self.shards(unit, split, role):
            yield from self._read(path)[0]

    def records(self, unit: str, split: str, role: str | None = None) -> Iterator[dict]:
        """The record of every trajectory of a unit's split, as :meth:`trajectories` lists them, without its
        observations: ``house_id``, ``seed``, ``agent``, ``missions``, ``spans`` (mission, subgoal, start, end,
        achieved) and ``query_steps``. Reads each shard's metadata only: counting what the agents did is cheap."""
        for path in self.shards(unit, split, role):
            meta = read_shard_meta(self._checked(path))
            self._check_listing(path, meta, len(meta["episodes"]))
            yield from meta["episodes"]

    def whodunit(self, unit: str) -> Iterator[WhodunitEpisode]:
        """The test split as whodunit episodes: the culprit is the suspect that produced the query state first
        (agent A in the paper's scenarios, where no other suspect can)."""
        shared = self.spec.unit(unit).shared
        for path in self.shards(unit, "test"):
            trajectories, meta = self._read(path)
            if meta.get("query_mission") is None or len(meta.get("roles", [])) < 2:
                raise DatasetError(f"{unit}: test episodes are single-agent; generate a scenario for whodunit pairs")
            for group, episode_id in zip(meta["groups"], meta["ids"]):
                suspects = tuple(trajectories[i] for i in group)
                culprit = first_producer(suspects, meta["query_mission"], shared)
                if culprit is None:
                    raise DatasetError(
                        f"{self.root / path}: {episode_id}: no one suspect produced the query state first"
                    )
                yield WhodunitEpisode(unit, meta["query_mission"], suspects, culprit, episode_id, shared)

    def whodunit_episode(self, episode_id: str) -> WhodunitEpisode:
        """The test pair ``episode_id`` ("laundry/h00/003"); a :class:`DatasetError` naming the nearest ids if
        there is none (an unknown unit: the units there are)."""
        unit = episode_id.split("/", 1)[0]
        ids = []
        for episode in self.whodunit(unit):
            if episode.episode_id == episode_id:
                return episode
            ids.append(episode.episode_id)
        nearest = difflib.get_close_matches(episode_id, ids, n=3, cutoff=0.0)
        raise DatasetError(
            f"{self.root}: no episode {episode_id!r}; the nearest of its {len(ids)} {unit} pairs: {', '.join(nearest)}"
        )

    def samples(self, unit: str, split: str, role: str = "A", limit: int | None = None) -> Samples:
        """Training samples: each observation before an action, the action, and the subgoal then."""
        vision, action, subgoal, audio, house, episode = [], [], [], [], [], []
        for i, tr in enumerate(self.trajectories(unit, split, role)):
            if limit is not None and i >= limit:
                break
            n = tr.length
            vision.append(tr.vision[:n])
            action.append(tr.actions.astype(np.int64))
            subgoal.append(subgoal_codes(tr)[:n])
            audio.append(tr.audio[1 : n + 1].astype(np.int64))
            house.append(np.full(n, tr.house_id))
            episode.append(np.full(n, i, dtype=np.int64))
        if not action:
            raise DatasetError(f"{self.root}: no {split} trajectories for {unit!r} role {role!r}")
        return Samples(
            np.concatenate(vision),
            np.concatenate(action),
            np.concatenate(subgoal),
            np.concatenate(audio),
            np.concatenate(house),
            np.concatenate(episode),
        )
