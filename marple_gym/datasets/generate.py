"""Generating a dataset into a directory (paper supplement C; SPEC section 7): :func:`generate_dataset`.

The spec (:mod:`marple_gym.datasets.spec`) cuts the work into shards, each drawn by
:func:`marple_gym.datasets.episodes.run_task`; the one shard writer (:func:`marple_gym.datasets.sharded.write_shards`)
runs them on every core in any order, records each in the manifest as it lands, and a killed run resumes by
skipping the shards the manifest already lists (and their files still match).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from marple_gym.datasets.dataset import dataset_fingerprint, load_manifest
from marple_gym.datasets.episodes import run_task, test_house
from marple_gym.datasets.manifest import DATASET_FORMAT, DATASET_VERSION, SPLITS, DatasetError
from marple_gym.datasets.sharded import Shard, write_shards
from marple_gym.datasets.shards import file_sha256
from marple_gym.datasets.spec import DatasetSpec
from marple_gym.files import remove_stale_temporaries
from marple_gym.missions.tables import table_fingerprints
from marple_gym.version import __version__

log = logging.getLogger(__name__)


def _run_shard(spec_json: dict[str, Any], root: str, shard: Shard) -> dict[str, Any]:
    return run_task(DatasetSpec.from_json(spec_json), shard.work, Path(root))


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


def generate_dataset(
    spec: DatasetSpec, root: Path, workers: int | None = None, progress: bool = True
) -> GenerationReport:
    """Generate (or resume generating) ``spec`` into directory ``root``.

    A dataset there made with the same settings but other splits is extended to both's splits: each shard is a
    function of its own split's settings alone, so a split added later holds exactly what it would have held had
    it been generated with the others."""
    start = time.perf_counter()
    root = Path(root)
    manifest = load_manifest(root)
    if manifest is not None:
        spec = with_splits_of(spec, manifest["spec"], root)
        manifest["spec"] = spec.to_json()
    for unit in spec.units:  # a config that cannot serve a unit fails here, before anything is written
        test_house(spec, unit, 0)
    _clean_up_after_a_kill(root)
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
    tasks = spec.tasks()
    manifest["shards"] = {  # those that landed and whose files are still intact
        t.path: manifest["shards"][t.path]
        for t in tasks
        if t.path in manifest["shards"]
        and (root / t.path).is_file()
        and file_sha256(root / t.path) == manifest["shards"][t.path]["sha256"]
    }
    shards = [Shard(t.path, t.split, spec.episodes_of(t), t) for t in tasks]
    before = set(manifest["shards"])
    written, skipped = write_shards(
        root, manifest, shards, partial(_run_shard, spec.to_json(), str(root)), dataset_fingerprint(spec.to_json()),
        workers=workers, progress=progress, unit="traj",
    )  # fmt: skip
    total = sum(e["episodes"] for e in manifest["shards"].values())
    steps = sum(manifest["shards"][s.name]["steps"] for s in shards if s.name not in before)
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
