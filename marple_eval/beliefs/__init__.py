"""Answering belief and goal questions (MMToM-QA's seven types): the methods, their registry, scoring and
results files. The questions themselves are made in :mod:`marple_gym.beliefs.questions`.

::

    from marple_gym.beliefs.questions import QuestionSpec, generate_questions
    from marple_eval.beliefs import ObserverMethod, score

    questions = list(generate_questions(QuestionSpec(test_houses=2, episodes_per_house=5)))
    answers = ObserverMethod().answer_all(questions)
    print(score(questions, answers)["all"])

See docs/beliefs.md.
"""

from marple_eval.beliefs.llm import LLMBeliefMethod
from marple_eval.beliefs.methods import BeliefMethod, InversePlanningMethod, ObserverMethod, UniformMethod
from marple_eval.beliefs.registry import METHODS, make_method
from marple_eval.beliefs.results import BeliefResults, score_answers
from marple_eval.beliefs.scoring import format_table, plot_scores, score

__all__ = [
    "BeliefMethod",
    "BeliefResults",
    "InversePlanningMethod",
    "LLMBeliefMethod",
    "METHODS",
    "ObserverMethod",
    "UniformMethod",
    "format_table",
    "make_method",
    "plot_scores",
    "score",
    "score_answers",
]
