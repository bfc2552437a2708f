"""A family's items as a Hugging Face ``datasets`` folder: Parquet files, the frames as images, a dataset card.

::

    <out>/README.md                         the dataset card: YAML front matter (configs, licence) and the text
    <out>/data/<type>/test-00000.parquet    one file per type: one row per item (:class:`~.items.Item`)

``datasets.load_dataset(out)`` loads every type (the ``default`` config), ``load_dataset(out, "type_1_1")`` one
type; the ``frames`` column loads as a list of ``datasets.Image`` (PNG bytes inside the Parquet file, so the
folder is whole by itself). The features are written into each file's schema (the ``huggingface`` metadata
``datasets`` reads), so nothing but ``pyarrow`` is needed to write it. Every file is written whole or not at
all.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from marple_eval.harness.items import Item
from marple_gym.datasets.export import ExportError
from marple_gym.extras import install_command
from marple_gym.files import atomic_write
from marple_gym.rendering.frames import png_bytes
from marple_gym.version import __version__

CARD = "README.md"
SPLIT = "test"

MARPLE_BIBTEX = """@inproceedings{jin2024marple,
  title     = {{MARPLE}: A Benchmark for Long-Horizon Inference},
  author    = {Jin, Emily and Huang, Zhuoyi and Fr{\\"a}nken, Jan-Philipp and Liu, Weiyu and
               Cha, Hannah and Brockbank, Erik and Wu, Sarah A. and Zhang, Ruohan and
               Wu, Jiajun and Gerstenberg, Tobias},
  booktitle = {Advances in Neural Information Processing Systems 37 (NeurIPS 2024),
               Datasets and Benchmarks Track},
  year      = {2024},
  eprint    = {2410.01926},
  archivePrefix = {arXiv}
}"""
MMTOM_BIBTEX = """@inproceedings{jin2024mmtom,
  title     = {{MMToM-QA}: Multimodal Theory of Mind Question Answering},
  author    = {Jin, Chuanyang and Wu, Yutong and Cao, Jing and Xiang, Jiannan and Kuo, Yen-Ling and
               Hu, Zhiting and Ullman, Tomer and Torralba, Antonio and Tenenbaum, Joshua B. and Shu, Tianmin},
  booktitle = {Proceedings of the 62nd Annual Meeting of the Association for Computational Linguistics
               (Volume 1: Long Papers)},
  year      = {2024},
  eprint    = {2401.08743},
  archivePrefix = {arXiv}
}"""
AGENT_BIBTEX = """@inproceedings{shu2021agent,
  title     = {{AGENT}: A Benchmark for Core Psychological Reasoning},
  author    = {Shu, Tianmin and Bhandwaldar, Abhishek and Gan, Chuang and Smith, Kevin A. and Liu, Shari and
               Gutfreund, Dan and Spelke, Elizabeth and Tenenbaum, Joshua B. and Ullman, Tomer D.},
  booktitle = {Proceedings of the 38th International Conference on Machine Learning},
  series    = {Proceedings of Machine Learning Research},
  volume    = {139},
  year      = {2021},
  eprint    = {2102.12321},
  archivePrefix = {arXiv}
}"""


@dataclass(frozen=True)
class Source:
    """Where a family's export comes from, for its card."""

    family: str
    title: str
    follows: str
    """The paper the family follows, in words."""
    command: str
    """The commands that made the set and the export."""
    seed: int | None
    set_format: str
    measures: str
    """What an item measures, in a few sentences."""
    citations: tuple[str, ...]
    """The BibTeX of MARPLE and of the paper the family follows."""


def config_name(kind: str) -> str:
    """A type's config name: ``type_1_1``, ``type_pillow``."""
    return "type_" + kind.replace(".", "_")


def _columns(items: Sequence[Item]) -> dict[str, list[Any]]:
    """The table's columns (see :class:`~.items.Item`), the family's own fields last."""
    columns: dict[str, list[Any]] = {
        "id": [i.id for i in items],
        "family": [i.family for i in items],
        "type": [i.type for i in items],
        "type_name": [i.type_name for i in items],
        "text": [i.text for i in items],
        "stem": [i.stem for i in items],
        "options": [list(i.options) for i in items],
        "choices": [list(i.choices) for i in items],
        "answer": [i.answer for i in items],
        "target": [i.target for i in items],
        "frames": [[{"bytes": png_bytes(f), "path": None} for f in i.frames] for i in items],
        "frame_captions": [list(i.frame_captions) for i in items],
    }
    for key in items[0].fields:
        columns[key] = [i.fields[key] for i in items]
    return columns


def _features(table: Any) -> dict[str, Any]:
    """The ``datasets`` features of a table: its Arrow types, with ``frames`` as a list of images."""
    import pyarrow as pa  # the harness extra (checked by write_dataset)

    def feature(kind: pa.DataType) -> dict[str, Any]:
        if pa.types.is_list(kind):
            return {"feature": feature(kind.value_type), "_type": "List"}
        name = {pa.string(): "string", pa.int64(): "int64", pa.float64(): "float64", pa.bool_(): "bool"}[kind]
        return {"dtype": name, "_type": "Value"}

    features = {f.name: feature(f.type) for f in table.schema if f.name != "frames"}
    features["frames"] = {"feature": {"_type": "Image"}, "_type": "List"}
    return {name: features[name] for name in table.column_names}


def write_dataset(items: Iterable[Item], out: str | os.PathLike, source: Source) -> list[Path]:
    """Write ``items`` as a ``datasets`` folder (see the module docs) with its card; returns the files written."""
    try:
        import pyarrow as pa  # the harness extra, asked for by --format datasets
        import pyarrow.parquet as pq
    except ModuleNotFoundError as exc:
        raise ExportError(f"the datasets export needs pyarrow: {install_command('harness')}") from exc
    by_type: dict[str, list[Item]] = {}
    for item in items:
        by_type.setdefault(item.type, []).append(item)
    if not by_type:
        raise ExportError(f"{source.family}: the set holds no items to export")
    root = Path(out)
    written = []
    for kind, group in by_type.items():
        columns = _columns(group)
        image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])  # datasets' Image, as stored
        columns["frames"] = pa.array(columns["frames"], type=pa.list_(image))
        table = pa.table(columns)
        table = table.replace_schema_metadata({"huggingface": json.dumps({"info": {"features": _features(table)}})})
        path = root / "data" / config_name(kind) / f"{SPLIT}-00000.parquet"
        with atomic_write(path, "wb") as handle:
            pq.write_table(table, handle)
        written.append(path)
    counts = {kind: len(by_type[kind]) for kind in sorted(by_type)}
    with atomic_write(root / CARD) as handle:
        handle.write(card(source, counts))
    return [*written, root / CARD]


def card(source: Source, counts: dict[str, int]) -> str:
    """The dataset card: YAML front matter (licence, configs: ``default`` and one per type) and the text."""
    configs = [f"- config_name: default\n  data_files:\n  - split: {SPLIT}\n    path: data/*/{SPLIT}-*.parquet"]
    configs += [
        f"- config_name: {config_name(kind)}\n  data_files:\n  - split: {SPLIT}\n"
        f"    path: data/{config_name(kind)}/{SPLIT}-*.parquet"
        for kind in counts
    ]
    rows = "\n".join(f"| {kind} | `{config_name(kind)}` | {n} |" for kind, n in counts.items())
    citations = "\n\n".join(source.citations)
    others = "the benchmark it follows and " if len(source.citations) > 1 else ""
    return f"""---
license: mit
language:
- en
pretty_name: "{source.title}"
tags:
- theory-of-mind
- marple-gym
configs:
{chr(10).join(configs)}
---

# {source.title}

Made by MARPLE-Gym {__version__} on {date.today().isoformat()} from a set in its `{source.set_format}`
format{"" if source.seed is None else f" (seed {source.seed})"}, following {source.follows}.

```bash
{source.command}
```

## What an item measures

{source.measures}

## Columns

`id`, `type` and `type_name`; `text`: the text condition's whole input, ending with the question; `stem`: the
same without the options listed (for a solver that lists them itself); `options`: the options in words;
`choices`: what a log-likelihood scorer compares after `text + "\\nAnswer:"`; `answer`: the index of the right
choice, `target` the choice itself; `frames`: the pictures a vision-language model is shown, in order, with
`frame_captions`; then the family's own columns.

| type | config | items |
| --- | --- | --- |
{rows}

```python
from datasets import load_dataset

items = load_dataset("path/to/this/folder", split="{SPLIT}")      # every type
one = load_dataset("path/to/this/folder", "{config_name(next(iter(counts)))}", split="{SPLIT}")
```

## Licence

MIT, as MARPLE-Gym: the items are generated by its code; no third-party data is included.

## Citation

Please cite {others}MARPLE, whose world and tools made it:

```bibtex
{citations}
```
"""
