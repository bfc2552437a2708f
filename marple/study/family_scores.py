"""Scoring the people of a belief or expectation study, as the methods are scored (``marple study-score``).

The response files are read as for whodunits (:func:`marple.study.human.collect`: strictly, one session per
participant, the first; a repeat session's lines are not scored), then:

* **Belief questions**: each participant's answer to a question is one answer, a choice of (a) being
  ``(1.0, 0.0)``, of (b) ``(0.0, 1.0)`` and a confidence slider s ``((100 - s) / 100, s / 100)``; all answers
  are scored together with :func:`marple_eval.beliefs.score`, so a type's accuracy is the mean accuracy of
  people's answers (as MMToM-QA reports its human baseline), its interval resampling answers, and the Brier
  score compares each answer with the exact observer's posterior.
* **Expectation trials**: each participant's ratings are z-scored over that participant's ratings
  (:func:`marple_eval.expectations.standardise`, AGENT's human baseline); a trial's rating of each test is the
  mean z-score of the participants shown that test, and :func:`marple_eval.expectations.accuracy_table` scores
  the pairs. A trial whose two tests were not both rated by someone is left out and counted.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from marple.study.families import shown_test, study_questions, study_trials
from marple.study.human import collect
from marple.study.responses import FAMILIES, ITEM_KEYS
from marple.study.trials import StudyError
from marple_eval.beliefs.scoring import format_table as belief_table
from marple_eval.beliefs.scoring import score
from marple_eval.expectations.methods import Rating
from marple_eval.expectations.scoring import accuracy_table, standardise
from marple_eval.expectations.scoring import format_table as expectation_table

log = logging.getLogger(__name__)


@dataclass
class FamilyScores:
    """A study's scores: its family, the table (as the methods' tables print it), the scores as plain data, and
    what was counted."""

    family: str
    table: str
    scores: dict[str, Any]
    participants: int
    answers: int
    left_out: int  # lines of repeat sessions and items a session answered again (the first answer counts)
    unpaired: int = 0  # expectation trials of which one test only was rated

    def to_json(self) -> dict[str, Any]:
        return {
            "method": "human",
            "family": self.family,
            "participants": self.participants,
            "answers": self.answers,
            "left_out": self.left_out,
            "unpaired": self.unpaired,
            "scores": self.scores,
        }


def belief_answer(line: dict[str, Any]) -> tuple[float, float]:
    """A ``choice`` line's answer as (P(a), P(b))."""
    if line.get("slider") is not None:
        return (100 - line["slider"]) / 100, line["slider"] / 100
    return (1.0, 0.0) if line["choice"] == "a" else (0.0, 1.0)


def _answer_lines(paths: list[str | Path], family: str) -> tuple[list[tuple[Any, dict[str, Any]]], int, int]:
    """The answer lines scoring uses, each with its session, the participants they come from, and how many were
    left out (repeat sessions, items answered again); read as for whodunits (:func:`~marple.study.human.collect`)."""
    responses = collect(paths)
    lines, left_out = [], 0
    participants, seen = set(), set()
    for session in responses.sessions:
        if (session.line.get("family") or "whodunit") != family:
            raise StudyError(f"{session.file}: a session of {session.line.get('family') or 'whodunit'}, not {family}")
        items = [line for line in session.lines if line["type"] == FAMILIES[family].line]
        if not session.counts:
            left_out += len(items)
            continue
        participants.add(session.participant)
        for line in items:  # an item answered again (files joined by hand) keeps its first answer
            key = (session.participant, line[ITEM_KEYS[line["type"]]])
            left_out += key in seen
            if key not in seen:
                seen.add(key)
                lines.append((session, line))
    if not lines:
        raise StudyError(f"no answers to score in {', '.join(str(p) for p in paths)}")
    return lines, len(participants), left_out


def score_question_study(paths: list[str | Path], source: str | Path) -> FamilyScores:
    """Score the response files ``paths`` of a belief question study against the set ``source`` it was built from
    (the set holds the answers, which the public study folder does not)."""
    lines, participants, left_out = _answer_lines(paths, "beliefs")
    return _score_beliefs(source, lines, participants, left_out)


def score_trial_study(paths: list[str | Path], source: str | Path) -> FamilyScores:
    """Score the response files ``paths`` of an expectation trial study against the set ``source`` it was built
    from (the set holds the trials' types, which the public study folder does not)."""
    lines, participants, left_out = _answer_lines(paths, "expectations")
    return _score_expectations(source, lines, participants, left_out)


def _score_beliefs(source, lines, participants: int, left_out: int) -> FamilyScores:
    by_id = {q.id: q for q in study_questions(source)}
    questions, answers = [], []
    for session, line in lines:
        question = by_id.get(line["question_id"])
        if question is None:
            raise StudyError(f"{session.file}: question {line['question_id']} is not a test question of {source}")
        questions.append(question)
        answers.append(belief_answer(line))
    scores = score(questions, answers)
    return FamilyScores("beliefs", belief_table({"human": scores}), scores, participants, len(answers), left_out)


def _score_expectations(source, lines, participants: int, left_out: int) -> FamilyScores:
    trials = {t.id: t for t in study_trials(source)}
    given: dict[str, dict[str, float]] = defaultdict(dict)  # participant -> {trial id/test: slider}
    for session, line in lines:
        if line["trial_id"] not in trials:
            raise StudyError(f"{session.file}: trial {line['trial_id']} is not a test trial of {source}")
        test = shown_test(session.line, line["trial_id"])  # as the server wrote it, or recomputed from the seed
        if line.get("test", test) != test:
            raise StudyError(f"{session.file}: the rating of {line['trial_id']} names test {line['test']}, not {test}")
        given[session.participant][f"{line['trial_id']}/{test}"] = float(line["slider"])
    z = standardise(given)
    pooled: dict[tuple[str, str], list[float]] = defaultdict(list)
    for ratings in z.values():
        for key, value in ratings.items():
            trial_id, test = key.rsplit("/", 1)
            pooled[trial_id, test].append(value)
    ratings, unpaired = [], 0
    for trial_id, trial in trials.items():
        if (trial_id, "expected") in pooled and (trial_id, "surprising") in pooled:
            mean = {test: float(np.mean(pooled[trial_id, test])) for test in ("expected", "surprising")}
            ratings.append(Rating(trial_id, trial.key.scenario, trial.key.type, mean["expected"], mean["surprising"]))
        elif any(trial_id == t for t, _ in pooled):
            unpaired += 1
    if unpaired:
        log.warning("%d trials were rated in one test only and are not scored", unpaired)
    if not ratings:
        raise StudyError("no trial has both tests rated: nothing to score (each test is shown to other sequences)")
    table = accuracy_table(ratings)
    scores = {name: accuracy.to_dict() for name, accuracy in table.items()}
    count = sum(len(r) for r in given.values())
    return FamilyScores(
        "expectations", expectation_table({"human": table}), scores, participants, count, left_out, unpaired
    )
