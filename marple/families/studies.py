"""What every family's studies share: the options of a web study (``marple study-web``: its set, folder, seed,
trial sequences, recruitment platform and pages) and of scoring one (``marple study-score``), and what the
commands say once a study is built."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from marple.options import positive_int, seed, tile_size
from marple.study.family_scores import FamilyScores
from marple.study.web import BuiltStudy, WebStudyOptions
from marple_gym.files import atomic_write


def add_web_study_arguments(parser: argparse.ArgumentParser, orders: str) -> None:
    """The options of every family's web study (``orders``: what ``--orders`` does for the family)."""
    parser.add_argument(
        "--data", required=True, help="the set the study shows (written by `marple generate`): its test items"
    )
    parser.add_argument("--out", required=True, help="the study folder to create (must not exist)")
    parser.add_argument(
        "--limit",
        type=positive_int,
        help="at most this many items per scenario or type, spread over the set: the items `marple evaluate "
        "--limit` scores",
    )
    parser.add_argument("--seed", type=seed, help="seed for the order of items (default: a fresh one, recorded)")
    parser.add_argument(
        "--tile-size", type=tile_size, default=24, help="pixels per cell of the house pictures (default: 24)"
    )
    parser.add_argument("--orders", type=int, default=None, metavar="K", help=orders)
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
        help="the duration the consent page states (default: estimated from the items)",
    )


def web_options(args: argparse.Namespace, **more: Any) -> WebStudyOptions:
    """The :class:`~marple.study.web.WebStudyOptions` of the options (``more``: a family's own fields)."""
    return WebStudyOptions(
        tile_size=args.tile_size,
        post_url=args.post,
        completion_url=args.completion_url,
        completion_code=args.completion_code,
        no_consent_url=args.no_consent_url,
        no_consent_code=args.no_consent_code,
        consent=Path(args.consent) if args.consent else None,
        instructions=Path(args.instructions) if args.instructions else None,
        contact=args.contact,
        minutes=args.minutes,
        **more,
    )


def rendering(unit: str) -> tuple[tqdm, Callable[[int, int], None]]:
    """A progress bar on standard error and the ``progress(done, total)`` callback that moves it."""
    bar = tqdm(unit=unit, desc="rendering", file=sys.stderr)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    return bar, progress


def tell_built(built: BuiltStudy, score: str) -> None:
    """Where the study is, how to serve it and how to score it."""
    out = built.folder
    print(f"{out}: web study, seed {built.seed}; open {out / 'index.html'}?participant=pilot or serve it with:")
    print(f"  marple study-server {out} --out responses.jsonl")
    print(f"and score it with:\n  {score}")


def add_study_score_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of scoring a study's responses (``marple study-score``)."""
    parser.add_argument("responses", nargs="+", help="response files (.jsonl) of the study (server or downloads)")
    parser.add_argument("--set", required=True, dest="source", metavar="SET", help="the set the study was built from")
    parser.add_argument("--out", metavar="JSON", help="also write the scores as JSON to this file")


def print_study_scores(scored: FamilyScores, what: str, out: str | None) -> int:
    """A study's table (``marple study-score``; ``what``: what its answers are), and with ``out`` its scores as
    JSON."""
    print(f"human ({scored.participants} participants, {scored.answers} {what}):")
    print(scored.table)
    if scored.left_out or scored.unpaired:
        print(
            f"not scored: {scored.left_out} answers of repeat sessions or given again, "
            f"{scored.unpaired} trials rated in one test only"
        )
    if out:
        with atomic_write(out) as f:
            json.dump(scored.to_json(), f, indent=1)
        print(f"scores written to {out}")
    return 0
