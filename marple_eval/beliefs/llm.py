"""The LLM baseline of MMToM-QA: the text input and ``Answer:``, one letter back.

MMToM-QA's zero-shot prompt is the question's whole text (house, actions, question, options, "Please
respond with either a or b.") followed by a new line and ``Answer: ``, sent as the user's message after a
system message; the first letter of the reply is the choice. Here the same, through the project's chat
client (:mod:`marple_eval.llm.client`: any OpenAI-compatible server, a disk cache, a usage ledger, and a dry
run that writes the requests to a file instead of sending them). With ``n`` completions (at
``temperature``) the answer is the share of each letter among the replies that name one; a reply that names
neither counts for neither, and with none parsed the answer is one half each (or, with ``fallback=true``, the
model's probabilities of "a" and "b" as the reply's first token, normalised over the two: MMToM-QA's multiple
choice scored by log-likelihood, :func:`marple_eval.llm.model.choice_probabilities`).

MMToM-QA's three conditions (``condition``): ``text`` (the above), ``frames`` (video only: the question and its
options after the question's frames, :func:`marple_gym.beliefs.questions.conditions.frames`, eight pictures
from the start to the cut, each captioned with its step) and ``multimodal`` (the frames, then the whole text).
Frames go as image parts of the user's message (:mod:`marple_eval.llm.images`), for a vision-language model.
"""

from __future__ import annotations

import re
from typing import Any

from marple_eval.beliefs.methods import BeliefMethod
from marple_eval.llm.images import captioned_frames, text_part
from marple_eval.llm.model import (
    chat_client,
    check_condition,
    check_sampling,
    choice_probabilities,
    client_record,
    completions,
)
from marple_gym.beliefs.questions.conditions import FRAMES, frame_steps, frames
from marple_gym.beliefs.questions.question import BeliefQuestion
from marple_gym.beliefs.questions.text import question_text, question_words

PROMPT_VERSION = 1
"""Recorded with every run: bump when the prompt changes."""
SYSTEM = "You are a helpful assistant."
READS = {"text": frozenset({"text"}), "frames": frozenset({"frames"}), "multimodal": frozenset({"text", "frames"})}
"""What a question is shown as in each condition (a method's ``reads``)."""
_CHOICE = re.compile(r"^\W*(?:answer\W*)?\(?([ab])\b", re.IGNORECASE)


def prompt(question: BeliefQuestion, condition: str = "text", count: int = FRAMES) -> list[dict[str, Any]]:
    """The chat messages of one question in ``condition`` (:data:`LLM_CONDITIONS`; ``count``: frames shown)."""
    check_condition(condition, count)
    if condition == "text":
        return [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": question_text(question) + "\nAnswer: "},
        ]
    steps = frame_steps(question, count)
    captions = [f"Frame {k + 1} of {len(steps)}, step {t}:" for k, t in enumerate(steps)]
    text = question_text(question) if condition == "multimodal" else f"Question: {question_words(question)}"
    parts = captioned_frames(frames(question, count), captions) + [text_part(text + "\nAnswer: ")]
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": parts}]


def parse_choice(text: str | None) -> int | None:
    """0 for a reply choosing (a), 1 for (b), None for one that names neither first."""
    found = _CHOICE.match(text or "")
    return None if found is None else "ab".index(found.group(1).lower())


class BeliefLLM(BeliefMethod):
    """Ask a chat model, MMToM-QA's way (see the module docs). Server, model and key come from the options or
    the environment as for the whodunit baseline (``MARPLE_LLM_BASE_URL``, ``MARPLE_LLM_MODEL``,
    ``MARPLE_LLM_API_KEY``); ``dry_run`` names a file to write the requests to, and needs neither."""

    name = "llm"
    reads = frozenset({"text"})
    """The text condition's; an instance reads what its ``condition`` shows."""

    def __init__(
        self,
        n: int = 1,
        temperature: float = 0.0,
        max_tokens: int = 5,
        condition: str = "text",
        frames: int = FRAMES,
        fallback: bool = False,
        dry_run: str | None = None,
        **client: Any,
    ) -> None:
        """``condition``: :data:`LLM_CONDITIONS`; ``frames``: how many a question shows in the frames and
        multimodal conditions; ``fallback``: score the letters by log-likelihood where no reply names one;
        ``dry_run``: a file to write the requests to instead of sending them; ``client``:
        where and how to ask (:func:`marple_eval.llm.model.chat_client`'s options: ``model``, ``base_url``,
        ``api_key``, ``cache``, ``retries``, ``backoff``, ``timeout``, ``price_prompt``, ``price_completion``)."""
        check_sampling(n, temperature, max_tokens)
        self.client = chat_client(dry_run=dry_run, **client)
        self.n, self.temperature, self.max_tokens = int(n), float(temperature), int(max_tokens)
        self.condition, self.frames = check_condition(condition, frames)
        self.reads = READS[self.condition]
        self.fallback = bool(fallback)

    def answer(self, question: BeliefQuestion) -> tuple[float, float]:
        chat = prompt(question, self.condition, self.frames)
        texts = completions(self.client, chat, self.n, self.temperature, self.max_tokens)
        choices = [c for c in map(parse_choice, texts) if c is not None]
        if not choices and self.fallback and self.client.dry_run is None:
            p = choice_probabilities(self.client, chat, ("a", "b"))
            return (0.5, 0.5) if p is None else (p[0], p[1])
        if not choices:
            return 0.5, 0.5
        b = sum(choices) / len(choices)
        return 1.0 - b, b

    def settings(self) -> dict[str, Any]:
        return {
            **super().settings(),
            **client_record(self.client),
            "prompt_version": PROMPT_VERSION,
            "n": self.n,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "condition": self.condition,
            **({"fallback": "log-likelihood of a and b"} if self.fallback else {}),
            **({"frames": self.frames} if self.condition != "text" else {}),
        }
