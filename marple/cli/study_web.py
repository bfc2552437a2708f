"""``marple study-web``: build the browser study of a set, a self-contained static folder (``marple
study-server`` serves it and collects its answers); the set's family says what it shows."""

from __future__ import annotations

from marple.cli.families import add_family_command


def add_parser(subparsers) -> None:
    add_family_command(
        subparsers,
        "study-web",
        help="human study in the browser: build a self-contained static study folder (jsPsych)",
        description=(
            "Build a static folder that runs a study of the set --data in a participant's browser, offline and "
            "without a server, with consent and instruction pages from editable templates. Participants are named "
            "by the URL (?PROLIFIC_PID=... or ?participant=...). Answers are offered as a download at the end and, "
            "with --post, sent answer by answer to `marple study-server`. Whodunit trials: both houses at every "
            "step and a 0-100 slider at the 11 evidence points (score with `marple evaluate --responses FILE`); "
            "belief questions: a two-option page per question; expectation trials: a surprise slider after each "
            "trial's familiarisation and one of its tests (score both with `marple study-score`). "
            "`marple study-web --data SET --help` lists the options of the set's family."
        ),
        of_set="--data",
    )
