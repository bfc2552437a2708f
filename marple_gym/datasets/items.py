"""Sets of plain items: what a family of items (each a JSON object with an ``id``, a ``type`` and its normative
``answer``) writes with the one shard writer, and reads back.

::

    <root>/manifest.json             format "marple-<family>-items", the spec, every shard's file with its SHA-256
    <root>/<split>/items.jsonl       the split's items, one JSON object a line (compact)

A family whose items need no format of their own (a new family's first version, a test's toy family) gets
generation, resuming and strict reading from here: :func:`generate_item_set` calls the family's generator
``make_items(spec, split)`` for each split, on a worker process per split, and :func:`read_item_set` checks every
file against the manifest and every item's keys.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any

from marple_gym.datasets.manifest import DatasetError
from marple_gym.datasets.sharded import Shard, ShardedReport, generate_shards, read_set_manifest, shard_folders
from marple_gym.files import atomic_write
from marple_gym.validation import message_error, read_json_lines

ITEMS = "items.jsonl"
ITEM_KEYS = ("id", "type", "answer")
"""What every item holds (besides anything else its family puts in it)."""
VERSION = 1

Item = dict[str, Any]
ItemMaker = Callable[[Any, str], Iterable[Item]]
"""``make_items(spec, split)``: a split's items, a function of the spec and the split alone."""


def item_format(family: str) -> str:
    """The manifest format of a family's item sets."""
    return f"marple-{family}-items"


def generate_item_set(
    family: str,
    spec: Any,
    make_items: ItemMaker,
    root: str | os.PathLike,
    splits: Sequence[str] = ("test",),
    *,
    workers: int | None = None,
    progress: bool = True,
) -> ShardedReport:
    """Write (or resume writing) the ``splits`` of ``spec`` (a dataclass) into ``root``, a shard per split;
    ``make_items`` is picklable (a top-level function, or a method of a top-level class's instance)."""
    shards = [Shard(split, split, 1, split) for split in splits]
    spec_json = {"family": family, **asdict(spec)}
    writer = partial(_write_items, make_items, type(spec))
    return generate_shards(
        root, item_format(family), VERSION, spec_json, shards, writer, workers=workers, progress=progress
    )


def _write_items(
    make_items: ItemMaker, spec_class: type, spec_json: dict[str, Any], shard: Shard, root: str
) -> list[str]:
    spec = spec_class(**{k: v for k, v in spec_json.items() if k != "family"})
    path = f"{shard.name}/{ITEMS}"
    seen = set()
    # Unsynced: the manifest, synced after each shard, records the file's SHA-256, which resuming and reading check.
    with atomic_write(Path(root) / path, sync=False) as f:
        for n, item in enumerate(make_items(spec, shard.split)):
            _check_item(item, f"{shard.split} item {n}")
            if item["id"] in seen:
                raise ValueError(f"{shard.split} item {n}: id {item['id']!r} is not unique in its split")
            seen.add(item["id"])
            f.write(json.dumps(item, separators=(",", ":")) + "\n")
    return [path]


def _check_item(item: Any, where: str) -> None:
    if not isinstance(item, dict) or any(key not in item for key in ITEM_KEYS):
        raise ValueError(f"{where}: an item is a JSON object with {', '.join(ITEM_KEYS)}, got {item!r}")
    if not isinstance(item["id"], str) or not isinstance(item["type"], str):
        raise ValueError(f"{where}: an item's id and type are strings, got {item['id']!r} and {item['type']!r}")


def read_item_set(family: str, root: str | os.PathLike, split: str = "test") -> list[Item]:
    """The items of a finished set's ``split``, every file checked against the manifest's SHA-256 and every item's
    keys (a :class:`DatasetError` naming the file and line)."""
    manifest = read_set_manifest(root, item_format(family), VERSION, f"marple generate --family {family}")
    items = []
    error = message_error(DatasetError)
    for name in shard_folders(manifest, split):
        path = Path(root) / name / ITEMS
        for n, item in read_json_lines(path, error, "items file").entries:
            try:
                _check_item(item, f"{path}: line {n}")
            except ValueError as exc:
                raise DatasetError(str(exc)) from None
            items.append(item)
    return items


def item_set_spec(family: str, root: str | os.PathLike) -> dict[str, Any]:
    """The spec a finished item set was generated from (without its family)."""
    manifest = read_set_manifest(root, item_format(family), VERSION, f"marple generate --family {family}")
    return {k: v for k, v in manifest["spec"].items() if k != "family"}
