"""A generated trial set on disk: shards of trials under a manifest, and reading it back (what
``marple generate --family expectations`` writes, and what ``marple evaluate`` and the study read).

::

    <root>/manifest.json                                the spec, every shard file's SHA-256, checks of the set
    <root>/test/1.1/shard-00000.jsonl                   a trial's document a line (compact, without per-step states)

A shard is a run of one type's trials in one split, written whole (one file; the manifest, flushed to disk after each shard, records its checksum); every trial is
a function of the seed and its key (:func:`~marple_gym.expectations.scenarios.make_trial`), so shards are written
in any order on any core, and a killed run resumes with the shards its manifest lacks
(:func:`marple_gym.datasets.sharded.generate_shards`). The documents are those of
:mod:`marple_gym.expectations.export` less the per-step states, which replay from each video's stage and actions;
AGENT's tree, states and all, is an export (:func:`export_agent_tree`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from marple_gym.datasets.manifest import DatasetError
from marple_gym.datasets.sharded import Shard, ShardedReport, generate_shards, read_set_manifest, shard_folders
from marple_gym.expectations.export import read_trial, trial_document, write_trials
from marple_gym.expectations.scenarios import all_types, make_trial, scenario_of, trial_keys
from marple_gym.expectations.trial import SPLITS, Trial, TrialError, TrialKey
from marple_gym.files import atomic_write
from marple_gym.validation import message_error, read_json_lines

FORMAT = "marple-expectation-trials"
VERSION = 2
COMMAND = "marple generate --family expectations"
SHARD_TRIALS = 40
"""Trials per shard."""
DEFAULT_SIZES = {"train": 160, "validation": 40, "test": 40}
"""Trials per type and split: AGENT's proportions (1,920 training, 480 validation and 480 test trials)."""


@dataclass(frozen=True)
class TrialSetSpec:
    """Everything a trial set is a function of: the seed, trials per type in each split, and the types."""

    seed: int = 0
    sizes: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_SIZES))
    types: tuple[str, ...] = field(default_factory=all_types)

    def __post_init__(self) -> None:
        for t in self.types:
            scenario_of(t)  # ValueError naming an unknown type
        if not self.types or len(set(self.types)) != len(self.types):
            raise ValueError(f"types must name each type once, got {list(self.types)}")
        bad = {k: v for k, v in self.sizes.items() if k not in SPLITS or not isinstance(v, int) or v < 0}
        if bad or self.seed < 0:
            raise ValueError(f"sizes map splits {SPLITS} to trials per type >= 0, got {dict(self.sizes)}")
        if not any(self.sizes.values()):
            raise ValueError(f"a trial set needs trials: every split has 0 trials per type ({dict(self.sizes)})")

    def keys(self, split: str) -> list[TrialKey]:
        return trial_keys(split, self.sizes.get(split, 0), self.types)

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "sizes": {s: self.sizes.get(s, 0) for s in SPLITS}, "types": list(self.types)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TrialSetSpec:
        try:
            return cls(int(data["seed"]), dict(data["sizes"]), tuple(data["types"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise DatasetError(f"manifest spec: not a trial set's spec ({exc})") from None


def generate_trial_set(
    spec: TrialSetSpec,
    root: str | os.PathLike,
    *,
    shard_trials: int = SHARD_TRIALS,
    workers: int | None = None,
    progress: bool = True,
) -> ShardedReport:
    """Write (or resume writing) every split of ``spec`` into ``root`` (see the module docs)."""
    if shard_trials < 1:
        raise ValueError(f"shard_trials must be >= 1, got {shard_trials}")
    shards = []
    for split in SPLITS:
        for kind in spec.types:
            keys = trial_keys(split, spec.sizes.get(split, 0), [kind])
            for start in range(0, len(keys), shard_trials):
                part = keys[start : start + shard_trials]
                shards.append(Shard(f"{split}/{kind}/shard-{start // shard_trials:05d}", split, len(part), tuple(part)))
    return generate_shards(
        root, FORMAT, VERSION, {**spec.to_json(), "shard_trials": shard_trials}, shards, _write_shard,
        workers=workers, progress=progress, unit="trial",
    )  # fmt: skip


def _write_shard(spec_json: dict[str, Any], shard: Shard, root: str) -> list[str]:
    name = f"{shard.name}.jsonl"
    # Unsynced: the manifest, synced after each shard, records the file's SHA-256, which resuming and reading check.
    with atomic_write(Path(root) / name, sync=False) as f:
        for key in shard.work:
            f.write(json.dumps(trial_document(make_trial(key, spec_json["seed"]), states=False), separators=(",", ":")))
            f.write("\n")
    return [name]


def read_trial_set(root: str | os.PathLike, split: str = "test", types: Sequence[str] | None = None) -> list[Trial]:
    """The trials of a finished set's ``split`` (of ``types``, default all), every shard checked against the
    manifest's SHA-256 and every trial read strictly (:func:`~marple_gym.expectations.export.read_trial`: errors
    name the file, the line and the field)."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; use one of {SPLITS}")
    manifest = read_set_manifest(root, FORMAT, VERSION, COMMAND)
    out = []
    for name in shard_folders(manifest, split):
        if types is not None and name.split("/")[1] not in types:  # a shard's name: split/type/shard-N
            continue
        for f in manifest["shards"][name]["files"]:
            path = Path(root) / f
            for n, doc in read_json_lines(path, message_error(TrialError), "trial shard").entries:
                out.append(read_trial(doc, f"{path}, line {n}"))
    return out


def export_agent_tree(root: str | os.PathLike, out: str | os.PathLike, splits: Sequence[str] = SPLITS) -> list[Path]:
    """Write the finished set in ``root`` into AGENT's tree under ``out``, a file per trial with every video's
    per-step states (:func:`~marple_gym.expectations.export.write_trials`)."""
    return [p for split in splits for p in write_trials(read_trial_set(root, split), out)]


def trial_set_spec(root: str | os.PathLike) -> TrialSetSpec:
    """The spec of the finished set in ``root``."""
    return TrialSetSpec.from_json(read_set_manifest(root, FORMAT, VERSION, COMMAND)["spec"])


__all__ = ["TrialSetSpec", "export_agent_tree", "generate_trial_set", "read_trial_set", "trial_set_spec"]
