"""``marple study-score``: score the people of a belief-question or expectation-trial study, as the methods are
scored, from the response files to the table."""

from __future__ import annotations

import argparse
import json

from marple.study.family_scores import score_study
from marple_gym.files import atomic_write


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "study-score",
        help="score a belief-question or expectation-trial study's responses: the per-type table",
        description=(
            "Score the response files of a web study built from a belief question set or an expectation trial "
            "set (`marple study-web --data SET`) against that set, and print the table the methods' tables print. "
            "Belief questions: accuracy per type with 95%% intervals, chance and the Brier score against the exact "
            "observer, every participant's answer counted (a choice of (a) is (1, 0)). Expectation trials: each "
            "participant's surprise ratings z-scored over their own ratings, a test's rating the mean over the "
            "participants shown it, pairwise accuracy per type and scenario with 95%% intervals. One session per "
            "participant counts, the first. (Whodunit answers: `marple evaluate --responses`.)"
        ),
    )
    parser.add_argument("responses", nargs="+", help="response files (.jsonl) of the study (server or downloads)")
    parser.add_argument("--set", required=True, dest="source", metavar="SET", help="the set the study was built from")
    parser.add_argument("--out", metavar="JSON", help="also write the scores as JSON to this file")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    scored = score_study(args.responses, args.source)
    what = "questions answered" if scored.family == "beliefs" else "tests rated"
    print(f"human ({scored.participants} participants, {scored.answers} {what}):")
    print(scored.table)
    if scored.left_out or scored.unpaired:
        print(
            f"not scored: {scored.left_out} answers of repeat sessions or given again, "
            f"{scored.unpaired} trials rated in one test only"
        )
    if args.out:
        with atomic_write(args.out) as f:
            json.dump(scored.to_json(), f, indent=1)
        print(f"scores written to {args.out}")
    return 0
