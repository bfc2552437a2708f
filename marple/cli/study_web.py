"""``marple study-web``: build the browser study, a self-contained static folder (``marple study-server`` serves
it and collects its answers)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from marple.cli.options import nonnegative_int, positive_int
from marple.cli.study import add_session_arguments
from marple.study.web import WebStudyOptions, build_web_study
from marple_gym.datasets.dataset import MarpleDataset


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "study-web",
        help="human study in the browser: build a self-contained static study folder (jsPsych)",
        description=(
            "Build a static folder that runs the whodunit study in a participant's browser, offline and without "
            "a server: the trials `marple evaluate` scores for the same --data, --scenario and --limit, in an "
            "order and with sides drawn from --seed (as `marple study` does), both houses at every step, the "
            "question, the 11 evidence points with a 0-100 slider, and consent and instruction pages from "
            "editable templates. Participants are named by the URL (?PROLIFIC_PID=... or ?participant=...). "
            "Answers are offered as a download at the end and, with --post, sent answer by answer to "
            "`marple study-server`. Score with `marple evaluate --responses FILE`."
        ),
    )
    parser.add_argument("--data", required=True, help="dataset directory written by `marple generate`")
    parser.add_argument("--out", required=True, help="the study folder to create (must not exist)")
    add_session_arguments(parser)
    parser.add_argument(
        "--orders",
        type=int,
        default=1,
        metavar="K",
        help="build K trial sequences (seeds SEED..SEED+K-1); each participant gets one by id, or by ?order=k "
        "in the URL (default: 1, everyone sees one order)",
    )
    parser.add_argument(
        "--post",
        metavar="URL",
        help="send each answer to this URL as it is given (`answers` on `marple study-server`; default: download only)",
    )
    platform = parser.add_argument_group("recruitment platform (Prolific or another)")
    platform.add_argument(
        "--completion-code", metavar="CODE", help="the platform's completion code, shown on the end page"
    )
    platform.add_argument(
        "--completion-url",
        metavar="URL",
        help="the end page's link back to the platform, shown once every answer is saved ({code}: the code; "
        "default with --completion-code: Prolific's https://app.prolific.com/submissions/complete?cc=CODE)",
    )
    platform.add_argument("--no-consent-code", metavar="CODE", help="the platform's code for participants who decline")
    platform.add_argument(
        "--no-consent-url", metavar="URL", help="the decline page's link back to the platform (as --completion-url)"
    )
    pages = parser.add_argument_group("what participants read")
    pages.add_argument("--consent", metavar="HTML", help="consent page template (default: the shipped one)")
    pages.add_argument("--instructions", metavar="HTML", help="instruction page template (default: the shipped one)")
    pages.add_argument(
        "--contact", metavar="TEXT", help="who participants may contact about the study, shown on the consent page"
    )
    pages.add_argument(
        "--minutes",
        type=positive_int,
        metavar="N",
        help="the duration the consent page states (default: estimated from the trials' steps and answers)",
    )
    pages.add_argument(
        "--attention-checks",
        type=nonnegative_int,
        default=0,
        metavar="N",
        help="N pages between scored trials asking to move the slider to a given end (recorded, not scored; "
        "each participant's checks passed are reported by `marple evaluate --responses`; default: 0)",
    )
    parser.set_defaults(run=run_build)


def run_build(args: argparse.Namespace) -> int:
    options = WebStudyOptions(
        modality=args.modality,
        tile_size=args.tile_size,
        post_url=args.post,
        completion_url=args.completion_url,
        completion_code=args.completion_code,
        no_consent_url=args.no_consent_url,
        no_consent_code=args.no_consent_code,
        consent=Path(args.consent) if args.consent else None,
        instructions=Path(args.instructions) if args.instructions else None,
        contact=args.contact,
        practice=args.practice,
        attention_checks=args.attention_checks,
        minutes=args.minutes,
    )
    data = MarpleDataset(args.data)  # before the progress bar: a missing dataset is said alone
    with tqdm(unit="trial", desc="rendering trials", file=sys.stderr) as bar:

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        built = build_web_study(data, args.out, args.seed, args.scenario, args.limit, options, progress, args.orders)
    if not args.contact and not args.consent:
        print("note: no --contact: the consent page names no one participants can ask about the study", file=sys.stderr)
    out = built.folder
    print(f"{out}: web study, seed {built.seed}; open {out / 'index.html'}?participant=pilot or serve it with:")
    print(f"  marple study-server {out} --out responses.jsonl")
    return 0
