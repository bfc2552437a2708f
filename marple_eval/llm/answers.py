"""Reading the 0-100 answer out of a completion, and turning answers into P(A), P(B).

Models do not always keep to the requested form, so several forms are
accepted, most explicit first: ``Answer: 85`` (also ``**Answer:** [85]``,
``Answer: 85/100``, ``answer is 85``), then a score out of 100 (``85/100``),
then a percentage (``I'd say 70%``), then a reply that is a bare number. The
last match of the first form found wins, since a model states its conclusion at
the end. Other numbers in the reasoning (cells such as ``(9, 5)``, step counts)
are never taken for the answer. Values outside 0-100 count as no answer.
"""

from __future__ import annotations

import re

_NUMBER = r"(?<![\d.])(\d{1,3}(?:\.\d+)?)(?!\d)"
_FORMS = (
    re.compile(r"answer[*_\s]*(?:is|:|=|-)?[*_\s]*(?:about|around|roughly)?\s*\[?\s*" + _NUMBER, re.I),
    re.compile(_NUMBER + r"\s*/\s*100\b"),
    re.compile(_NUMBER + r"\s*%"),
    re.compile(r"^\W*" + _NUMBER + r"\W*$"),
)


def parse_answer(text: str | None) -> float | None:
    """The answer (0 = certainly Agent A, 100 = certainly Agent B) in a completion, or None."""
    if not text:
        return None
    for form in _FORMS:
        found = form.findall(text)
        if found:
            value = float(found[-1])
            return value if 0 <= value <= 100 else None
    return None


def probabilities(answers: list[float | None]) -> tuple[float, float]:
    """P(A), P(B) from the mean of the parsed answers; 0.5 each when none parsed."""
    parsed = [a for a in answers if a is not None]
    if not parsed:
        return 0.5, 0.5
    p_b = sum(parsed) / len(parsed) / 100.0
    return 1.0 - p_b, p_b
