"""The study's other families: belief questions and expectation trials, read from the sets ``marple generate``
writes, and which test of an expectation trial each session shows.

A **belief question set** is a folder of MMToM-QA-style JSON lines (:func:`marple_eval.beliefs.read_questions`:
``questions.jsonl``, ``episodes.jsonl``, ``beliefs.jsonl``); an **expectation trial set** is AGENT's tree of
trial files (:func:`marple_gym.expectations.export.read_trials`). :func:`holds_questions` and :func:`holds_trials`
recognise them, and the study takes the test split of either (:func:`study_questions`, :func:`study_trials`).

AGENT showed each participant one of the two tests of a trial. :func:`shown_tests` assigns them: within a
session half the trials show their expected test and half their surprising one (seeded, the odd trial a coin
flip), and trial sequences come in pairs, sequence 2m + 1 showing each trial's other test than sequence 2m, so
that with an even number of sequences every test is shown to as many sequences as its partner.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from marple.study.responses import TESTS
from marple.study.trials import StudyError, culprit_sides
from marple_gym.beliefs.questions.export import BELIEFS
from marple_gym.beliefs.questions.export import read_questions as read_question_set
from marple_gym.beliefs.questions.question import BeliefQuestion
from marple_gym.errors import MarpleError
from marple_gym.expectations.export import read_trials
from marple_gym.expectations.trial import Trial

_TEST_STREAM = 4  # the seed's stream for the tests shown (trials.py uses 0-2, web.py 3)


def holds_questions(folder: str | Path) -> bool:
    """Whether ``folder`` holds a belief question set the study reads."""
    return _question_folder(Path(folder)) is not None


def holds_trials(folder: str | Path) -> bool:
    """Whether ``folder`` holds an expectation trial set the study reads (AGENT's tree of trial files)."""
    root = Path(folder)
    return root.is_dir() and next(root.glob("**/scenario_*/type_*/*_set/Trial_*.json"), None) is not None


def _question_folder(root: Path) -> Path | None:
    """The folder of a question set: ``root`` itself, or its one subfolder holding one."""
    if (root / BELIEFS).is_file():
        return root
    below = sorted(root.glob(f"*/{BELIEFS}")) if root.is_dir() else []
    return below[0].parent if len(below) == 1 else None


def _per_type(items: Sequence[Any], type_of, limit: int | None) -> list[Any]:
    """The first ``limit`` items of each type, in the set's order (all with None)."""
    taken: dict[str, int] = {}
    out = []
    for item in items:
        kind = type_of(item)
        if limit is None or taken.get(kind, 0) < limit:
            taken[kind] = taken.get(kind, 0) + 1
            out.append(item)
    return out


def study_questions(folder: str | Path, limit: int | None = None) -> list[BeliefQuestion]:
    """The test questions of the set in ``folder``, at most ``limit`` per type (in the set's order)."""
    root = _question_folder(Path(folder))
    if root is None:
        raise StudyError(f"{folder}: no belief question set here (no {BELIEFS}); write one with `marple generate`")
    try:
        questions = [q for q in read_question_set(root) if q.split == "test"]
    except MarpleError as exc:
        raise StudyError(str(exc)) from None
    if not questions:
        raise StudyError(f"{root}: the set has no test questions to ask")
    return _per_type(questions, lambda q: q.type, limit)


def study_trials(folder: str | Path, limit: int | None = None) -> list[Trial]:
    """The test trials (those with both tests) of the set under ``folder``, at most ``limit`` per type."""
    try:
        trials = [t for t in read_trials(folder) if t.surprising is not None]
    except MarpleError as exc:
        raise StudyError(str(exc)) from None
    if not trials:
        raise StudyError(f"{folder}: no expectation test trials here; write a set with `marple generate`")
    return _per_type(trials, lambda t: t.key.type, limit)


def shown_tests(trial_ids: Sequence[str], seed: int, sequence: int) -> list[str]:
    """Which test (``"expected"`` or ``"surprising"``) each trial of trial sequence ``sequence`` (of seed
    ``seed``) shows, balanced and seeded (see the module docs)."""
    base = seed - sequence % 2  # the pair's first sequence: its seed
    if base < 0:
        raise StudyError(f"sequence {sequence} cannot have seed {seed}: sequence k has the study's seed + k")
    canonical = sorted(trial_ids)  # every sequence lists the same trials: pairs show complementary tests
    sides = culprit_sides(len(canonical), base, _TEST_STREAM)
    flip = sequence % 2 == 1
    by_id = {t: TESTS[int((side == "B") != flip)] for t, side in zip(canonical, sides)}
    return [by_id[t] for t in trial_ids]


def shown_test(session: dict[str, Any], trial_id: str) -> str:
    """The test a session (its session line) shows of trial ``trial_id``, one of its trials."""
    trials = list(session.get("trials") or [])
    tests = shown_tests(trials, int(session.get("seed") or 0), int(session.get("sequence") or 0))
    return tests[trials.index(trial_id)]
