"""The paper's LLM baseline as an inference model (``--model llm``).

For each trial and evidence point the model is sent two scene graphs of each
agent (by default at tau - 1 and tau, as the paper; ``scenes=start``: its start
and tau), the query state and the question
(:mod:`marple_eval.llm.prompts`), asked for ``n`` completions at temperature
``temperature``; the parsed answers (0 = Agent A, 100 = Agent B) are averaged
into P(B) = mean / 100. It reads scene graphs, which it rebuilds from the vision
evidence, so it declares the vision modality only.

With ``fallback=true``, where no completion gives a number (a small model's reply
that runs out of tokens mid-reasoning, or names an agent in words), the reply is
followed by one more question (:data:`FALLBACK`) and P(B) is read from the
model's log-probabilities of "A" and "B" as its next token
(:func:`choice_probabilities`); where the server gives none, the answer stays 0.5.

Server, model name and key come from the options or from the environment:
``MARPLE_LLM_BASE_URL`` (default ``https://api.openai.com/v1``),
``MARPLE_LLM_MODEL``, ``MARPLE_LLM_API_KEY`` or ``OPENAI_API_KEY``
(``api_key=none`` for a server that needs none), ``MARPLE_LLM_CACHE``.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from marple_eval.evidence import VISION, TrialEvidence
from marple_eval.llm.answers import parse_answer, probabilities
from marple_eval.llm.client import MAX_REPLY_BYTES, ChatClient, ClientSettings, LLMError
from marple_eval.llm.prompts import (
    SCENES,
    SolvedExample,
    messages,
    pick_pairs,
    query_mission_of,
    solved_examples,
    training_pairs,
)
from marple_eval.methods.whodunit import WhodunitMethod
from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.recording.records import WhodunitEpisode
from marple_gym.validation import describe, is_int, is_number

log = logging.getLogger(__name__)

PROMPT_VERSION = 2
"""Recorded with every run: bump when the prompt's wording or layout changes (2: consecutive scenes by default)."""
DEFAULT_BASE_URL = "https://api.openai.com/v1"
EXAMPLE_POOL = 16
"""In-context examples are drawn from the first this many training pairs of a scenario."""
NO_KEY = "none"
FALLBACK = "Which agent brings about the query state? Reply with one letter: A or B."
"""With ``fallback``: asked after a reply with no answer from 0 to 100; P(B) is then the model's probability of
"B" against "A" as its next token (:func:`choice_probabilities`)."""


def _option(value: Any, *env: str, default: Any = None) -> Any:
    if value is not None:
        return value
    for name in env:
        if os.environ.get(name):
            return os.environ[name]
    return default


def _count(name: str, value: Any, low: int) -> int:
    """An option that must be a whole number >= ``low`` (not a bool, not 1.5)."""
    if not is_int(value) or value < low:
        raise LLMError(f"llm: {name} must be a whole number >= {low}, got {describe(value)}")
    return int(value)


def _number(name: str, value: Any, low: float, high: float = math.inf, above: bool = False) -> float:
    """An option that must be a finite number from ``low`` (excluded where ``above``) to ``high``."""
    if not is_number(value) or value < low or value > high or (above and value == low):
        bounds = f"{'>' if above else '>='} {low:g}" + (f" and <= {high:g}" if high < math.inf else "")
        raise LLMError(f"llm: {name} must be a finite number {bounds}, got {describe(value)}")
    return float(value)


def check_sampling(n: Any, temperature: Any, max_tokens: Any) -> tuple[int, float, int]:
    """``(n, temperature, max_tokens)`` checked as a chat server would: n >= 1, 0 <= temperature <= 2,
    max_tokens >= 1 (whole numbers where whole numbers are meant), or an LLMError naming the option."""
    return _count("n", n, 1), _number("temperature", temperature, 0, 2), _count("max_tokens", max_tokens, 1)


LLM_CONDITIONS = ("text", "frames", "multimodal")
"""What a belief question or an expectation trial is shown as: text, frames (image parts, for a vision-language
model: :mod:`marple_eval.llm.images`) or both, as MMToM-QA's three conditions."""


def check_condition(condition: Any, frames: Any) -> tuple[str, int]:
    """``(condition, frames)`` checked: one of :data:`LLM_CONDITIONS`, and a whole number of frames >= 1."""
    if condition not in LLM_CONDITIONS:
        raise LLMError(f"llm: condition must be one of {', '.join(LLM_CONDITIONS)}, got {describe(condition)}")
    return condition, _count("frames", frames, 1)


def chat_client(
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    cache: str | None = None,
    retries: int = 5,
    backoff: float = 1.0,
    timeout: float = 120.0,
    price_prompt: float = 0.0,
    price_completion: float = 0.0,
    dry_run: str | None = None,
    max_reply_mb: float = MAX_REPLY_BYTES / 2**20,
) -> ChatClient:
    """The client of the options given, or of the environment (see the module docs); a dry run needs no model
    name and no key. Every number is checked (an LLMError names the option)."""
    retries, backoff = _count("retries", retries, 0), _number("backoff", backoff, 0)
    timeout = _number("timeout", timeout, 0, above=True)
    max_reply_mb = _number("max_reply_mb", max_reply_mb, 0, above=True)
    price_prompt = _number("price_prompt", price_prompt, 0)
    price_completion = _number("price_completion", price_completion, 0)
    model = _option(model, "MARPLE_LLM_MODEL")
    api_key = _option(api_key, "MARPLE_LLM_API_KEY", "OPENAI_API_KEY")
    if dry_run is None and not model:
        raise LLMError("llm: no model name: set MARPLE_LLM_MODEL or --model-arg model=NAME")
    if dry_run is None and not api_key:
        raise LLMError(
            "llm: no API key: set OPENAI_API_KEY or MARPLE_LLM_API_KEY, or --model-arg api_key=... "
            f"(api_key={NO_KEY} for a local server that needs none)"
        )
    return ChatClient(
        ClientSettings(
            base_url=_option(base_url, "MARPLE_LLM_BASE_URL", default=DEFAULT_BASE_URL),
            model=model or "(none: dry run)",
            api_key=None if api_key == NO_KEY else api_key,
            timeout_s=timeout,
            retries=retries,
            backoff_s=backoff,
            cache=Path(_option(cache, "MARPLE_LLM_CACHE", default=".marple-cache/llm")),
            price_prompt=price_prompt,
            price_completion=price_completion,
            max_reply_bytes=max(1, int(max_reply_mb * 2**20)),
        ),
        dry_run=None if dry_run is None else Path(dry_run),
    )


def client_record(client: ChatClient) -> dict[str, str]:
    """What a run records of the client it asked: the model and the server (never the key)."""
    return {"llm": client.settings.model, "base_url": client.settings.base_url}


def completions(
    client: ChatClient, chat: list[dict[str, str]], n: int, temperature: float, max_tokens: int
) -> list[str]:
    """``n`` completions of ``chat``; a server that returns fewer choices than asked for is asked again for the
    rest (none in a dry run)."""
    texts: list[str] = []
    while len(texts) < n:
        body = {
            "model": client.settings.model,
            "messages": chat,
            "temperature": temperature,
            "n": n - len(texts),
            "max_tokens": max_tokens,
        }
        got = client.complete(body).texts
        if not got:
            break
        texts += got[: n - len(texts)]
    return texts


TOP_LOGPROBS = 20
"""How many of the likeliest first tokens a log-likelihood request asks for (OpenAI's most)."""


def choice_probabilities(client: ChatClient, chat: list[dict[str, Any]], choices: Sequence[str]) -> list[float] | None:
    """The model's probabilities of replying with each of ``choices`` (each one token, such as "a" and "b"),
    normalised over them: log-likelihood scoring of a closed set of answers, for where a generated reply gave none.
    One request of one token at temperature 0 asks for the :data:`TOP_LOGPROBS` likeliest first tokens; a choice
    counts every token that is it but for spaces and case. None where the server gives no log-probabilities, none
    of the choices is among those tokens, or nothing was sent (a dry run)."""
    body = {
        "model": client.settings.model,
        "messages": chat,
        "temperature": 0.0,
        "n": 1,
        "max_tokens": 1,
        "logprobs": True,
        "top_logprobs": TOP_LOGPROBS,
    }
    top = client.complete(body).top_logprobs
    mass = [sum(math.exp(v) for t, v in top.items() if t.strip().lower() == c.lower()) for c in choices]
    total = sum(mass)
    return [m / total for m in mass] if total > 0 else None


def follow_up(chat: list[dict[str, Any]], reply: str, question: str) -> list[dict[str, Any]]:
    """``chat`` with the model's ``reply`` and one more question after it (the question a log-likelihood fallback
    scores the choices of, after a reply that gave no answer)."""
    return [*chat, {"role": "assistant", "content": reply}, {"role": "user", "content": question}]


class LLMMethod(WhodunitMethod):
    """Ask a chat model which agent did it, the paper's way (see the module docstring)."""

    name = "llm"
    reads = frozenset({VISION})
    suspects = 2  # the paper's prompt asks for a 0-100 answer between agent A and agent B

    def __init__(
        self,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        shots: int = 0,
        examples: str | None = None,
        examples_split: str = "train-in",
        n: int = 10,
        temperature: float = 0.5,
        max_tokens: int = 1024,
        cache: str | None = None,
        retries: int = 5,
        backoff: float = 1.0,
        timeout: float = 120.0,
        max_reply_mb: float = MAX_REPLY_BYTES / 2**20,
        price_prompt: float = 0.0,
        price_completion: float = 0.0,
        seed: int = 0,
        scenes: str = "consecutive",
        fallback: bool = False,
        dry_run: str | None = None,
    ) -> None:
        if shots not in (0, 2):
            raise LLMError(f"llm: shots must be 0 (zero-shot) or 2 (two solved examples), got {shots!r}")
        if scenes not in SCENES:
            raise LLMError(f"llm: scenes must be one of {', '.join(SCENES)}, got {scenes!r}")
        if shots and not examples:
            raise LLMError("llm: in-context examples come from training data: add --model-arg examples=DATA_DIR")
        n, temperature, max_tokens = check_sampling(n, temperature, max_tokens)
        self.client = chat_client(
            model,
            base_url,
            api_key,
            cache,
            retries,
            backoff,
            timeout,
            price_prompt,
            price_completion,
            dry_run,
            max_reply_mb,
        )
        self.shots, self.examples, self.examples_split = int(shots), examples, examples_split
        self.n, self.temperature, self.max_tokens, self.seed = n, temperature, max_tokens, int(seed)
        self.scenes, self.fallback = scenes, bool(fallback)
        self._pairs: dict[str, list[WhodunitEpisode]] = {}

    def settings(self) -> dict[str, Any]:
        return {
            **super().settings(),
            **client_record(self.client),
            "prompt_version": PROMPT_VERSION,
            "scenes": self.scenes,
            "shots": self.shots,
            **({"examples": self.examples, "examples_split": self.examples_split} if self.shots else {}),
            "n": self.n,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            **({"fallback": FALLBACK} if self.fallback else {}),
        }

    def predict(self, trial: TrialEvidence) -> tuple[float, float]:
        chat = messages(trial, self._examples(trial), self.scenes)
        texts = self.completions(chat)
        if self.client.dry_run is not None:
            return 0.5, 0.5
        answers = [parse_answer(text) for text in texts]
        missing = sum(a is None for a in answers)
        if missing == len(answers) and self.fallback:
            p = choice_probabilities(self.client, follow_up(chat, texts[0] if texts else "", FALLBACK), ("A", "B"))
            if p is not None:
                return p[0], p[1]
        if missing:
            log.warning("%d of %d completions gave no answer from 0 to 100", missing, len(answers))
        return probabilities(answers)

    def completions(self, chat: list[dict[str, str]]) -> list[str]:
        """``n`` completions (:func:`completions`)."""
        return completions(self.client, chat, self.n, self.temperature, self.max_tokens)

    # ---- in-context examples --------------------------------------------------------------------------------

    def _examples(self, trial: TrialEvidence) -> list[SolvedExample]:
        if not self.shots:
            return []
        if trial.scenario not in self._pairs:
            self._pairs[trial.scenario] = self._load_pairs(trial)
        return solved_examples(self._pairs[trial.scenario], trial)

    def _load_pairs(self, trial: TrialEvidence) -> list[WhodunitEpisode]:
        """Training pairs of the trial's scenario, drawn once per scenario with the run's seed."""
        data = MarpleDataset(self.examples)
        roles = data.spec.unit(trial.scenario).roles
        # Enough of each role's first trajectories (one house of train-in) to draw the examples from.
        trajectories = [
            tr
            for role in roles
            for tr in itertools.islice(data.trajectories(trial.scenario, self.examples_split, role), 4 * EXAMPLE_POOL)
        ]
        mission = query_mission_of(trial, {m for tr in trajectories for m in tr.missions})
        pool = list(itertools.islice(training_pairs(trajectories, mission), EXAMPLE_POOL))
        rng = np.random.default_rng([self.seed, zlib.crc32(trial.scenario.encode())])
        return pick_pairs(pool, self.shots, rng)
