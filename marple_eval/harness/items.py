"""One harness item per question, trial or evidence point: the text a language model reads, the options, the
answer, and the frames a vision-language model sees.

Every family's item is the text its LLM method sends (one prompt per family, so a harness and ``marple evaluate
--model llm`` ask the same thing), with a closed set of ``choices`` that the log-likelihood variant scores after
``text + "\\nAnswer:"``:

* **beliefs** (MMToM-QA): the question's whole text (:func:`~marple_gym.beliefs.questions.text.question_text`,
  ending "Please respond with either a or b."); choices ``a``, ``b``; the frames are the question's eight
  (:func:`~marple_gym.beliefs.questions.conditions.frames`). Scored as MMToM-QA scores: accuracy per type.
* **expectations** (AGENT): a test trial as a two-alternative item: its familiarisation and both tests, in the
  order the project's rating runs show them (:func:`~marple_eval.expectations.methods.presentation_order`, seed 0
  by default), and "which test is the more surprising?"; choices ``1``, ``2``. Choosing the surprising test is
  AGENT's pairwise metric for that pair (the surprising test rated more surprising than the expected one). The
  frames are every video's (:func:`~marple_gym.expectations.pictures.evidence_frames`), each frame's video in
  ``frame_videos``. Each test's own rating prompt (0-100) is kept too (``ratings``), for rating methods.
* **whodunit** (MARPLE): one item per trial and evidence point: the paper's GPT-4 prompt (the instructions,
  the query state, each agent's scenes one step before tau and at tau, :func:`marple_eval.llm.prompts.messages`),
  the culprit shown as A or B as the evaluation draws it (:func:`marple_eval.protocol.placements`); choices ``0``
  (certainly Agent A) and ``100`` (certainly Agent B). A generated answer N from 0 to 100 scores as the paper
  scores it: the probability given to the culprit, 1 - N/100 or N/100.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from marple_eval.evidence import VISION, trial_evidence
from marple_eval.expectations.llm import messages as rating_messages
from marple_eval.expectations.llm import pair_text
from marple_eval.expectations.methods import presentation_order
from marple_eval.llm.prompts import messages as whodunit_messages
from marple_eval.protocol import placements
from marple_eval.settings import ProtocolSettings
from marple_gym.beliefs.questions.conditions import FRAMES, frame_steps, frames
from marple_gym.beliefs.questions.question import QUESTION_TYPES, BeliefQuestion
from marple_gym.beliefs.questions.text import question_text, statement_words
from marple_gym.expectations.pictures import evidence_frames
from marple_gym.expectations.scenarios import scenario_of
from marple_gym.expectations.trial import Trial
from marple_gym.recording.records import WhodunitEpisode

WHODUNIT_NAMES = ("agent-1", "agent-2")
"""The opaque names the whodunit prompt's agents carry (the prompt never shows them)."""


@dataclass(frozen=True, eq=False)
class Item:
    """One item (see the module docs)."""

    id: str
    family: str
    type: str
    """The question type (beliefs), trial type (expectations) or scenario (whodunit): one harness task each."""
    type_name: str
    text: str
    """The text condition's whole input, ending with the question."""
    options: tuple[str, ...]
    """The options in words (a multiple-choice solver lists them after :attr:`stem`)."""
    stem: str
    """The input without the options listed (for a solver that lists them itself)."""
    choices: tuple[str, ...]
    """What the log-likelihood variant compares after ``text + "\\nAnswer:"``."""
    answer: int
    """The index of the right choice."""
    frames: tuple[np.ndarray, ...] = ()
    frame_captions: tuple[str, ...] = ()
    fields: dict[str, Any] = field(default_factory=dict)
    """The family's own columns (the episode, the cut, the exact observer's posterior, ...)."""

    @property
    def target(self) -> str:
        return self.choices[self.answer]


# ---- beliefs ----------------------------------------------------------------------------------------------------


def belief_item(question: BeliefQuestion, count: int = FRAMES) -> Item:
    """A belief question as an item (see the module docs)."""
    text = question_text(question)
    house = question.episode.trace().house
    name = question.names[question.episode.searcher]
    options = tuple(statement_words(house, s, name) for s in question.options)
    listed = f" (a) {options[0]} (b) {options[1]} Please respond with either a or b."
    if not text.endswith(listed):
        raise ValueError(f"question {question.id}: its text does not end with its options")
    steps = frame_steps(question, count)
    return Item(
        id=question.id,
        family="beliefs",
        type=question.type,
        type_name=QUESTION_TYPES[question.type],
        text=text,
        options=options,
        stem=text[: -len(listed)],
        choices=("a", "b"),
        answer=question.answer,
        frames=tuple(frames(question, count)),
        frame_captions=tuple(f"Frame {k + 1} of {len(steps)}, step {t}" for k, t in enumerate(steps)),
        fields={
            "episode": question.episode.id,
            "start_time": question.start_time,
            "end_time": question.end_time,
            "frame_steps": steps,
            "posterior": question.posterior,
        },
    )


def belief_items(questions: Iterable[BeliefQuestion], count: int = FRAMES) -> Iterator[Item]:
    return (belief_item(q, count) for q in questions)


# ---- expectations -----------------------------------------------------------------------------------------------


def expectation_item(trial: Trial, seed: int = 0, count: int = FRAMES) -> Item:
    """A test trial as a two-alternative item (see the module docs)."""
    if trial.surprising is None:
        raise ValueError(f"{trial.id} has no surprising test: only test trials make two-alternative items")
    order = presentation_order(trial, seed)
    view = trial.view(order)
    videos = [
        (f"Familiarisation video {i + 1} of {len(view.familiarisation)}", e) for i, e in enumerate(view.familiarisation)
    ]
    videos += [(f"Test video {i + 1}", e) for i, e in enumerate(view.tests)]
    pictures, captions, owners = [], [], []
    for v, (title, evidence) in enumerate(videos):
        shown = evidence_frames(evidence, count)
        pictures += shown
        captions += [f"{title}, frame {k + 1} of {len(shown)}" for k in range(len(shown))]
        owners += [v] * len(shown)
    text = pair_text(view)
    question_at = text.rindex("Which test video")
    scenario = scenario_of(trial.key.type)
    return Item(
        id=trial.id,
        family="expectations",
        type=trial.key.type,
        type_name=f"{scenario.title}, type {trial.key.type}",
        text=text,
        options=("Test video 1", "Test video 2"),
        stem=text[:question_at] + "Which test video shows the more surprising behaviour?",
        choices=("1", "2"),
        answer=order.index("surprising"),
        frames=tuple(pictures),
        frame_captions=tuple(captions),
        fields={
            "scenario": trial.key.scenario,
            "tests": list(order),
            "frame_videos": owners,
            "ratings": ["\n\n".join(m["content"] for m in rating_messages(view, test)) for test in view.tests],
        },
    )


def expectation_items(trials: Iterable[Trial], seed: int = 0, count: int = FRAMES) -> Iterator[Item]:
    return (expectation_item(t, seed, count) for t in trials)


# ---- whodunit ---------------------------------------------------------------------------------------------------


def whodunit_items(episodes: Sequence[WhodunitEpisode], settings: ProtocolSettings | None = None) -> Iterator[Item]:
    """Every evidence point of every trial (``settings``' taus and placement; default: the protocol's)."""
    settings = settings or ProtocolSettings()
    for episode in episodes:
        if episode.suspects != 2:
            raise ValueError(f"{episode.episode_id} has {episode.suspects} suspects; the prompt asks between two")
        (swap,) = placements(settings, episode.episode_id)
        taus = settings.taus(episode.horizon)
        for k, tau in enumerate(taus):
            evidence = trial_evidence(episode, tau, swap, frozenset({VISION}), WHODUNIT_NAMES, settings.rules)
            chat = whodunit_messages(evidence)
            text = "\n\n".join(m["content"] for m in chat)
            yield Item(
                id=f"{episode.episode_id}/{k:02d}",
                family="whodunit",
                type=episode.scenario,
                type_name=episode.question,
                text=text,
                options=("Agent A", "Agent B"),
                stem=text,
                choices=("0", "100"),
                answer=int(bool(swap)),
                fields={
                    "trial": episode.episode_id,
                    "tau": tau,
                    "horizon": episode.horizon,
                    "fraction": k / (len(taus) - 1),
                    "culprit": "B" if swap else "A",
                },
            )
