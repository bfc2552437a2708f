"""A generated reply to an item, scored as the family's source paper scores it (the harnesses call these).

* beliefs: the first letter of the reply, as MMToM-QA reads it (:func:`marple_eval.beliefs.llm.parse_choice`);
* expectations: the test named (1 or 2), the pair right when it is the surprising one (AGENT's pairwise metric);
* whodunit: the answer from 0 to 100 (:func:`marple_eval.llm.answers.parse_answer`), the probability given to
  the culprit: 1 - N/100 when the culprit is shown as A, N/100 as B (MARPLE's score of GPT-4).

A reply that gives no answer scores 0.5, as the project's methods do (one half to each option, a tie) and is
counted in ``answered``: a score where few replies count says more about the prompt than about the model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from marple_eval.beliefs.llm import parse_choice
from marple_eval.llm.answers import parse_answer

NO_ANSWER = 0.5
_TEST = re.compile(r"^\W*(?:answer\W*)?(?:test(?: video)?\s*)?([12])\b", re.IGNORECASE)


def parse_test(text: str | None) -> int | None:
    """0 for a reply naming test 1 first, 1 for test 2, None for one that names neither."""
    found = _TEST.match(text or "")
    return None if found is None else int(found.group(1)) - 1


def choice_score(family: str, reply: str | None, answer: int) -> float | None:
    """The score of a reply to an item whose right choice is ``answer``; None where the reply gives no answer."""
    if family == "whodunit":
        value = parse_answer(reply)
        return None if value is None else (1.0 - value / 100.0 if answer == 0 else value / 100.0)
    chosen = parse_choice(reply) if family == "beliefs" else parse_test(reply)
    return None if chosen is None else float(chosen == answer)


def reply_scores(doc: Mapping[str, Any], reply: str | None) -> dict[str, float]:
    """``acc`` (the score, :data:`NO_ANSWER` where the reply gives none) and ``answered`` (1 or 0)."""
    score = choice_score(doc["family"], reply, int(doc["answer"]))
    return {"acc": NO_ANSWER if score is None else score, "answered": float(score is not None)}


def process_results(doc: Mapping[str, Any], results: list[str]) -> dict[str, float]:
    """lm-evaluation-harness's ``process_results`` for a generation task: the first reply's scores."""
    return reply_scores(doc, results[0] if results else None)
