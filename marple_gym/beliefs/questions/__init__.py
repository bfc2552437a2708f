"""Belief and goal questions (MMToM-QA's seven types) about searching agents, made where the agents are:
the moments each type describes (:mod:`.moments`), their normative answers (the posterior over the searcher's
goal and belief), the text and frames a reader is shown, the cues a surface reader takes from the words
(:mod:`.cues`) and the balancing that leaves them at chance (:mod:`.balance`), and question sets on disk
(sharded under a manifest, MMToM-QA's JSON lines).

::

    from marple_gym.beliefs.questions import QuestionSpec, generate_questions

    questions = generate_questions(QuestionSpec(test_houses=4, episodes_per_house=10))  # a balanced split

The methods that answer them and the scoring are in :mod:`marple_eval.beliefs`. See docs/beliefs.md.
"""

from marple_gym.beliefs.questions.balance import balance_split
from marple_gym.beliefs.questions.export import check_mmtom_rows, read_questions, write_questions
from marple_gym.beliefs.questions.generate import (
    QuestionSpec,
    generate_questions,
    house_config,
    make_episode,
    make_questions,
)
from marple_gym.beliefs.questions.moments import episode_questions
from marple_gym.beliefs.questions.posterior import ActionModel, InversePlanner, PlannerModel
from marple_gym.beliefs.questions.question import DECISIVE, QUESTION_TYPES, BeliefQuestion, Statement
from marple_gym.beliefs.questions.sets import (
    generate_question_set,
    read_candidates,
    read_panel,
    read_question_set,
    read_training_episodes,
    record_panel,
)
from marple_gym.beliefs.questions.text import question_text

__all__ = [
    "ActionModel",
    "BeliefQuestion",
    "DECISIVE",
    "InversePlanner",
    "PlannerModel",
    "QUESTION_TYPES",
    "QuestionSpec",
    "Statement",
    "balance_split",
    "check_mmtom_rows",
    "episode_questions",
    "generate_question_set",
    "generate_questions",
    "house_config",
    "make_episode",
    "make_questions",
    "question_text",
    "read_candidates",
    "read_panel",
    "read_question_set",
    "read_questions",
    "read_training_episodes",
    "record_panel",
    "write_questions",
]
