"""The one shard writer: every generated family's data (whodunit datasets, belief question sets, expectation
trial sets) is written in shards under a manifest by :func:`write_shards`.

A shard is a piece of the data that is a function of the spec and the shard alone, so shards are written in any
order, on worker processes, with a progress bar. Each lands as whole files and is then recorded in the manifest,
which is rewritten atomically after each shard: the manifest is the run's journal, and a killed run resumes with
the shards it lacks. Each shard's entry also records the fingerprint of the spec it was made from
(:func:`spec_fingerprint`), so a manifest whose spec was edited afterwards is refused (:func:`check_fingerprints`)
rather than read as another set.

The belief and expectation families' sets (:func:`generate_shards`) share one manifest layout::

    {"format": "marple-belief-questions", "version": 1, "generator": "marple-gym 0.1.0",
     "spec": {...what the set is a function of...},
     "shards": {"test/shard-00000": {"split": "test", "items": 41, "spec": "<sha256 of the spec>",
                                     "files": {"test/shard-00000/questions.jsonl": "<sha256>", ...}}},
     "complete": true,
     "checks": {"shortcut_panel": {...}}}     # optional: what checks of the finished set found

A folder holding a set of another spec is refused, the differing settings named. :func:`read_set_manifest` reads
a finished set's manifest strictly and checks every file against its checksum; :func:`record_check` notes what
a check of the finished set found (the expectation family's shortcut panel) in its manifest. (Whodunit datasets
keep their own manifest, :mod:`marple_gym.datasets.manifest`, written by the same :func:`write_shards`.)
"""

from __future__ import annotations

import hashlib
import json
import logging
import multiprocessing as mp
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from tqdm import tqdm

from marple_gym.datasets.manifest import MANIFEST, DatasetError, check_sha256
from marple_gym.datasets.shards import file_sha256
from marple_gym.files import remove_stale_temporaries, write_json_atomic
from marple_gym.validation import message_error, read_json_file, reader
from marple_gym.version import __version__

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Shard:
    """One shard to write: its name (unique in the set: the manifest's key), its split, how many items
    (trajectories, questions, trials) it holds for the progress bar, and what the writing function needs
    (picklable)."""

    name: str
    split: str
    items: int
    work: Any


ShardWriter = Callable[[dict[str, Any], Shard, str], list[str]]
"""A set's ``writer(spec, shard, root) -> files written``: the paths, relative to ``root``, of the shard's files,
each written whole. A top-level function, so that worker processes can run it."""


@dataclass
class ShardedReport:
    """What a :func:`generate_shards` call did."""

    root: Path
    written: int
    skipped: int
    items: int
    manifest: dict[str, Any]


def spec_fingerprint(spec: dict[str, Any]) -> str:
    """The SHA-256 of a spec as canonical JSON (sorted keys, no spaces): what each shard's entry records."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def check_fingerprints(path: str | os.PathLike, manifest: dict[str, Any], wanted: str) -> None:
    """Every shard entry of ``manifest`` (read from ``path``) that records a spec fingerprint records ``wanted``,
    the fingerprint of the manifest's spec: else the spec was edited after the shard was written (a
    :class:`DatasetError` naming the shard). Entries written before fingerprints were recorded carry none and are
    not checked."""
    for name, entry in manifest["shards"].items():
        if entry.get("spec", wanted) != wanted:
            raise DatasetError(
                f"{path}: spec: differs from the spec shard {name} was generated from; the manifest was edited or "
                "damaged (generate the set again into a new folder)"
            )


def write_shards(
    root: Path,
    manifest: dict[str, Any],
    shards: Sequence[Shard],
    write: Callable[[Shard], dict[str, Any]],
    fingerprint: str,
    *,
    workers: int | None = None,
    progress: bool = True,
    desc: str = "generating",
    unit: str = "item",
) -> tuple[int, int]:
    """Write the ``shards`` that ``manifest`` does not list as landed (``manifest["shards"]`` holds those; the
    caller has checked them against their files) into ``root``, recording each one's entry, ``write(shard)``
    plus the spec's ``fingerprint``, as it lands; returns (written, skipped). ``write`` is picklable (a top-level
    function or a partial of one): with ``workers`` > 1 it runs on that many worker processes.

    The manifest is rewritten atomically after each shard and, at the end, lists the shards in ``shards``' order
    with ``complete`` true. If the run fails or is interrupted, half-written temporary files are removed; when no
    shard had landed, nothing is left behind (the folder, if this run created it, or else a manifest it started).
    """
    created = not root.exists()
    fresh = not (root / MANIFEST).is_file()
    landed = manifest["shards"]
    pending = [s for s in shards if s.name not in landed]
    skipped = len(shards) - len(pending)
    root.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(root)  # half-written files of a killed run: never the files themselves
    manifest["complete"] = False
    write_json_atomic(root / MANIFEST, manifest)
    bar = tqdm(total=sum(s.items for s in pending), unit=unit, desc=desc, disable=not progress)
    workers = min(workers or os.cpu_count() or 1, len(pending))
    pool = None
    if workers > 1:
        # The fork server, not fork: forking a process that runs threads can copy a lock one of them holds.
        ctx = mp.get_context("forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
        pool = ctx.Pool(workers)
        results = pool.imap_unordered(partial(_landed, write), pending)
    else:
        results = map(partial(_landed, write), pending)
    try:
        for shard, entry in results:
            landed[shard.name] = {**entry, "spec": fingerprint}
            write_json_atomic(root / MANIFEST, manifest)
            bar.update(shard.items)
    except BaseException:
        if pool is not None:
            pool.terminate()
            pool.join()
            pool = None
        remove_stale_temporaries(root)  # the workers were terminated, perhaps mid-write
        if not landed and created:
            shutil.rmtree(root, ignore_errors=True)  # nothing worth keeping
        elif not landed and fresh:
            (root / MANIFEST).unlink(missing_ok=True)
        elif landed:
            log.warning("%s keeps the %d shards written so far; run the same command again to resume", root,
                        len(landed))  # fmt: skip
        raise
    finally:
        bar.close()
        if pool is not None:
            pool.close()
            pool.join()
    manifest["shards"] = {s.name: landed[s.name] for s in shards}  # in the spec's order, whatever order they landed
    manifest["complete"] = True
    write_json_atomic(root / MANIFEST, manifest)
    return len(pending), skipped


def _landed(write: Callable[[Shard], dict[str, Any]], shard: Shard) -> tuple[Shard, dict[str, Any]]:
    return shard, write(shard)


def generate_shards(
    root: str | os.PathLike,
    fmt: str,
    version: int,
    spec: dict[str, Any],
    shards: Sequence[Shard],
    writer: ShardWriter,
    *,
    workers: int | None = None,
    progress: bool = True,
    unit: str = "item",
) -> ShardedReport:
    """Write (or resume writing) ``shards`` of the set ``spec`` into ``root`` (see the module docs)."""
    root = Path(root)
    items = sum(s.items for s in shards)
    if not items:
        raise DatasetError(f"{root}: the spec asks for no items, so there is no {fmt} set to write")
    manifest = _open(root, fmt, version, spec)
    intact = {s.name for s in shards if s.name in manifest["shards"] and _intact(root, manifest["shards"][s.name])}
    if manifest["complete"] and intact == set(manifest["shards"]) == {s.name for s in shards}:
        return ShardedReport(root, 0, len(intact), items, manifest)  # finished: left alone
    manifest["shards"] = {name: entry for name, entry in manifest["shards"].items() if name in intact}
    write = partial(_set_shard, writer, manifest["spec"], str(root))
    written, skipped = write_shards(
        root, manifest, shards, write, spec_fingerprint(manifest["spec"]), workers=workers, progress=progress,
        desc=f"generating {fmt}", unit=unit,
    )  # fmt: skip
    return ShardedReport(root, written, skipped, items, manifest)


def _set_shard(writer: ShardWriter, spec: dict[str, Any], root: str, shard: Shard) -> dict[str, Any]:
    """A set's shard written, as its manifest entry: its split, items and files with their SHA-256."""
    files = writer(spec, shard, root)
    return {"split": shard.split, "items": shard.items, "files": {f: file_sha256(Path(root) / f) for f in files}}


def _open(root: Path, fmt: str, version: int, spec: dict[str, Any]) -> dict[str, Any]:
    """The folder's manifest if it holds this set (or a new one); another set's is refused by name."""
    path = root / MANIFEST
    if not path.is_file():
        if root.is_dir() and any(root.iterdir()):
            raise DatasetError(f"{root} is not empty and holds no set's {MANIFEST}; choose another folder")
        return {
            "format": fmt,
            "version": version,
            "generator": f"marple-gym {__version__}",
            "spec": _plain(spec),
            "shards": {},
            "complete": False,
        }
    manifest = _check(read_json_file(path, message_error(DatasetError), "manifest"), str(path))
    if manifest["format"] != fmt:
        raise DatasetError(f"{path}: holds a {manifest['format']} set, not {fmt}; choose another folder")
    check_fingerprints(path, manifest, spec_fingerprint(manifest["spec"]))
    theirs, ours = _flat(manifest["spec"]), _flat(_plain(spec))
    if theirs != ours:
        keys = sorted(k for k in {*theirs, *ours} if theirs.get(k) != ours.get(k))
        raise DatasetError(
            f"{root} holds a set generated with other settings ({', '.join(keys)}); choose another folder or "
            "remove it first"
        )
    return manifest


def _plain(data: Any) -> Any:
    """``data`` as JSON reads it back (tuples as lists)."""
    return json.loads(json.dumps(data))


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A nested spec as dotted keys (``questions.test_houses``), so that a refusal names the setting."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict) and value:
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _intact(root: Path, entry: dict[str, Any]) -> bool:
    return all((root / f).is_file() and file_sha256(root / f) == sha for f, sha in entry["files"].items())


def _check(data: Any, file: str) -> dict[str, Any]:
    """A set manifest, every key known and typed (:class:`DatasetError` naming the file and the field)."""
    top = reader(data, file, message_error(DatasetError))
    top.allow(("format", "version", "generator", "spec", "shards", "complete", "checks")).require(
        "format", "version", "spec", "shards", "complete"
    )
    top.str("format")
    top.int("version", low=1)
    top.str("generator", None)
    top.mapping("spec")
    top.bool("complete")
    top.mapping("checks", {})
    shards = top.fields("shards")
    for name in shards.data:
        entry = shards.fields(name).allow(("split", "items", "files", "spec")).require("split", "items", "files")
        entry.str("split")
        entry.int("items", low=0)
        if entry.has("spec"):
            check_sha256(entry, "spec")
        files = entry.fields("files")
        for f in files.data:
            check_sha256(files, f)
            if Path(f).is_absolute() or ".." in Path(f).parts:
                raise files.fail(f, "a shard's file must lie inside the set's folder")
    return data


def read_set_manifest(root: str | os.PathLike, fmt: str, version: int, command: str) -> dict[str, Any]:
    """The manifest of the finished set in ``root`` of format ``fmt``, every file checked against its SHA-256;
    a :class:`DatasetError` names the file at fault (``command`` is the one that writes such a set)."""
    root = Path(root)
    path = root / MANIFEST
    if not path.is_file():
        raise DatasetError(f"{root}: no {MANIFEST} here; write a set with `{command}`")
    manifest = _check(read_json_file(path, message_error(DatasetError), "manifest"), str(path))
    if manifest["format"] != fmt:
        raise DatasetError(f"{path}: a {manifest['format']} set, not {fmt}")
    if manifest["version"] != version:
        raise DatasetError(f"{path}: version {manifest['version']} is not supported (expected {version})")
    if not manifest["complete"]:
        raise DatasetError(f"{root}: its generation did not finish; run the same `{command}` again to resume it")
    check_fingerprints(path, manifest, spec_fingerprint(manifest["spec"]))
    for name, entry in manifest["shards"].items():
        for f, sha in entry["files"].items():
            if not (root / f).is_file():
                raise DatasetError(f"{root / f}: missing (shard {name} of {path})")
            if file_sha256(root / f) != sha:
                raise DatasetError(f"{root / f}: its SHA-256 differs from the one {path} records: changed or damaged")
    return manifest


def shard_folders(manifest: dict[str, Any], split: str) -> list[str]:
    """The names (folders under the root) of a manifest's shards of ``split``, in order."""
    return [name for name, entry in manifest["shards"].items() if entry["split"] == split]


def record_check(root: str | os.PathLike, name: str, result: dict[str, Any]) -> None:
    """Record ``result``, what check ``name`` found on the finished set in ``root``, in its manifest (replacing
    an earlier result of that check; the shards and their checksums are left as they are)."""
    path = Path(root) / MANIFEST
    manifest = _check(read_json_file(path, message_error(DatasetError), "manifest"), str(path))
    if not manifest["complete"]:
        raise DatasetError(f"{root}: its generation did not finish; a check needs the whole set")
    manifest.setdefault("checks", {})[name] = _plain(result)
    write_json_atomic(path, manifest)
