"""Generating a dataset into a directory (paper supplement C; SPEC section 7): :func:`generate_dataset`.

The spec (:mod:`marple_gym.datasets.spec`) cuts the work into shards; a process pool draws them
(:func:`marple_gym.datasets.episodes.run_task`) on every core in any order, and a killed run resumes by skipping
the shards the manifest already lists. Each shard is written atomically; the manifest is rewritten atomically
after each shard.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import shutil
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from marple_gym.datasets.dataset import load_manifest
from marple_gym.datasets.episodes import run_task, test_house
from marple_gym.datasets.manifest import DATASET_FORMAT, DATASET_VERSION, MANIFEST, SPLITS, DatasetError
from marple_gym.datasets.shards import file_sha256
from marple_gym.datasets.spec import DatasetSpec, ShardTask
from marple_gym.files import remove_stale_temporaries, write_json_atomic
from marple_gym.missions.tables import table_fingerprints
from marple_gym.version import __version__

log = logging.getLogger(__name__)


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
