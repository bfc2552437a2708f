"""One family's set as a ``datasets`` folder, and with ``harness`` its lm-evaluation-harness and Inspect tasks.

::

    export_items(*belief_export("data/beliefs", per_type=10), "exports/beliefs", "harness")

(what ``marple export data/beliefs --family beliefs --format harness --out exports/beliefs --per-type 10`` runs:
each family's command offers these formats through its ``exporters``).

* ``datasets``: :mod:`.datasets_export` (Parquet, the card, the frames);
* ``harness``: the same folder, with ``lm_eval/`` (:mod:`.lm_eval_tasks`) and ``inspect_tasks.py``
  (:mod:`.inspect_tasks`) beside it.

``per_type`` keeps the first N items of each type, in the set's order (a subsample stratified by type: the same
items every time); the whodunit's type is its scenario, its items the trials' evidence points (``per_type``
counts trials there).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from marple_eval.harness.datasets_export import AGENT_BIBTEX, MARPLE_BIBTEX, MMTOM_BIBTEX, Source, write_dataset
from marple_eval.harness.items import Item, belief_items, expectation_items, whodunit_items
from marple_eval.harness.lm_eval_tasks import FOLDER, task_name, write_lm_eval_tasks
from marple_eval.protocol import dataset_episodes
from marple_gym.beliefs.questions.sets import FORMAT as BELIEF_FORMAT
from marple_gym.beliefs.questions.sets import read_question_set
from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.datasets.selection import whodunit_scenarios
from marple_gym.expectations.sets import FORMAT as TRIAL_FORMAT
from marple_gym.expectations.sets import read_trial_set, trial_set_spec
from marple_gym.files import atomic_write

FORMATS = ("datasets", "harness")
INSPECT_FILE = "inspect_tasks.py"
T = TypeVar("T")

MEASURES = {
    "beliefs": (
        "A two-option question about a person searching a house (MMToM-QA's seven types: belief inference 1.1-1.3, "
        "goal inference 2.1-2.4), asked at a cut of an episode: the text condition is the house as it began and "
        "what the people did up to the cut; the frames are eight pictures from the start to the cut, drawn as a "
        "camera sees them (closed containers show no contents). The answer is the exact observer's (inverse "
        "planning with the searcher's own policy), kept only where it gives the answer at least 0.9. Scored as "
        "MMToM-QA: accuracy per type, chance 0.5."
    ),
    "expectations": (
        "A test trial of AGENT's design as a two-alternative item: familiarisation videos of one agent, then two "
        "test videos of it, one expected and one surprising given the familiarisation, in the order the project's "
        "rating runs show them; the model says which test is the more surprising. Choosing the surprising test is "
        "AGENT's pairwise metric for that pair (the surprising test rated more surprising), so accuracy per type "
        "is AGENT's score, chance 0.5. The videos are text (what an onlooker sees: nothing behind the screen) "
        "and frames (the occluder drawn). `ratings` holds each test's own 0-100 rating prompt, for rating methods."
    ),
    "whodunit": (
        "MARPLE's question at one evidence point: two agents' scenes (one step before tau and at tau, as scene "
        "graphs in text), the query state and 'who did it?', answered from 0 (certainly Agent A) to 100 "
        "(certainly Agent B); the culprit is shown as A or B as the evaluation draws it. A generated answer scores "
        "as the paper scored GPT-4: the probability given to the culprit; the log-likelihood variant compares the "
        "scale's two ends. The paper's headline (the evidence needed for 0.8 accuracy) is read from the score at "
        "each `fraction`. No frames: the whodunit's LLM baseline reads scene graphs."
    ),
}


def _first_per_type(items: Iterable[T], kind: Any, per_type: int | None) -> Iterator[T]:
    """The first ``per_type`` items of each type (all with None), in order."""
    seen: dict[str, int] = {}
    for item in items:
        k = kind(item)
        seen[k] = seen.get(k, 0) + 1
        if per_type is None or seen[k] <= per_type:
            yield item


def belief_export(data: str | os.PathLike, per_type: int | None = None) -> tuple[list[Item], Source]:
    """A belief question set's items (the first ``per_type`` of each type) and its card's source."""
    questions = _first_per_type(read_question_set(data, "test"), lambda q: q.type, per_type)
    source = Source("beliefs", "MARPLE-Gym belief questions (MMToM-QA's types)", "MMToM-QA (Jin et al., 2024)",
                    _commands("beliefs", data, per_type), None, BELIEF_FORMAT, MEASURES["beliefs"],
                    (MARPLE_BIBTEX, MMTOM_BIBTEX))  # fmt: skip
    return list(belief_items(questions)), source


def expectation_export(
    data: str | os.PathLike, per_type: int | None = None, seed: int = 0
) -> tuple[list[Item], Source]:
    """An expectation trial set's test trials as two-alternative items (the tests in the order of ``seed``)."""
    trials = _first_per_type(read_trial_set(data, "test"), lambda t: t.key.type, per_type)
    source = Source("expectations", "MARPLE-Gym expectation trials (AGENT's design)", "AGENT (Shu et al., 2021)",
                    _commands("expectations", data, per_type), trial_set_spec(data).seed, TRIAL_FORMAT,
                    MEASURES["expectations"], (MARPLE_BIBTEX, AGENT_BIBTEX))  # fmt: skip
    return list(expectation_items(trials, seed)), source


def whodunit_export(data: str | os.PathLike, per_type: int | None = None) -> tuple[list[Item], Source]:
    """A whodunit dataset's test trials (the first ``per_type`` of each scenario) at every evidence point."""
    dataset = MarpleDataset(data)
    episodes = dataset_episodes(dataset, whodunit_scenarios(dataset), per_type)
    source = Source("whodunit", "MARPLE-Gym whodunit questions (MARPLE's LLM prompt)", "MARPLE (Jin et al., 2024)",
                    _commands("whodunit", data, per_type), dataset.spec.seed, "marple-dataset",
                    MEASURES["whodunit"], (MARPLE_BIBTEX,))  # fmt: skip
    return list(whodunit_items(episodes)), source


def _commands(family: str, data: str | os.PathLike, per_type: int | None) -> str:
    """The commands that make a set and its export, for the card."""
    sub = "" if per_type is None else f" --per-type {per_type}"
    return (
        f"marple generate --family {family} --out {data}\n"
        f"marple export {data} --family {family} --format harness --out OUT{sub}"
    )


def export_items(items: Sequence[Item], source: Source, out: str | os.PathLike, fmt: str = "harness") -> list[Path]:
    """Write ``items`` into the folder ``out`` as ``fmt`` (:data:`FORMATS`; see the module docs); the files."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    written = write_dataset(items, out, source)
    if fmt == "harness":
        kinds = sorted({i.type for i in items})
        written += write_lm_eval_tasks(source.family, kinds, items[0].choices, out, Path(out) / FOLDER)
        with atomic_write(Path(out) / INSPECT_FILE) as handle:
            handle.write(inspect_file(source.family, kinds))
        written.append(Path(out) / INSPECT_FILE)
    return written


def inspect_file(family: str, kinds: list[str]) -> str:
    """The ``inspect_tasks.py`` an export holds (:mod:`.inspect_tasks`): one ``@task`` for the family, one a type."""
    tasks = [(task_name(family), "all")] + [(task_name(family, kind), kind) for kind in kinds]
    head = (
        f'"""Inspect tasks over this export of MARPLE-Gym\'s {family} items (written by marple export):\n'
        f'inspect eval inspect_tasks.py@{task_name(family)} --model ... (-T condition=multimodal: with the frames)."""\n\n'
        "from pathlib import Path\n\nfrom inspect_ai import task\n\n"
        "from marple_eval.harness.inspect_tasks import family_task\n\nHERE = Path(__file__).resolve().parent\n"
    )
    body = "".join(
        f'\n\n@task\ndef {name}(condition: str = "text"):\n    return family_task(HERE, {kind!r}, condition)\n'
        for name, kind in tasks
    )
    return head + body
