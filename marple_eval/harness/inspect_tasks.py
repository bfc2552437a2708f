"""Inspect tasks over a ``datasets`` export (needs the ``harness`` extra: ``inspect-ai``).

Beliefs and expectations are Inspect multiple-choice tasks (``multiple_choice()`` lists the options after the
item's stem and asks for a letter; ``choice()`` scores it): two options, the right one the answer. The whodunit
is a generation task: the model answers 0-100 and :func:`whodunit_score` scores it as MARPLE scored GPT-4 (the
probability given to the culprit; :mod:`marple_eval.harness.scoring`). ``condition="multimodal"`` adds the
item's frames to the message as images (beliefs and expectations), for a vision-language model.

``marple export --format harness`` writes ``inspect_tasks.py`` into the export, one ``@task`` per type and one
for the family, so that Inspect's own command line runs them::

    inspect eval OUT/inspect_tasks.py@marple_beliefs --model openai-api/local/NAME \\
        -M base_url=http://127.0.0.1:8080/v1 -T condition=text
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from inspect_ai.scorer import Score, Target, choice, mean, scorer, stderr
from inspect_ai.solver import TaskState, generate, multiple_choice

from marple_eval.harness.datasets_export import SPLIT, config_name
from marple_eval.harness.scoring import NO_ANSWER, choice_score

INSPECT_CONDITIONS = ("text", "multimodal")


def read_rows(export: str | os.PathLike, kind: str = "all") -> list[dict[str, Any]]:
    """The rows of an export's type (``all``: every type), in the export's order."""
    files = sorted(Path(export).glob(f"data/{'*' if kind == 'all' else config_name(kind)}/{SPLIT}-*.parquet"))
    if not files:
        raise FileNotFoundError(f"{export}: no items of type {kind!r} (is it a folder written by marple export?)")
    return [row for path in files for row in pq.read_table(path).to_pylist()]


def _images(row: dict[str, Any]) -> list[Any]:
    parts: list[Any] = []
    for frame, caption in zip(row["frames"], row["frame_captions"]):
        url = "data:image/png;base64," + base64.b64encode(frame["bytes"]).decode("ascii")
        parts += [ContentText(text=caption + ":"), ContentImage(image=url)]
    return parts


def sample(row: dict[str, Any], condition: str = "text") -> Sample:
    """One row as an Inspect sample (see the module docs)."""
    if condition not in INSPECT_CONDITIONS:
        raise ValueError(f"condition must be one of {', '.join(INSPECT_CONDITIONS)}, got {condition!r}")
    whodunit = row["family"] == "whodunit"
    text = row["text"] if whodunit else row["stem"]
    content: Any = text if condition == "text" else [*_images(row), ContentText(text=text)]
    return Sample(
        input=[ChatMessageUser(content=content)],
        choices=None if whodunit else list(row["options"]),
        target=str(row["answer"]) if whodunit else "AB"[row["answer"]],
        id=row["id"],
        metadata={"family": row["family"], "type": row["type"], "answer": row["answer"]},
    )


@scorer(metrics=[mean(), stderr()])
def whodunit_score():
    """A 0-100 answer scored as MARPLE scored GPT-4: the probability given to the culprit (0.5 for no answer)."""

    async def score(state: TaskState, target: Target) -> Score:
        reply = state.output.completion
        value = choice_score("whodunit", reply, int(target.text))
        return Score(
            value=NO_ANSWER if value is None else value, answer=reply[-200:], metadata={"answered": value is not None}
        )

    return score


def family_task(export: str | os.PathLike, kind: str = "all", condition: str = "text") -> Task:
    """The Inspect task of an export's type (``all``: every type)."""
    rows = read_rows(export, kind)
    dataset = MemoryDataset([sample(r, condition) for r in rows], name=f"marple_{rows[0]['family']}_{kind}")
    if rows[0]["family"] == "whodunit":
        return Task(dataset=dataset, solver=generate(), scorer=whodunit_score())
    return Task(dataset=dataset, solver=multiple_choice(), scorer=choice())
