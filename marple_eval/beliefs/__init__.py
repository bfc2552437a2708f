"""Answering belief and goal questions (MMToM-QA's seven types): the methods, their registry, scoring and
results files, and the shortcut panel (rules with no theory of mind, scored as methods, that a set must leave
at chance: :mod:`.panel`). The questions themselves are made in :mod:`marple_gym.beliefs.questions`.

::

    from marple_gym.beliefs.questions import QuestionSpec, generate_questions
    from marple_eval.beliefs import ObserverMethod, score

    questions = generate_questions(QuestionSpec(test_houses=4, episodes_per_house=10))
    answers = ObserverMethod().answer_all(questions)
    print(score(questions, answers)["all"])

See docs/beliefs.md.
"""

from marple_eval.beliefs.llm import LLMBeliefMethod
from marple_eval.beliefs.methods import BeliefMethod, InversePlanningMethod, ObserverMethod, UniformMethod
from marple_eval.beliefs.panel import ShortcutRule, TextClassifier, check_set, panel_scores, verdict
from marple_eval.beliefs.registry import METHODS, make_method
from marple_eval.beliefs.results import BeliefResults, score_answers
from marple_eval.beliefs.scoring import format_table, plot_scores, score, score_seeds

__all__ = [
    "BeliefMethod",
    "BeliefResults",
    "InversePlanningMethod",
    "LLMBeliefMethod",
    "METHODS",
    "ObserverMethod",
    "ShortcutRule",
    "TextClassifier",
    "UniformMethod",
    "check_set",
    "format_table",
    "make_method",
    "panel_scores",
    "plot_scores",
    "score",
    "score_answers",
    "score_seeds",
    "verdict",
]
