"""The LLM baseline for expectation trials: a chat model rates each test's surprise from 0 to 100.

Each test is one request (AGENT's participants rated one test at a time): the
familiarisation videos and then the test, written out as text from what an
onlooker sees (:class:`~marple_gym.expectations.trial.EpisodeEvidence`): the
house's rooms and doors, the screen (the occluder) and the cells it hides, the
scene at the start (a scene graph cut by the occluder, as
:func:`marple_eval.llm.scenes.describe_scene` writes it), then the agent's
moves step by step, "unseen" while it is behind the screen; a test that lifts
the screen ends with what was behind it. The model is asked to think step by
step and to answer ``Answer: N``, N from 0 (not at all surprising) to 100
(extremely surprising); ``n`` completions at ``temperature`` are read by
:func:`marple_eval.llm.answers.parse_answer` and averaged. The client is the
project's (:mod:`marple_eval.llm.client`: cache, retries, usage ledger); with
``dry_run`` every request is written to a file and nothing is sent.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from marple_eval.expectations.methods import ExpectationMethod
from marple_eval.llm.answers import parse_answer
from marple_eval.llm.client import ChatClient
from marple_eval.llm.model import chat_client, check_sampling, client_record, completions
from marple_eval.llm.scenes import describe_scene
from marple_gym.expectations.trial import EpisodeEvidence, TrialView
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS
from marple_gym.world.house import DIR_NAMES
from marple_gym.world.state import CH_FUR

log = logging.getLogger(__name__)

PROMPT_VERSION = 1
NO_ANSWER = 50.0
"""The rating of a test no completion answered (and of every test in a dry run): the middle of the scale."""

INSTRUCTIONS = (
    "You watch an agent in a small house, in short videos given as text, one step at a time. First come "
    "familiarisation videos of the agent, then one test video of the same agent. Judge how surprising the "
    "agent's behaviour in the test video is, given what you saw it do in the familiarisation videos: 0 means "
    "not at all surprising, 100 extremely surprising. Cells are (x, y), x growing east, y growing south; agents "
    "walk on free floor and through open doors, never through walls, furniture or objects. A screen may hide "
    "some cells from you: you see nothing there, and the agent is unseen while it walks behind it. Think step "
    "by step, then answer in the form 'Reasoning: ... Answer: N' with N an integer from 0 to 100."
)


class ExpectationLLM(ExpectationMethod):
    """Rates surprise by asking a chat model (see module docs)."""

    name = "llm"

    def __init__(self, client: ChatClient, n: int = 10, temperature: float = 0.5, max_tokens: int = 1024) -> None:
        check_sampling(n, temperature, max_tokens)
        self.client = client
        self.n, self.temperature, self.max_tokens = n, float(temperature), int(max_tokens)

    @classmethod
    def from_options(
        cls, n: int = 10, temperature: float = 0.5, max_tokens: int = 1024, dry_run: str | None = None, **client: Any
    ) -> ExpectationLLM:
        """A method whose client is built from options or the environment, as the whodunit LLM method's
        (:func:`marple_eval.llm.model.chat_client`: model, base_url, api_key, cache, ...); ``dry_run``: a file to
        write the requests to instead of sending them."""
        return cls(chat_client(dry_run=dry_run, **client), n, temperature, max_tokens)

    def settings(self) -> dict[str, Any]:
        return {
            **super().settings(),
            **client_record(self.client),
            "prompt_version": PROMPT_VERSION,
            "n": self.n,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def rate(self, view: TrialView) -> list[float]:
        return [self._rate_one(view, test) for test in view.tests]

    def _rate_one(self, view: TrialView, test: EpisodeEvidence) -> float:
        texts = completions(self.client, messages(view, test), self.n, self.temperature, self.max_tokens)
        answers = [a for a in (parse_answer(t) for t in texts) if a is not None]
        if self.client.dry_run is None and len(answers) < len(texts):
            log.warning("%d of %d completions gave no answer from 0 to 100", len(texts) - len(answers), len(texts))
        return float(np.mean(answers)) if answers else NO_ANSWER


def messages(view: TrialView, test: EpisodeEvidence) -> list[dict[str, str]]:
    """The chat for rating ``test`` after the view's familiarisation."""
    n = len(view.familiarisation)
    parts = [describe_episode(e, f"Familiarisation video {i + 1} of {n}") for i, e in enumerate(view.familiarisation)]
    parts.append(describe_episode(test, "Test video"))
    parts.append("How surprising is the agent's behaviour in the test video, from 0 to 100?")
    return [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": "\n\n".join(parts)}]


def describe_episode(episode: EpisodeEvidence, title: str) -> str:
    """One video as text: the house, the screen, the start, the moves and, for a reveal, what was hidden."""
    lines = [f"{title}:"]
    graph = episode.scene_graph(0)
    for node, data in graph.nodes(data=True):
        if data["kind"] == "room":
            (x, y), (w, h) = data["top"], data["size"]
            lines.append(f"{node} ({data['type']}) covers x {x}-{x + w - 1}, y {y}-{y + h - 1}")
    if episode.hidden.any():
        ys, xs = np.nonzero(episode.hidden)
        lines.append(f"A screen hides the cells x {xs.min()}-{xs.max()}, y {ys.min()}-{ys.max()}.")
    lines.append("At the start:")
    lines.append(describe_scene(episode.visibility.scene_graph(graph)))
    lines.append("What the agent does:")
    lines += [f"{t + 1}. {move}" for t, move in enumerate(_moves(episode))]
    if episode.revealed is not None:
        lines.append(f"Then the screen is lifted: behind it {_behind(episode)}.")
    return "\n".join(lines)


def _moves(episode: EpisodeEvidence) -> list[str]:
    out = []
    for t, action in enumerate(episode.actions):
        after = episode.poses[t + 1]
        if action is None:
            out.append(
                "unseen, behind the screen" if after is None else f"comes out from behind the screen at {after[:2]}"
            )
        elif action in (Action.left, Action.right):
            out.append(f"turns {Action(action).name}, now facing {DIR_NAMES[after[2]]}")
        elif action == Action.forward:
            out.append(f"steps forward to {after[:2]}")
        elif action == Action.idle:
            out.append("stays where it is")
        else:
            out.append(f"does {Action(action).name} on the cell ahead")
    return out


def _behind(episode: EpisodeEvidence) -> str:
    ys, xs = np.nonzero(episode.hidden & (episode.revealed[..., CH_FUR] > 0))
    if not len(xs):
        return "there is only floor"
    names = {ASSETS.furniture_names[int(episode.revealed[y, x, CH_FUR])] for y, x in zip(ys, xs)}
    cells = ", ".join(str((int(x), int(y))) for x, y in zip(xs, ys))
    return f"stand {' and '.join(sorted(names))}s at {cells}"
