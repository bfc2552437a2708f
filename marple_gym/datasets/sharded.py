"""Sets written in shards under a manifest: the machinery every generated family shares besides the whodunit
datasets' own (:mod:`marple_gym.datasets.generate`).

A set is a folder with ``manifest.json``::

    {"format": "marple-belief-questions", "version": 1, "generator": "marple-gym 0.1.0",
     "spec": {...what the set is a function of...},
     "shards": {"test/shard-00000": {"split": "test", "items": 41,
                                     "files": {"test/shard-00000/questions.jsonl": "<sha256>", ...}}},
     "complete": true,
     "checks": {"shortcut_panel": {...}}}     # optional: what checks of the finished set found

:func:`generate_shards` writes the shards a manifest lacks (each by a top-level function, on worker processes,
with a progress bar), recording each with its files' SHA-256 as it lands, so a killed run resumes where it
stopped and a finished one is left alone; a folder holding a set of another spec is refused, the differing
settings named. :func:`read_set_manifest` reads a finished set's manifest strictly and checks every file
against its checksum; :func:`record_check` notes what a check of the finished set found (the expectation
family's shortcut panel) in its manifest.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from marple_gym.datasets.manifest import MANIFEST, DatasetError
from marple_gym.datasets.shards import file_sha256
from marple_gym.files import remove_stale_temporaries, write_json_atomic
from marple_gym.validation import message_error, read_json_file, reader
from marple_gym.version import __version__


@dataclass(frozen=True)
class Shard:
    """One shard to write: its name (unique in the set; a folder under the root or a label), its split, how many items (questions,
    trials) it holds for the progress bar, and what the writing function needs (picklable)."""

    name: str
    split: str
    items: int
    work: Any


ShardWriter = Callable[[dict[str, Any], Shard, str], list[str]]
"""``writer(spec, shard, root) -> files written``: the paths, relative to ``root``, of the shard's files, each
written atomically. A top-level function, so that worker processes can run it."""


@dataclass
class ShardedReport:
    """What a :func:`generate_shards` call did."""

    root: Path
    written: int
    skipped: int
    items: int
    manifest: dict[str, Any]


def _worker(args: tuple[ShardWriter, dict[str, Any], Shard, str]) -> tuple[Shard, list[str]]:
    writer, spec, shard, root = args
    return shard, writer(spec, shard, root)


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
    manifest = _open(root, fmt, version, spec)
    created = not root.exists()
    root.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(root)  # half-written files of a killed run: never the files themselves
    done = {s.name for s in shards if s.name in manifest["shards"] and _intact(root, manifest["shards"][s.name])}
    manifest["shards"] = {name: entry for name, entry in manifest["shards"].items() if name in done}
    pending = [s for s in shards if s.name not in done]
    if not pending and manifest["complete"] and set(manifest["shards"]) == {s.name for s in shards}:
        return ShardedReport(root, 0, len(done), sum(s.items for s in shards), manifest)  # finished: left alone
    manifest["complete"] = False
    write_json_atomic(root / MANIFEST, manifest)
    bar = tqdm(total=sum(s.items for s in pending), unit=unit, desc=f"generating {fmt}", disable=not progress)
    jobs = [(writer, spec, s, str(root)) for s in pending]
    workers = min(workers or os.cpu_count() or 1, len(jobs))
    pool = None
    if workers > 1:
        # The fork server, not fork: forking a process that runs threads can copy a lock one of them holds.
        ctx = mp.get_context("forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
        pool = ctx.Pool(workers)
        results = pool.imap_unordered(_worker, jobs)
    else:
        results = map(_worker, jobs)
    try:
        for shard, files in results:
            manifest["shards"][shard.name] = {
                "split": shard.split,
                "items": shard.items,
                "files": {f: file_sha256(root / f) for f in files},
            }
            write_json_atomic(root / MANIFEST, manifest)
            bar.update(shard.items)
    except BaseException:
        if pool is not None:
            pool.terminate()
            pool.join()
            pool = None
        remove_stale_temporaries(root)
        if created and not manifest["shards"]:
            shutil.rmtree(root, ignore_errors=True)  # nothing worth keeping
        raise
    finally:
        bar.close()
        if pool is not None:
            pool.close()
            pool.join()
    manifest["shards"] = {s.name: manifest["shards"][s.name] for s in shards}  # in the spec's order
    manifest["complete"] = True
    write_json_atomic(root / MANIFEST, manifest)
    items = sum(s.items for s in shards)
    return ShardedReport(root, len(pending), len(done), items, manifest)


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
        entry = shards.fields(name).allow(("split", "items", "files")).require("split", "items", "files")
        entry.str("split")
        entry.int("items", low=0)
        files = entry.fields("files")
        for f in files.data:
            sha = files.str(f)
            if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
                raise files.fail(f, f"expected 64 hex digits, got {sha[:70]!r}")
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
