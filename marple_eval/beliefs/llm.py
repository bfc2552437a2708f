"""The LLM baseline of MMToM-QA: the text input and ``Answer:``, one letter back.

MMToM-QA's zero-shot prompt is the question's whole text (house, actions, question, options, "Please
respond with either a or b.") followed by a new line and ``Answer: ``, sent as the user's message after a
system message; the first letter of the reply is the choice. Here the same, through the project's chat
client (:mod:`marple_eval.llm.client`: any OpenAI-compatible server, a disk cache, a usage ledger, and a dry
run that writes the requests to a file instead of sending them). With ``n`` completions (at
``temperature``) the answer is the share of each letter among the replies that name one; a reply that names
neither counts for neither, and with none parsed the answer is one half each.
"""

from __future__ import annotations

import re
from typing import Any

from marple_eval.beliefs.methods import BeliefMethod
from marple_eval.llm.model import chat_client, check_sampling, client_record, completions
from marple_gym.beliefs.questions.question import BeliefQuestion
from marple_gym.beliefs.questions.text import question_text

PROMPT_VERSION = 1
"""Recorded with every run: bump when the prompt changes."""
SYSTEM = "You are a helpful assistant."
_CHOICE = re.compile(r"^\W*(?:answer\W*)?\(?([ab])\b", re.IGNORECASE)


def prompt(question: BeliefQuestion) -> list[dict[str, str]]:
    """The chat messages of one question (see the module docs)."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": question_text(question) + "\nAnswer: "},
    ]


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

    def __init__(
        self, n: int = 1, temperature: float = 0.0, max_tokens: int = 5, dry_run: str | None = None, **client: Any
    ) -> None:
        """``dry_run``: a file to write the requests to instead of sending them; ``client``: where and how to ask
        (:func:`marple_eval.llm.model.chat_client`'s options: ``model``, ``base_url``, ``api_key``, ``cache``,
        ``retries``, ``backoff``, ``timeout``, ``price_prompt``, ``price_completion``)."""
        check_sampling(n, temperature, max_tokens)
        self.client = chat_client(dry_run=dry_run, **client)
        self.n, self.temperature, self.max_tokens = int(n), float(temperature), int(max_tokens)

    def answer(self, question: BeliefQuestion) -> tuple[float, float]:
        texts = completions(self.client, prompt(question), self.n, self.temperature, self.max_tokens)
        choices = [c for c in map(parse_choice, texts) if c is not None]
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
        }
