"""``marple evaluate``: score a method on a family's test items (whodunit trials by default; also human-study
responses to whodunit trials)."""

from __future__ import annotations

from marple.cli.families import add_family_command


def add_parser(subparsers) -> None:
    add_family_command(
        subparsers,
        "evaluate",
        help="score a method (or human-study responses) on whodunit trials, belief questions or expectation trials",
        description=(
            "Score a method on a family's test items and write a results file; an interrupted run resumes. "
            "--family whodunit (the default) runs the evaluation protocol on test pairs (or, with --responses, "
            "scores human-study answers); --family beliefs or expectations scores a method on a question or trial "
            "set per type with intervals (docs/beliefs.md, docs/expectations.md). --method names the method "
            "(--model is the same option), --method-arg its arguments, --list-methods the family's methods. "
            "`marple evaluate --family NAME --help` lists a family's options."
        ),
    )
