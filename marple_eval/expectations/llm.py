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

``condition`` chooses what each video is shown as: ``text`` (the above), ``frames`` (eight pictures of each
video, :func:`marple_gym.expectations.pictures.evidence_frames`, the occluder drawn over what it hides, sent as
image parts of the message: :mod:`marple_eval.llm.images`) or ``multimodal`` (each video's text, then its
frames), for a vision-language model.

With ``fallback=true``, where no completion gives a number, the reply is followed by one more question
(:data:`FALLBACK`) and the rating is 100 times the model's probability of "yes" against "no" as its next token
(:func:`marple_eval.llm.model.choice_probabilities`): log-likelihood scoring where generation fails.
"""

from __future__ import annotations

import logging
from typing import Any

import networkx as nx
import numpy as np

from marple_eval.expectations.methods import ExpectationMethod
from marple_eval.llm.answers import parse_answer
from marple_eval.llm.client import ChatClient
from marple_eval.llm.images import captioned_frames, text_part
from marple_eval.llm.model import (
    chat_client,
    check_condition,
    check_sampling,
    choice_probabilities,
    client_record,
    completions,
    follow_up,
)
from marple_eval.llm.scenes import describe_scene
from marple_gym.expectations.pictures import FRAMES, evidence_frames
from marple_gym.expectations.trial import EpisodeEvidence, TrialView
from marple_gym.rendering.frames import spread_steps
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
FRAMES_INSTRUCTIONS = (
    "You watch an agent (the red triangle, pointing where it faces) in a small house, in short videos given as a "
    "few frames each, in order. First come familiarisation videos of the agent, then one test video of the same "
    "agent. Judge how surprising the agent's behaviour in the test video is, given what you saw it do in the "
    "familiarisation videos: 0 means not at all surprising, 100 extremely surprising. Agents walk on free floor "
    "and through open doors, never through walls, furniture or objects. A striped screen may hide some cells: "
    "the agent is unseen while it walks behind it, and a test may end by lifting the screen. Think step by step, "
    "then answer in the form 'Reasoning: ... Answer: N' with N an integer from 0 to 100."
)


class ExpectationLLM(ExpectationMethod):
    """Rates surprise by asking a chat model (see module docs)."""

    name = "llm"
    role = "method"
    reads = frozenset({"familiarisation", "test"})

    def __init__(
        self,
        client: ChatClient,
        n: int = 10,
        temperature: float = 0.5,
        max_tokens: int = 1024,
        condition: str = "text",
        frames: int = FRAMES,
        fallback: bool = False,
    ) -> None:
        check_sampling(n, temperature, max_tokens)
        self.client = client
        self.n, self.temperature, self.max_tokens = n, float(temperature), int(max_tokens)
        self.condition, self.frames = check_condition(condition, frames)
        self.fallback = bool(fallback)

    @classmethod
    def from_options(
        cls,
        n: int = 10,
        temperature: float = 0.5,
        max_tokens: int = 1024,
        condition: str = "text",
        frames: int = FRAMES,
        fallback: bool = False,
        dry_run: str | None = None,
        **client: Any,
    ) -> ExpectationLLM:
        """A method whose client is built from options or the environment, as the whodunit LLM method's
        (:func:`marple_eval.llm.model.chat_client`: model, base_url, api_key, cache, ...); ``dry_run``: a file to
        write the requests to instead of sending them."""
        return cls(chat_client(dry_run=dry_run, **client), n, temperature, max_tokens, condition, frames, fallback)

    def settings(self) -> dict[str, Any]:
        return {
            **super().settings(),
            **client_record(self.client),
            "prompt_version": PROMPT_VERSION,
            "n": self.n,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "condition": self.condition,
            **({"frames": self.frames} if self.condition != "text" else {}),
            **({"fallback": FALLBACK} if self.fallback else {}),
        }

    def rate(self, view: TrialView) -> list[float]:
        return [self._rate_one(view, test) for test in view.tests]

    def _rate_one(self, view: TrialView, test: EpisodeEvidence) -> float:
        chat = messages(view, test, self.condition, self.frames)
        texts = completions(self.client, chat, self.n, self.temperature, self.max_tokens)
        answers = [a for a in (parse_answer(t) for t in texts) if a is not None]
        if not answers and self.fallback and self.client.dry_run is None:
            p = choice_probabilities(self.client, follow_up(chat, texts[0] if texts else "", FALLBACK), ("yes", "no"))
            if p is not None:
                return 100.0 * p[0]
        if self.client.dry_run is None and len(answers) < len(texts):
            log.warning("%d of %d completions gave no answer from 0 to 100", len(texts) - len(answers), len(texts))
        return float(np.mean(answers)) if answers else NO_ANSWER


FALLBACK = "Was the agent's behaviour in the test video surprising? Reply with one word: yes or no."
"""With ``fallback``: asked after a reply with no rating; the rating is then 100 P("yes") (see the module docs)."""
QUESTION = "How surprising is the agent's behaviour in the test video, from 0 to 100?"
PAIR_INSTRUCTIONS = (
    "You watch an agent in a small house, in short videos given as text, one step at a time. First come "
    "familiarisation videos of the agent, then two test videos of the same agent, each starting afresh unless it says it takes "
    "up a familiarisation video where it ended. One test "
    "shows behaviour that is expected given the familiarisation, the other behaviour that is surprising. Cells "
    "are (x, y), x growing east, y growing south; agents walk on free floor and through open doors, never through "
    "walls, furniture or objects. A screen may hide some cells from you: you see nothing there, and the agent is "
    "unseen while it walks behind it."
)
PAIR_QUESTION = "Which test video shows the more surprising behaviour? Please respond with either 1 or 2."


def pair_text(view: TrialView) -> str:
    """The two-alternative question about a test trial: its familiarisation, its two tests (in the view's order,
    as "Test video 1" and "Test video 2"), and which is the more surprising (answered 1 or 2)."""
    if len(view.tests) != 2:
        raise ValueError(f"a pair needs a trial's two tests, got {len(view.tests)}")
    n = len(view.familiarisation)
    parts = [PAIR_INSTRUCTIONS]
    parts += [describe_episode(e, f"Familiarisation video {i + 1} of {n}") for i, e in enumerate(view.familiarisation)]
    parts += [describe_episode(e, f"Test video {i + 1}") for i, e in enumerate(view.tests)]
    return "\n\n".join([*parts, PAIR_QUESTION])


def videos(view: TrialView, test: EpisodeEvidence) -> list[tuple[str, EpisodeEvidence]]:
    """The videos a rater is shown, in order, with their titles: the familiarisation, then ``test``."""
    n = len(view.familiarisation)
    return [(f"Familiarisation video {i + 1} of {n}", e) for i, e in enumerate(view.familiarisation)] + [
        ("Test video", test)
    ]


def messages(
    view: TrialView, test: EpisodeEvidence, condition: str = "text", count: int = FRAMES
) -> list[dict[str, Any]]:
    """The chat for rating ``test`` after the view's familiarisation, in ``condition`` (:data:`LLM_CONDITIONS`;
    ``count`` frames a video where frames are shown)."""
    check_condition(condition, count)
    shown = videos(view, test)
    if condition == "text":
        parts = [describe_episode(e, title) for title, e in shown] + [QUESTION]
        return [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": "\n\n".join(parts)}]
    content: list[dict[str, Any]] = []
    for title, episode in shown:
        content.append(text_part(describe_episode(episode, title) if condition == "multimodal" else f"{title}:"))
        content += episode_frames(episode, count)
    content.append(text_part(QUESTION))
    system = INSTRUCTIONS if condition == "multimodal" else FRAMES_INSTRUCTIONS
    return [{"role": "system", "content": system}, {"role": "user", "content": content}]


def episode_frames(episode: EpisodeEvidence, count: int = FRAMES) -> list[dict[str, Any]]:
    """One video's frames as captioned image parts."""
    steps = spread_steps(0, episode.steps, count)
    captions = [f"Frame {k + 1} of {len(steps)}, step {t}:" for k, t in enumerate(steps)]
    return captioned_frames(evidence_frames(episode, count), captions)


def describe_episode(episode: EpisodeEvidence, title: str) -> str:
    """One video as text: the house, the screen, the start, the moves and, for a reveal, what was hidden."""
    lines = [f"{title}:"]
    if episode.continues is not None:
        lines.append(
            f"This video takes up familiarisation video {episode.continues + 1} where it ended: the agent stands "
            "where that video left it, and does its last move again."
        )
    graph = episode.scene_graph(0)
    for node, data in graph.nodes(data=True):
        if data["kind"] == "room":
            (x, y), (w, h) = data["top"], data["size"]
            lines.append(f"{node} ({data['type']}) covers x {x}-{x + w - 1}, y {y}-{y + h - 1}")
    if episode.hidden.any():
        ys, xs = np.nonzero(episode.hidden)
        lines.append(f"A screen hides the cells x {xs.min()}-{xs.max()}, y {ys.min()}-{ys.max()}.")
    lines.append("At the start:")
    lines.append(describe_scene(_onlookers_names(episode.visibility.scene_graph(graph))))
    lines.append("What the agent does:")
    lines += [f"{t + 1}. {move}" for t, move in enumerate(_moves(episode))]
    if episode.revealed is not None:
        lines.append(f"Then the screen is lifted: behind it {_behind(episode)}.")
    return "\n".join(lines)


def _onlookers_names(graph: nx.DiGraph) -> nx.DiGraph:
    """``graph`` with its furniture numbered as the onlooker would, by type in reading order of what it shows (the
    house's own numbering counts the pieces behind the screen too, and so would tell of them)."""
    shown = sorted(
        ((d["type"], d["pos"][1], d["pos"][0], n) for n, d in graph.nodes(data=True) if d["kind"] == "furniture")
    )
    names, counts = {}, {}
    for kind, _, _, node in shown:
        counts[kind] = counts.get(kind, 0) + 1
        names[node] = f"{kind}_{counts[kind]}"
    return nx.relabel_nodes(graph, names)


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
