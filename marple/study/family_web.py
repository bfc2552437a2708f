"""The web study of belief questions (a two-option page) and of expectation trials (a surprise slider).

``marple study-web --data SET`` builds one from a set ``marple generate`` wrote
(:func:`build_question_study`, :func:`build_trial_study`; the sets read by :mod:`~marple.study.families`), into the same kind of folder as a whodunit study
(:mod:`~marple.study.web`: the page, ``study-data.js``, ``frames/``), served and
collected by the same ``marple study-server``, with the same consent,
instruction and end pages, write key, return codes and trial sequences (sequence
k has seed + k, ordered by :func:`~marple.study.trials.trial_order`; a
participant gets one by id or ``?order=k``).

* **Belief questions**: per question the house as the episode began, what the
  agents did up to the cut (MMToM-QA's text, :mod:`marple_gym.beliefs.questions.text`),
  stills of the house from the start to the cut
  (:func:`marple_gym.beliefs.questions.conditions.frames`: closed containers drawn
  empty), the question and its options (a) and (b). The answer is a click on
  (a) or (b), or with ``confidence`` a slider from "surely (a)" to "surely (b)".
  The folder holds no answer.
* **Expectation trials**: per trial the familiarisation episodes and one test,
  animated at ``fps`` frames a second
  (:func:`marple_gym.expectations.pictures.episode_frames`: the occluder drawn,
  lifted at the end of a reveal), then a 0-100 surprise slider. Which test a
  sequence shows comes from its seed (:func:`~marple.study.families.shown_tests`);
  the folder does not say which of a trial's two test views is which (their
  names are drawn from the seed), and the server writes the test's name into
  each rating line.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from marple.study.families import shown_tests, study_questions, study_trials
from marple.study.responses import FAMILIES
from marple.study.trials import StudyError, fresh_seed, trial_order
from marple.study.web import (
    BuiltStudy,
    WebStudyOptions,
    building,
    contact_note,
    copy_assets,
    fill_pages,
    save_frame,
    study_header,
    write_study_data,
)
from marple_gym.beliefs.questions.conditions import frame_steps, frames
from marple_gym.beliefs.questions.question import BeliefQuestion
from marple_gym.beliefs.questions.text import describe_house, narrate, premise_words, statement_words
from marple_gym.expectations.pictures import episode_frames, titles
from marple_gym.expectations.trial import Trial

log = logging.getLogger(__name__)

SECONDS_PER_QUESTION = 75.0
SECONDS_PER_RATING = 8.0
SECONDS_OF_PAGES = 120.0
"""The time estimate's assumptions: reading a belief question and answering it, rating a test once it is
watched, and the pages around them (replace them with a pilot's figures via --minutes)."""


@dataclass(frozen=True)
class FamilyOptions:
    """What a belief or expectation study shows beyond the options every web study has."""

    frames: int = 8  # stills per belief question, from the start to the cut (MMToM-QA gave GPT-4V eight)
    confidence: bool = False  # belief questions answered on a confidence slider rather than with a click
    fps: float = 4.0  # frames a second of the expectation trials' animation
    pause: float = 1.0  # seconds each animation holds its last frame before the next one starts

    def __post_init__(self) -> None:
        if self.frames < 1:
            raise StudyError(f"need at least one frame per question, got {self.frames}")
        if not (math.isfinite(self.fps) and 0.5 <= self.fps <= 60):
            raise StudyError(f"the animation's frames per second must be in 0.5..60, got {self.fps}")
        if not (math.isfinite(self.pause) and 0 <= self.pause <= 10):
            raise StudyError(f"the pause after each animation must be 0..10 seconds, got {self.pause}")


def build_question_study(
    source: str | Path,
    out: str | Path,
    seed: int | None,
    limit: int | None = None,
    options: WebStudyOptions | None = None,
    family_options: FamilyOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
    orders: int | None = None,
) -> BuiltStudy:
    """Build the study folder ``out`` (which must not exist yet) of the belief question set ``source``: its test
    questions, at most ``limit`` per type, in ``orders`` trial sequences (default 1). ``options`` and
    ``family_options`` default to their classes' defaults; ``progress(done, total)`` is called per question."""
    family_options = family_options or FamilyOptions()
    questions = study_questions(source, limit)
    return _build(
        "beliefs", source, out, seed, questions, orders or 1, options,
        lambda work, seed, orders, options: _belief_views(work, questions, seed, orders, options, family_options,
                                                         progress),
        SECONDS_OF_PAGES + SECONDS_PER_QUESTION * len(questions), family_options,
    )  # fmt: skip


def build_trial_study(
    source: str | Path,
    out: str | Path,
    seed: int | None,
    limit: int | None = None,
    options: WebStudyOptions | None = None,
    family_options: FamilyOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
    orders: int | None = None,
) -> BuiltStudy:
    """Build the study folder ``out`` (which must not exist yet) of the expectation trial set ``source``: its test
    trials, at most ``limit`` per type, in ``orders`` trial sequences (default 2, so that each test of a trial is
    shown to as many sequences; an odd number is refused). ``progress(done, total)`` is called per trial."""
    family_options = family_options or FamilyOptions()
    orders = 2 if orders is None else orders
    if orders % 2:
        raise StudyError(
            f"need an even number of trial orders for expectation trials (each trial's two tests shown by as many "
            f"sequences), got {orders}"
        )
    trials = study_trials(source, limit)
    seconds = SECONDS_OF_PAGES
    for trial in trials:
        steps = sum(len(e.states) for e in trial.familiarisation) + len(trial.expected.states)
        pauses = (len(trial.familiarisation) + 1) * family_options.pause
        seconds += steps / family_options.fps + pauses + SECONDS_PER_RATING
    return _build(
        "expectations", source, out, seed, trials, orders, options,
        lambda work, seed, orders, options: _trial_views(work, trials, seed, orders, options, progress),
        seconds, family_options,
    )  # fmt: skip


def _build(
    family: str,
    source: str | Path,
    out: str | Path,
    seed: int | None,
    items: Sequence[Any],
    orders: int,
    options: WebStudyOptions | None,
    views_of: Callable[..., tuple[dict[str, Any], list[dict[str, Any]]]],
    seconds: float,
    family_options: FamilyOptions,
) -> BuiltStudy:
    """The study folder of ``items`` of a family's set, their pages written by ``views_of(work, seed, orders,
    options)``; ``seconds``: the estimated time of the whole study."""
    options = options or WebStudyOptions()
    seed = fresh_seed() if seed is None else seed
    out = Path(out)
    if out.exists():
        raise StudyError(f"{out} already exists; choose a new folder for the study")
    if orders < 1:
        raise StudyError(f"need a positive number of trial orders, got {orders}")
    if options.practice > 1 or options.attention_checks or options.modality != "vision":
        raise StudyError("practice trials, attention checks and --modality belong to whodunit studies")
    ids = [item.id for item in items]
    minutes = options.minutes or 5 * math.ceil(seconds / 300)  # rounded up to 5 (see SECONDS_...)
    fill = {"minutes": str(minutes), "trials": str(len(ids)), "contact": contact_note(options)}
    pages = fill_pages(options, fill, prefix=f"{family}-")
    with building(out) as work:
        copy_assets(work)
        views, sequences = views_of(work, seed, orders, options)
        study = {
            **study_header(options, seed, Path(source), ids, minutes, pages),
            "family": family,
            "scenario": None,
            "modality": FAMILIES[family].modalities[0],
            "confidence": family_options.confidence,
            "fps": family_options.fps,
            "pause": family_options.pause,
            "sequences": sequences,
            "practice": [],
            "checks": [],
            "views": views,
        }
        write_study_data(work, study)
    log.info("web study of %s with %d items in %d orders in %s", family, len(ids), orders, out)
    return BuiltStudy(out, seed)


# ---- belief questions --------------------------------------------------------------------------------------
def _belief_views(
    work: Path,
    questions: Sequence[BeliefQuestion],
    seed: int,
    orders: int,
    options: WebStudyOptions,
    family_options: FamilyOptions,
    progress: Callable[[int, int], None] | None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    views, name_of = {}, {}
    for done, question in enumerate(questions, 1):
        name = f"q{done - 1:03d}"
        views[name] = question_view(work, name, question, family_options.frames, options.tile_size)
        name_of[question.id] = name
        if progress:
            progress(done, len(questions))
    ids = [q.id for q in questions]
    sequences = [{"seed": seed + k, "views": [name_of[i] for i in trial_order(ids, seed + k)]} for k in range(orders)]
    return views, sequences


def question_view(work: Path, name: str, question: BeliefQuestion, count: int, tile_size: int) -> dict[str, Any]:
    """Write a question's stills under ``frames/<name>/`` and return what its page shows (never its answer)."""
    folder = work / "frames" / name
    folder.mkdir(parents=True)
    steps = frame_steps(question, count)
    for i, frame in enumerate(frames(question, count, tile_size)):
        save_frame(frame, folder / f"{i:02d}.png")
    trace = question.episode.trace()
    names = question.names[: trace.house.num_agents]
    searcher = question.names[question.episode.searcher]
    return {
        "item": question.id,
        "type": question.type,
        "house": describe_house(trace.house, trace.states[0]),
        "who": _listed(list(names)),
        "legend": "In the pictures "
        + _listed([f"{n} is the {c} triangle" for n, c in zip(names, trace.house.agent_colors)])
        + ".",
        "actions": narrate(question.episode, question.end_time, names),
        "question": premise_words(trace.house, question, searcher),
        "options": [statement_words(trace.house, option, searcher) for option in question.options],
        "frames": f"frames/{name}/",
        "steps": [int(t) for t in steps],
    }


def _listed(words: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


# ---- expectation trials ------------------------------------------------------------------------------------
def _trial_views(
    work: Path,
    trials: Sequence[Trial],
    seed: int,
    orders: int,
    options: WebStudyOptions,
    progress: Callable[[int, int], None] | None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    # The two test views of each trial get names in an order drawn from the seed, so a name says nothing.
    names = [f"v{i:03d}" for i in np.random.default_rng([seed, 5]).permutation(2 * len(trials)).tolist()]
    views, name_of = {}, {}
    for done, trial in enumerate(trials, 1):
        folder = f"t{done - 1:03d}"
        episodes = [
            _write_episode(work, f"{folder}/f{j}", title, episode, options.tile_size)
            for j, (title, episode) in enumerate(titles(trial)[: len(trial.familiarisation)])
        ]
        for test, episode in trial.tests.items():
            name = names.pop()
            shown = _write_episode(work, f"{folder}/{name}", "Test", episode, options.tile_size)
            views[name] = {
                "item": trial.id,
                "scenario": trial.key.scenario,
                "type": trial.key.type,
                "episodes": [*episodes, shown],
            }
            name_of[trial.id, test] = name
        if progress:
            progress(done, len(trials))
    ids = [t.id for t in trials]
    sequences = []
    for k in range(orders):
        order = trial_order(ids, seed + k)
        tests = shown_tests(order, seed + k, k)
        sequences.append({"seed": seed + k, "views": [name_of[i, test] for i, test in zip(order, tests)]})
    return dict(sorted(views.items())), sequences


def _write_episode(work: Path, path: str, title: str, episode, tile_size: int) -> dict[str, Any]:
    """Write an episode's frames (as an onlooker sees them) under ``frames/<path>/``; what the page needs."""
    folder = work / "frames" / path
    folder.mkdir(parents=True)
    shown = episode_frames(episode, tile_size)
    for t, frame in enumerate(shown):
        save_frame(frame, folder / f"{t:03d}.png")
    return {"title": title, "frames": f"frames/{path}/", "steps": len(shown)}
