"""Questions on disk, in MMToM-QA's format so that its scripts run on them unchanged, and read back whole.

A question set is a folder of three JSON-lines files:

* ``questions.jsonl``: MMToM-QA's release format (``Benchmark/questions.json``), one question a line with
  exactly its eight fields: ``question`` (the text input, :func:`~marple_gym.beliefs.questions.text.question_text`),
  ``answer`` (``"a"`` or ``"b"``), ``question_type`` (a number, 1.1 to 2.4), ``test`` (the inputs the text
  holds, ``["init_graph", "actions"]`` as in the release), ``episode`` (a number: the line of the episode in
  ``episodes.jsonl``, from 0), ``start_time`` and ``end_time`` (the steps the question covers) and
  ``answer_list`` (``["a", "b"]``);
* ``episodes.jsonl``: the episodes (:meth:`SearchEpisode.to_json`), which rebuild every state;
* ``beliefs.jsonl``: the questions in full, line for line with ``questions.jsonl`` (options and premise as
  symbols, the exact observer's posterior, the split).

:func:`read_questions` reads the three back into equal questions, and checks each MMToM-QA line against the
question it stands for; :func:`check_mmtom_rows` checks a file of the release's format on its own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from marple_gym.beliefs.episodes import SearchEpisode
from marple_gym.beliefs.questions.question import QUESTION_TYPES, BeliefQuestion, QuestionError
from marple_gym.beliefs.questions.text import question_text
from marple_gym.files import atomic_write
from marple_gym.validation import Fields, message_error, read_json_lines

QUESTIONS, EPISODES, BELIEFS = "questions.jsonl", "episodes.jsonl", "beliefs.jsonl"
MMTOM_FIELDS: dict[str, type] = {
    "question": str,
    "answer": str,
    "question_type": float,
    "test": list,
    "episode": int,
    "start_time": int,
    "end_time": int,
    "answer_list": list,
}
"""MMToM-QA's fields and their JSON types, as its release has them."""
TEST = ["init_graph", "actions"]
"""What the text input holds, in the release's words: the initial state and the actions."""
ANSWER_LIST = ["a", "b"]


def mmtom_row(question: BeliefQuestion, episode: int) -> dict[str, Any]:
    """A question as a line of MMToM-QA's release (``episode``: its episode's number)."""
    return {
        "question": question_text(question),
        "answer": question.letter,
        "question_type": float(question.type),
        "test": list(TEST),
        "episode": episode,
        "start_time": question.start_time,
        "end_time": question.end_time,
        "answer_list": list(ANSWER_LIST),
    }


def check_mmtom_row(row: Any, file: str | None = None, where: str = "") -> None:
    """Raise :class:`QuestionError` unless ``row`` has exactly MMToM-QA's fields with their types and values."""
    f = Fields(row, where, message_error(QuestionError), file).allow(MMTOM_FIELDS).require(*MMTOM_FIELDS)
    for key, kind in MMTOM_FIELDS.items():
        value = f.get(key)
        if type(value) is not kind:
            raise f.fail(key, f"expected a JSON {kind.__name__}, got {type(value).__name__}")
    if f.get("answer") not in ANSWER_LIST or f.get("answer_list") != ANSWER_LIST:
        raise f.fail("answer", f"expected one of {ANSWER_LIST} and answer_list {ANSWER_LIST}")
    if f"{f.get('question_type'):.1f}" not in QUESTION_TYPES:
        raise f.fail("question_type", f"expected one of {', '.join(QUESTION_TYPES)}, got {f.get('question_type')}")
    if not all(isinstance(t, str) for t in f.get("test")):
        raise f.fail("test", "expected a list of strings")
    if not 0 <= f.get("start_time") <= f.get("end_time") or f.get("episode") < 0:
        raise f.fail("end_time", "expected 0 <= start_time <= end_time and an episode number >= 0")
    if not f.get("question").rstrip().endswith("Please respond with either a or b."):
        raise f.fail("question", "expected the text to end with 'Please respond with either a or b.'")


def check_mmtom_rows(path: str | os.PathLike) -> int:
    """Check every line of an MMToM-QA questions file (:func:`check_mmtom_row`); returns how many there are."""
    error = message_error(QuestionError)
    lines = read_json_lines(path, error, "questions file").entries
    for n, row in lines:
        check_mmtom_row(row, str(path), f"line {n}")
    return len(lines)


def write_questions(
    questions: Sequence[BeliefQuestion],
    folder: str | os.PathLike,
    episodes: Sequence[SearchEpisode] = (),
    *,
    details: str = BELIEFS,
    mmtom: bool = True,
) -> Path:
    """Write a question set (see the module docs) into ``folder``, each file whole or not at all: the episodes
    (``episodes``, in this order, then those of the questions not among them), the questions in full (into
    ``details``) and, with ``mmtom``, in MMToM-QA's format."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    numbers: dict[str, int] = {}
    ordered: list[SearchEpisode] = []
    for e in [*episodes, *(q.episode for q in questions)]:
        if e.id not in numbers:
            numbers[e.id] = len(ordered)
            ordered.append(e)
    _write_lines(out / EPISODES, [e.to_json() for e in ordered])
    _write_lines(out / details, [q.to_json(numbers[q.episode.id]) for q in questions])
    if mmtom:
        _write_lines(out / QUESTIONS, [mmtom_row(q, numbers[q.episode.id]) for q in questions])
    return out


def _write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    with atomic_write(path) as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")


def read_details(folder: str | os.PathLike, details: str = BELIEFS) -> list[BeliefQuestion]:
    """The questions in full (``details``, :meth:`BeliefQuestion.to_json` lines) of a folder, with its episodes,
    every line read strictly: a :class:`QuestionError` (or an episode's
    :class:`~marple_gym.beliefs.episodes.EpisodeError`) names the file and line at fault."""
    return [q for q, _ in _read_details(Path(folder), details)]


def _read_details(root: Path, details: str) -> list[tuple[BeliefQuestion, int]]:
    """Each question of a folder's ``details`` file with its episode's number."""
    error = message_error(QuestionError)
    episodes = [
        SearchEpisode.from_json(data, str(root / EPISODES), f"line {n}")
        for n, data in read_json_lines(root / EPISODES, error, "episodes file").entries
    ]
    return [
        (BeliefQuestion.from_json(data, episodes, str(root / details), f"line {n}"), data["episode"])
        for n, data in read_json_lines(root / details, error, "questions file").entries
    ]


def read_questions(folder: str | os.PathLike) -> list[BeliefQuestion]:
    """The questions of a set written by :func:`write_questions` (:func:`read_details`), each MMToM-QA line checked
    against the question it stands for: a :class:`QuestionError` names the file and line at fault."""
    root = Path(folder)
    questions = _read_details(root, BELIEFS)
    rows = read_json_lines(root / QUESTIONS, message_error(QuestionError), "questions file").entries
    if len(questions) != len(rows):
        raise QuestionError(f"{root / BELIEFS} has {len(questions)} questions but {root / QUESTIONS} {len(rows)}")
    for (question, episode), (m, row) in zip(questions, rows):
        check_mmtom_row(row, str(root / QUESTIONS), f"line {m}")
        if row != mmtom_row(question, episode):
            raise QuestionError(f"{root / QUESTIONS}: line {m}: does not match question {question.id} of {BELIEFS}")
    return [q for q, _ in questions]
