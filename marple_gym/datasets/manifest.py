"""The dataset manifest's schema (``manifest.json``, format ``marple-dataset``, version 1).

::

    {"format": "marple-dataset", "version": 1, "generator": "marple-gym 0.1.0",
     "spec": {"units": [{"name": "laundry", "roles": {"A": {"do_laundry": 0.8, ...}, "B": {...}},
                         "test_missions": {"A": "do_laundry", "B": "change_outfit"}, "query_mission": "do_laundry"}],
              "sizes": {"test_houses": 10, "test_per_house": 50, "train_per_house": 500, "train_ood": 5000},
              "seed": 0, "config": null, "splits": ["test", "train-in", "train-ood"], "shard_size": 250},
     "shards": {"laundry/test/A+B/shard-h00-00000.npz": {"sha256": "...", "episodes": 100, "steps": 5120,
                                                        "split": "test", "unit": "laundry", "role": "A+B"}},
     "complete": true}

:func:`check_manifest` reads such a document strictly (every key known, every
value typed and in range, the house config valid) and returns it unchanged;
the generator checks the shard list against the spec's tasks.
"""

from __future__ import annotations

from typing import Any

from marple_gym.errors import MarpleError
from marple_gym.generation.config import HouseConfig, HouseConfigError
from marple_gym.generation.original import HOUSE_SOURCES
from marple_gym.validation import Fields, message_error

MANIFEST = "manifest.json"
"""The manifest's file name in a dataset directory."""
DATASET_FORMAT = "marple-dataset"
DATASET_VERSION = 1
SPLITS = ("test", "train-in", "train-ood")
MAX_SIZE = 10_000_000
"""Largest count of houses or episodes a spec may ask for (the paper's largest is 5,000)."""
MAX_SHARDS = 1_000_000
"""Most shards a dataset may have: the task list is built in memory."""

SIZE_KEYS = ("test_houses", "test_per_house", "train_per_house", "train_ood")
SHARD_KEYS = ("sha256", "episodes", "steps", "split", "unit", "role")
"""A shard entry's keys; besides them, ``spec``: the fingerprint of the spec it was made from
(:func:`marple_gym.datasets.sharded.spec_fingerprint`), absent from manifests written before it was recorded."""


class DatasetError(MarpleError, RuntimeError):
    """A dataset directory that cannot be generated into or read."""


def shard_count(units: list[dict[str, Any]], sizes: dict[str, int], splits: list[str], shard_size: int) -> int:
    """How many shards a spec makes, computed without listing them."""
    chunks = -(-sizes["train_per_house"] // shard_size) * sizes["test_houses"]
    ood = -(-sizes["train_ood"] // shard_size)
    total = 0
    for unit in units:
        roles = len(unit["roles"])
        total += sizes["test_houses"] * ("test" in splits)
        total += roles * (chunks * ("train-in" in splits) + ood * ("train-ood" in splits))
    return total


def check_manifest(data: Any, file: str) -> dict[str, Any]:
    """``data`` if it is a valid manifest; else a :class:`DatasetError` naming ``file`` and the field."""
    top = Fields(data, "", message_error(DatasetError), file)
    top.allow(("format", "version", "generator", "tables", "spec", "shards", "complete")).require("spec", "shards")
    if top.get("format") != DATASET_FORMAT:
        raise top.fail("format", f"not a MARPLE dataset manifest (expected {DATASET_FORMAT!r})")
    if top.get("version") != DATASET_VERSION:
        raise top.fail(
            "version", f"manifest version {top.get('version')!r} is not supported (expected {DATASET_VERSION})"
        )
    top.str("generator", None)
    top.bool("complete")
    check_spec(top.fields("spec"))
    shards = top.fields("shards")
    for path in shards.data:
        _check_shard_entry(shards.fields(path))
    return data


def check_spec(spec: Fields) -> None:
    """A dataset spec (``DatasetSpec.to_json``): units, sizes, seed, house config, splits, shard size."""
    spec.allow(("units", "sizes", "seed", "config", "splits", "shard_size"))
    spec.require("units", "sizes", "seed", "splits", "shard_size")  # all that DatasetSpec.from_json needs
    units = spec.entries("units")
    if not units:
        raise spec.fail("units", "a dataset needs at least one unit")
    seen: set[str] = set()
    for unit in units:
        name = _check_unit(unit)
        if name in seen:  # its shards would be listed, read and scored once per repeat
            raise unit.fail("name", f"unit {name!r} appears more than once")
        seen.add(name)
    sizes = spec.fields("sizes").allow(SIZE_KEYS).require(*SIZE_KEYS)
    counts = {key: sizes.int(key, low=1, high=MAX_SIZE) for key in SIZE_KEYS}
    spec.int("seed", low=0)
    shard_size = spec.int("shard_size", low=1, high=MAX_SIZE)
    splits = spec.list("splits")
    for i, split in enumerate(splits):
        if split not in SPLITS:
            raise spec.fail(f"splits[{i}]", f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    if spec.get("config") is not None:
        try:
            HouseConfig.from_dict(spec.mapping("config"))
        except HouseConfigError as exc:
            raise spec.fail(f"config.{exc.field}" if exc.field else "config", exc.reason) from None
    if shard_count(spec.get("units"), counts, splits, shard_size) > MAX_SHARDS:
        raise spec.fail("sizes", f"the spec makes more than {MAX_SHARDS} shards")


def _check_unit(unit: Fields) -> str:
    """A unit's fields; returns its name."""
    unit.allow(("name", "roles", "test_missions", "query_mission", "shared", "houses")).require(
        "name", "roles", "test_missions"
    )
    name = unit.str("name")
    unit.str("query_mission", None)
    unit.bool("shared", None)
    unit.str("houses", None, choices=HOUSE_SOURCES)
    roles = unit.fields("roles")
    if not roles.data:
        raise unit.fail("roles", "a unit needs at least one role")
    for role in roles.data:
        prefs = roles.fields(role)
        for mission in prefs.data:
            prefs.number(mission, low=0)
    missions = unit.fields("test_missions")
    for role in missions.data:
        missions.str(role)
    return name


def check_sha256(fields: Fields, key: str) -> str:
    """A field holding a SHA-256: 64 lowercase hex digits."""
    sha = fields.str(key)
    if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
        raise fields.fail(key, f"expected 64 hex digits, got {sha[:70]!r}")
    return sha


def _check_shard_entry(entry: Fields) -> None:
    entry.allow((*SHARD_KEYS, "spec")).require(*SHARD_KEYS)
    check_sha256(entry, "sha256")
    if entry.has("spec"):
        check_sha256(entry, "spec")
    entry.int("episodes", low=1)
    entry.int("steps", low=0)
    entry.str("split", choices=SPLITS)
    entry.str("unit")
    entry.str("role")
