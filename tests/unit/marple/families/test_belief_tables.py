"""The belief family's tables: the shortcut panel's rules beside the methods with the panel's verdict, a method
trained with several seeds as one column over its seeds, the answer key named as the ceiling, and the types too
small to compare named."""

from __future__ import annotations

from types import SimpleNamespace

from marple.families.beliefs import belief_tables, small_types
from marple_eval.beliefs import BeliefResults
from marple_eval.beliefs.scoring import score
from marple_gym.beliefs.questions.question import QUESTION_TYPES

TYPES = [kind for kind in QUESTION_TYPES for _ in range(20)]
QUESTIONS = [SimpleNamespace(id=f"q{i}", type=kind, answer=i % 2, posterior=float(i % 2 == 0))
             for i, kind in enumerate(TYPES)]  # fmt: skip


def _run(method: str, role: str, right, seed: int = 0) -> BeliefResults:
    """Results of a method that answers question i rightly where ``right(i)``, surely."""
    answers = [(1.0, 0.0) if right(i) == (q.answer == 0) else (0.0, 1.0) for i, q in enumerate(QUESTIONS)]
    records = [{"id": q.id, "type": q.type, "answer": q.answer, "posterior": q.posterior, "p": list(a)}
               for q, a in zip(QUESTIONS, answers)]  # fmt: skip
    return BeliefResults(method, {"seed": seed}, records, score(QUESTIONS, answers), role=role)


def test_the_panel_sits_beside_the_methods_with_its_verdict_and_the_answer_key_is_the_ceiling():
    runs = [
        _run("observer", "answer_key", lambda i: True),
        _run("uniform", "method", lambda i: i % 4 < 2),
        _run("always (a)", "shortcut", lambda i: i % 4 < 2),
        _run("last target", "shortcut", lambda i: TYPES[i] != "2.4" or i % 10 < 9),
    ]
    text = belief_tables(runs)
    assert "| type | n | uniform | always (a) | last target | answer key (ceiling) |" in text
    assert "observer" not in text.split("\n\n")[1]  # never as a method's row
    assert "shortcut panel: **fails**" in text and "last target on 2.4: 0.90 (n = 20)" in text
    passing = belief_tables(runs[:3])
    assert "shortcut panel: **passes**" in passing


def test_a_method_trained_with_several_seeds_is_one_column_with_each_seeds_figure():
    runs = [_run("bip", "method", lambda i, s=s: i % (s + 2) != 0, seed=s) for s in range(3)]
    text = belief_tables(runs)
    assert "| type | n | bip, 3 seeds |" in text and "shortcut panel" not in text
    assert "bip, 3 seeds: 0.50, 0.66, 0.75" in text


def test_the_types_with_too_few_questions_are_named_with_their_counts():
    few = [SimpleNamespace(type=kind) for kind in ("1.1",) * 25 + ("2.4",) * 3]
    assert small_types(few) == ["1.2 (n = 0)", "1.3 (n = 0)", "2.1 (n = 0)", "2.2 (n = 0)", "2.3 (n = 0)",
                                "2.4 (n = 3)"]  # fmt: skip
