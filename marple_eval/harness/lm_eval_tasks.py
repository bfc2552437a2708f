"""lm-evaluation-harness tasks over a ``datasets`` export: two task groups per family, one task a type.

::

    <out>/lm_eval/marple_<family>.yaml              group: every type, multiple choice by log-likelihood
    <out>/lm_eval/marple_<family>_<type>.yaml       one type: ``text + "\\nAnswer:"``, then each choice
    <out>/lm_eval/marple_<family>_gen.yaml          group: every type, a generated reply
    <out>/lm_eval/marple_<family>_<type>_gen.yaml   one type, scored as the source paper scores
                                                    (:mod:`marple_eval.harness.scoring`, through marple_scoring.py)

Each task reads its type's config of the export (``dataset_path``: the export folder, absolute; export again
after moving it). Run them with the harness's own command line::

    lm_eval --model local-completions --tasks marple_beliefs --include_path OUT/lm_eval \\
        --model_args model=NAME,base_url=http://127.0.0.1:8080/v1/completions,tokenizer_backend=None

The multiple-choice tasks ask a completions endpoint for log-probabilities (``local-completions``); the
generation tasks also run through a chat endpoint (``local-chat-completions --apply_chat_template``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from marple_eval.harness.datasets_export import SPLIT, config_name
from marple_gym.files import atomic_write

FOLDER = "lm_eval"
SCORING = "marple_scoring.py"
MAX_GEN_TOKS = {"beliefs": 16, "expectations": 16, "whodunit": 1024}
"""Reply lengths: a letter or a test's number (with room for a word around it); the whodunit's reasoning."""


def task_name(family: str, kind: str | None = None, generate: bool = False) -> str:
    """``marple_beliefs`` (the group), ``marple_beliefs_1_1``, ``marple_beliefs_1_1_gen``."""
    name = f"marple_{family}" + ("" if kind is None else "_" + kind.replace(".", "_").replace("-", "_"))
    return name + ("_gen" if generate else "")


def _yaml(value: object) -> str:
    """A scalar or list as YAML (JSON's form is YAML's too)."""
    return json.dumps(value)


def task_yaml(family: str, kind: str, dataset: Path, choices: Sequence[str], generate: bool) -> str:
    """One type's task (see the module docs)."""
    head = [
        f"task: {task_name(family, kind, generate)}",
        f"dataset_path: {_yaml(str(dataset))}",
        f"dataset_name: {config_name(kind)}",
        f"test_split: {SPLIT}",
        f"doc_to_text: {_yaml('{{text}}' + chr(10) + 'Answer:')}",
    ]
    if not generate:
        body = [
            "output_type: multiple_choice",
            f"doc_to_choice: {_yaml(list(choices))}",
            "doc_to_target: answer",
            "metric_list:",
            "  - metric: acc",
            "    aggregation: mean",
            "    higher_is_better: true",
        ]
    else:
        body = [
            "output_type: generate_until",
            "doc_to_target: target",
            "generation_kwargs:",
            f"  until: {_yaml([chr(10) + 'Question:'])}",
            f"  max_gen_toks: {MAX_GEN_TOKS[family]}",
            "  do_sample: false",
            "  temperature: 0.0",
            f"process_results: !function {Path(SCORING).stem}.process_results",
            "metric_list:",
            "  - metric: acc",
            "    aggregation: mean",
            "    higher_is_better: true",
            "  - metric: answered",
            "    aggregation: mean",
            "    higher_is_better: true",
        ]
    return "\n".join([*head, *body, "metadata:", "  version: 1.0", ""])


def group_yaml(family: str, kinds: Sequence[str], generate: bool) -> str:
    """A family's group: every type's task, the group's score the mean over items."""
    metrics = ["acc", "answered"] if generate else ["acc"]
    lines = [f"group: {task_name(family, generate=generate)}", "task:"]
    lines += [f"  - {task_name(family, kind, generate)}" for kind in kinds]
    lines.append("aggregate_metric_list:")
    for metric in metrics:
        lines += [f"  - metric: {metric}", "    aggregation: mean", "    weight_by_size: true"]
    return "\n".join([*lines, "metadata:", "  version: 1.0", ""])


def write_lm_eval_tasks(
    family: str, kinds: Sequence[str], choices: Sequence[str], dataset: str | os.PathLike, out: str | os.PathLike
) -> list[Path]:
    """Write the family's task files for the export in ``dataset`` into ``out`` (see the module docs)."""
    folder, data = Path(out), Path(dataset).resolve()
    files: dict[str, str] = {
        SCORING: '"""The scoring lm-evaluation-harness calls back (written by marple export)."""\n\n'
        "from marple_eval.harness.scoring import process_results\n\n"
        '__all__ = ["process_results"]\n'
    }
    for generate in (False, True):
        files[f"{task_name(family, generate=generate)}.yaml"] = group_yaml(family, kinds, generate)
        for kind in kinds:
            files[f"{task_name(family, kind, generate)}.yaml"] = task_yaml(family, kind, data, choices, generate)
    written = []
    for name, text in files.items():
        with atomic_write(folder / name) as handle:
            handle.write(text)
        written.append(folder / name)
    return written
