"""Belief and goal questions (MMToM-QA's seven types) about searching agents: generation, the methods that
answer them, scoring, and the export to MMToM-QA's format.

::

    from marple_eval.beliefs import ObserverMethod, QuestionSpec, generate_questions, score

    questions = list(generate_questions(QuestionSpec(test_houses=10, episodes_per_house=10)))
    answers = ObserverMethod().answer_all(questions)
    print(score(questions, answers)["all"])

See docs/beliefs.md.
"""

from marple_eval.beliefs.export import check_mmtom_rows, read_questions, write_questions
from marple_eval.beliefs.generate import (
    QuestionSpec,
    balance_types,
    generate_questions,
    house_config,
    make_episode,
    make_questions,
)
from marple_eval.beliefs.inference import ActionModel, InversePlanner, PlannerModel
from marple_eval.beliefs.llm import LLMBeliefMethod
from marple_eval.beliefs.methods import BeliefMethod, InversePlanningMethod, ObserverMethod, UniformMethod
from marple_eval.beliefs.questions import DECISIVE, QUESTION_TYPES, BeliefQuestion, Statement, episode_questions
from marple_eval.beliefs.registry import METHODS, make_method
from marple_eval.beliefs.scoring import format_table, score
from marple_eval.beliefs.text import question_text

__all__ = [
    "ActionModel",
    "BeliefMethod",
    "BeliefQuestion",
    "DECISIVE",
    "InversePlanner",
    "InversePlanningMethod",
    "LLMBeliefMethod",
    "METHODS",
    "ObserverMethod",
    "PlannerModel",
    "QUESTION_TYPES",
    "QuestionSpec",
    "Statement",
    "UniformMethod",
    "balance_types",
    "check_mmtom_rows",
    "episode_questions",
    "format_table",
    "generate_questions",
    "house_config",
    "make_episode",
    "make_method",
    "make_questions",
    "question_text",
    "read_questions",
    "score",
    "write_questions",
]
