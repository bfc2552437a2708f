"""A generated question set on disk: its shards, its manifest, and reading it back (what ``marple generate
--family beliefs`` writes, and what ``marple evaluate``, ``marple train`` and the study read).

::

    <root>/manifest.json                        the spec, every shard's files with their SHA-256
    <root>/test/shard-00000/episodes.jsonl      a run of the test split's episodes...
    <root>/test/shard-00000/candidates.jsonl    ...and every question they gave (before balancing)
    <root>/train/shard-00000/...                the same for the training split
    <root>/mmtom/questions.jsonl                the balanced test split, in MMToM-QA's format (with its episodes
                                                and the questions in full, ``beliefs.jsonl``)
    <root>/train/questions/questions.jsonl      the balanced training split (for methods that learn from questions)
    <root>/panel.json                           the shortcut panel's verdict, once it has been run

A shard is a run of a split's episodes (:meth:`QuestionSpec.episodes`); since every episode and its candidate
questions are a function of the spec and its index, shards are written in any order on any core, and a killed
run resumes with the shards its manifest lacks (:func:`marple_gym.datasets.sharded.generate_shards`). Once all
are there, each split is balanced (:func:`~marple_gym.beliefs.questions.balance.balance_split`) into its folder,
recorded in the manifest like a shard.
"""

from __future__ import annotations

import json
import os
from dataclasses import fields
from pathlib import Path
from typing import Any

from marple_gym.beliefs.episodes import SearchEpisode
from marple_gym.beliefs.questions.balance import balance_split
from marple_gym.beliefs.questions.export import (
    BELIEFS,
    EPISODES,
    QUESTIONS,
    read_details,
    read_questions,
    write_questions,
)
from marple_gym.beliefs.questions.generate import SPLITS, QuestionSpec, balance_rng, make_episode, make_questions
from marple_gym.beliefs.questions.question import BeliefQuestion
from marple_gym.datasets.manifest import MANIFEST, DatasetError
from marple_gym.datasets.sharded import Shard, ShardedReport, generate_shards, read_set_manifest, shard_folders
from marple_gym.files import write_json_atomic
from marple_gym.validation import message_error, read_json_file, read_json_lines

FORMAT = "marple-belief-questions"
VERSION = 2
COMMAND = "marple generate --family beliefs"
MMTOM = "mmtom"
"""The folder of the balanced test split, in MMToM-QA's format."""
BALANCED = {"test": MMTOM, "train": "train/questions"}
"""Each split's balanced folder."""
CANDIDATES = "candidates.jsonl"
"""A shard's questions before balancing (``beliefs.jsonl``'s form, about the shard's ``episodes.jsonl``)."""
PANEL = "panel.json"
"""The shortcut panel's verdict on the set, beside its manifest (:func:`record_panel`)."""
SHARD_EPISODES = 20
"""Episodes per shard (by default a test house's)."""


def set_spec(spec: QuestionSpec, shard_episodes: int = SHARD_EPISODES) -> dict[str, Any]:
    """What a set's manifest records as its spec: the question spec and the shard size."""
    return {"questions": spec.to_json(), "shard_episodes": shard_episodes}


def question_spec(manifest: dict[str, Any]) -> QuestionSpec:
    """The :class:`QuestionSpec` a set's manifest records."""
    data = dict(manifest["spec"]["questions"])
    known = {f.name for f in fields(QuestionSpec)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise DatasetError(f"manifest spec: unknown question settings {unknown}")
    data["types"] = tuple(data.get("types", ()))
    return QuestionSpec(**data)


def generate_question_set(
    spec: QuestionSpec,
    root: str | os.PathLike,
    *,
    shard_episodes: int = SHARD_EPISODES,
    workers: int | None = None,
    progress: bool = True,
) -> ShardedReport:
    """Write (or resume writing) the test and train splits of ``spec`` into ``root`` (see the module docs)."""
    if shard_episodes < 1:
        raise ValueError(f"shard_episodes must be >= 1, got {shard_episodes}")
    shards = []
    for split in SPLITS:
        units = spec.episodes(split)
        for n, start in enumerate(range(0, len(units), shard_episodes)):
            part = units[start : start + shard_episodes]
            shards.append(Shard(f"{split}/shard-{n:05d}", split, len(part), tuple(part)))
    plan = set_spec(spec, shard_episodes)
    # Balancing needs every shard of its split: it runs once they are all there, as two more shards.
    balanced = [Shard(BALANCED[split], split, 0, tuple(s.name for s in shards if s.split == split)) for split in SPLITS]
    first = None
    if not _finished(Path(root), [s.name for s in shards + balanced]):
        first = generate_shards(root, FORMAT, VERSION, plan, shards, _write_shard, workers=workers,
                                progress=progress, unit="episode")  # fmt: skip
    report = generate_shards(root, FORMAT, VERSION, plan, shards + balanced, _write_shard, workers=1, progress=False)
    report.written = 0 if first is None else first.written  # the episodes' shards: the balanced splits derive
    report.skipped = len(shards) - report.written
    return report


def _finished(root: Path, names: list[str]) -> bool:
    """Does ``root`` hold a finished set of exactly these shards (checked in full by the writer)?"""
    try:
        manifest = json.loads((root / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return (
        isinstance(manifest, dict)
        and manifest.get("complete") is True
        and set(manifest.get("shards", ())) == set(names)
    )


def _write_shard(spec_json: dict[str, Any], shard: Shard, root: str) -> list[str]:
    spec = question_spec({"spec": spec_json})
    folder = Path(root) / shard.name
    if shard.name in BALANCED.values():
        found = [q for name in shard.work for q in read_details(Path(root) / name, CANDIDATES)]
        write_questions(balance_split(found, balance_rng(spec, shard.split)), folder)
        return [f"{shard.name}/{name}" for name in (QUESTIONS, EPISODES, BELIEFS)]
    episodes = [make_episode(spec, shard.split, k, i) for k, i in shard.work]
    questions = [q for (k, i), e in zip(shard.work, episodes) for q in make_questions(spec, shard.split, k, i, e)]
    write_questions(questions, folder, episodes, details=CANDIDATES, mmtom=False)
    return [f"{shard.name}/{EPISODES}", f"{shard.name}/{CANDIDATES}"]


def read_question_set(root: str | os.PathLike, split: str = "test") -> list[BeliefQuestion]:
    """The balanced questions of a finished set's ``split``, every file checked against the manifest's SHA-256
    and every line read strictly: errors name the file and line."""
    if split not in BALANCED:
        raise ValueError(f"split must be one of {', '.join(BALANCED)}, got {split!r}")
    read_set_manifest(root, FORMAT, VERSION, COMMAND)
    return read_questions(Path(root) / BALANCED[split])


def read_candidates(root: str | os.PathLike, split: str = "test") -> list[BeliefQuestion]:
    """Every question a finished set's episodes of ``split`` gave, before balancing."""
    manifest = read_set_manifest(root, FORMAT, VERSION, COMMAND)
    return [q for name in _episode_shards(manifest, split) for q in read_details(Path(root) / name, CANDIDATES)]


def _episode_shards(manifest: dict[str, Any], split: str) -> list[str]:
    return [name for name in shard_folders(manifest, split) if name not in BALANCED.values()]


def record_panel(root: str | os.PathLike, verdict: dict[str, Any]) -> Path:
    """Write the shortcut panel's verdict (:mod:`marple_eval.beliefs.panel`) beside a finished set's manifest."""
    read_set_manifest(root, FORMAT, VERSION, COMMAND)
    return write_json_atomic(Path(root) / PANEL, verdict)


def read_panel(root: str | os.PathLike) -> dict[str, Any] | None:
    """The shortcut panel's verdict recorded beside a set's manifest, None if the panel has not been run."""
    path = Path(root) / PANEL
    if not path.is_file():
        return None
    return read_json_file(path, message_error(DatasetError), "panel verdict")


def read_training_episodes(root: str | os.PathLike) -> list[SearchEpisode]:
    """The training episodes of a finished set (what a belief policy learns from)."""
    manifest = read_set_manifest(root, FORMAT, VERSION, COMMAND)
    error = message_error(DatasetError)
    episodes = []
    for name in _episode_shards(manifest, "train"):
        path = Path(root) / name / EPISODES
        for n, data in read_json_lines(path, error, "episodes file").entries:
            episodes.append(SearchEpisode.from_json(data, str(path), f"line {n}"))
    return episodes
