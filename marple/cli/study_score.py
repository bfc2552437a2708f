"""``marple study-score``: score the people of a study, as the methods are scored, from the response files to the
table; the family of the set the study was built from says how."""

from __future__ import annotations

from marple.cli.families import add_family_command


def add_parser(subparsers) -> None:
    add_family_command(
        subparsers,
        "study-score",
        help="score a belief-question or expectation-trial study's responses: the per-type table",
        description=(
            "Score the response files of a web study built from a set (`marple study-web --data SET`) against "
            "that set, and print the table the methods' tables print. Belief questions: accuracy per type with "
            "95%% intervals, chance and the Brier score against the exact observer, every participant's answer "
            "counted (a choice of (a) is (1, 0)). Expectation trials: each participant's surprise ratings z-scored "
            "over their own ratings, a test's rating the mean over the participants shown it, pairwise accuracy "
            "per type and scenario with 95%% intervals. One session per participant counts, the first. (Whodunit "
            "answers: `marple evaluate --responses`.)"
        ),
        of_set="--set",
    )
