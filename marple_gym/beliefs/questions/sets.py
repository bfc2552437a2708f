"""A generated question set on disk: its shards, its manifest, and reading it back (what ``marple generate
--family beliefs`` writes, and what ``marple evaluate``, ``marple train`` and the study read).

::

    <root>/manifest.json                       the spec, every shard's files with their SHA-256
    <root>/test/shard-00000/questions.jsonl    MMToM-QA's format, with episodes.jsonl and beliefs.jsonl beside it
    <root>/train/shard-00000/episodes.jsonl    training episodes (no questions, as MMToM-QA's)
    <root>/mmtom/questions.jsonl               the whole test split in one MMToM-QA file (and its episodes)

A shard is a run of a split's episodes (:meth:`QuestionSpec.episodes`); since every episode and its questions
are a function of the spec and its index, shards are written in any order on any core, and a killed run
resumes with the shards its manifest lacks (:func:`marple_gym.datasets.sharded.generate_shards`).
"""

from __future__ import annotations

import json
import os
from dataclasses import fields
from pathlib import Path
from typing import Any

from marple_gym.beliefs.episodes import SearchEpisode
from marple_gym.beliefs.questions.export import EPISODES, QUESTIONS, read_questions, write_questions
from marple_gym.beliefs.questions.generate import SPLITS, QuestionSpec, make_episode, make_questions
from marple_gym.beliefs.questions.question import BeliefQuestion
from marple_gym.datasets.manifest import DatasetError
from marple_gym.datasets.sharded import Shard, ShardedReport, generate_shards, read_set_manifest, shard_folders
from marple_gym.files import atomic_write
from marple_gym.validation import message_error, read_json_lines

FORMAT = "marple-belief-questions"
VERSION = 1
COMMAND = "marple generate --family beliefs"
MMTOM = "mmtom"
"""The folder of the whole test split in MMToM-QA's format."""
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
    report = generate_shards(
        root, FORMAT, VERSION, set_spec(spec, shard_episodes), shards, _write_shard,
        workers=workers, progress=progress, unit="episode",
    )  # fmt: skip
    export = Path(root) / MMTOM
    if not (export / QUESTIONS).is_file():  # derived from the finished test split: written once, atomically
        write_questions(read_question_set(root, "test"), export)
    return report


def _write_shard(spec_json: dict[str, Any], shard: Shard, root: str) -> list[str]:
    spec = question_spec({"spec": spec_json})
    folder = Path(root) / shard.name
    if shard.split == "test":
        write_questions([q for k, i in shard.work for q in make_questions(spec, "test", k, i)], folder)
        return [f"{shard.name}/{name}" for name in sorted(os.listdir(folder)) if name.endswith(".jsonl")]
    with atomic_write(folder / EPISODES) as handle:
        for k, i in shard.work:
            handle.write(json.dumps(make_episode(spec, shard.split, k, i).to_json()) + "\n")
    return [f"{shard.name}/{EPISODES}"]


def read_question_set(root: str | os.PathLike, split: str = "test") -> list[BeliefQuestion]:
    """The questions of a finished set's ``split`` (only ``test`` has any), every file checked against the
    manifest's SHA-256 and every line read strictly: errors name the file and line."""
    manifest = read_set_manifest(root, FORMAT, VERSION, COMMAND)
    return [q for name in shard_folders(manifest, split) for q in read_questions(Path(root) / name)]


def read_training_episodes(root: str | os.PathLike) -> list[SearchEpisode]:
    """The training episodes of a finished set (what a belief policy learns from)."""
    manifest = read_set_manifest(root, FORMAT, VERSION, COMMAND)
    error = message_error(DatasetError)
    episodes = []
    for name in shard_folders(manifest, "train"):
        path = Path(root) / name / EPISODES
        for n, data in read_json_lines(path, error, "episodes file").entries:
            episodes.append(SearchEpisode.from_json(data, str(path), f"line {n}"))
    return episodes
