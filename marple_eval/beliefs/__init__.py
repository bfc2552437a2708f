"""Answering belief and goal questions (MMToM-QA's seven types): the methods, scoring and results files (the
methods by name: :mod:`marple_eval.methods.registry`), and the shortcut panel (rules with no theory of mind,
scored as methods, that a set must leave at chance: :mod:`.panel`). The questions themselves are made in
:mod:`marple_gym.beliefs.questions`.

::

    from marple_gym.beliefs.questions import QuestionSpec, generate_questions
    from marple_eval.beliefs import BeliefObserver, score

    questions = list(generate_questions(QuestionSpec(test_houses=4, episodes_per_house=10)))
    answers = BeliefObserver().answer_all(questions)
    print(score(questions, answers)["all"])

See docs/beliefs.md.
"""

from marple_eval.beliefs.llm import BeliefLLM
from marple_eval.beliefs.methods import CONDITIONS, BeliefInversePlanning, BeliefMethod, BeliefObserver, BeliefUniform
from marple_eval.beliefs.panel import ShortcutRule, TextClassifier, check_set, panel_scores, verdict
from marple_eval.beliefs.results import BeliefResults, score_answers
from marple_eval.beliefs.scoring import format_table, plot_scores, score, score_seeds

__all__ = [
    "BeliefLLM",
    "BeliefMethod",
    "BeliefObserver",
    "BeliefResults",
    "BeliefUniform",
    "CONDITIONS",
    "BeliefInversePlanning",
    "ShortcutRule",
    "TextClassifier",
    "check_set",
    "format_table",
    "panel_scores",
    "plot_scores",
    "score",
    "score_answers",
    "score_seeds",
    "verdict",
]
