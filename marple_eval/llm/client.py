"""A small client for OpenAI-compatible chat-completion servers, with a disk cache.

It speaks ``POST {base_url}/chat/completions`` (hosted APIs, vLLM, llama.cpp's
server...) with the standard library only. Every answer is cached on disk by
the SHA-256 of the full request (server URL and body), so a run that is
repeated or resumed asks nothing twice. Rate limits (429), server errors (5xx),
timeouts, dropped connections and replies that are not a whole chat completion
(not UTF-8, not JSON, or missing a part) are retried with exponential backoff,
honouring a ``Retry-After`` that is a time (a wait of at most
:data:`MAX_RETRY_AFTER_S`; ``nan``, negative or garbage values are ignored);
other errors stop the run with the server's message. ``timeout_s`` bounds each
request's whole time, not each read, and a reply larger than
``max_reply_bytes`` is refused unread (:mod:`marple_eval.llm.transport`).

A reply is checked whole before it is cached or counted: its choices and their
messages, and its token counts (whole numbers from 0 to :data:`MAX_TOKENS`), so
neither the cache nor the ledger ever holds a bad one; a bad entry found in the
cache (written by hand or by an older version) is named in a warning and asked
for again. Every request answered (by the server or the cache) is counted in a
ledger, ``usage.jsonl`` in the cache directory, with its tokens and cost.

In a dry run nothing is sent: each request is written to a JSON Lines file
with an estimate of its prompt tokens (about four characters a token; a real
tokenizer can differ by a fifth or more).
"""

from __future__ import annotations

import email.utils
import hashlib
import http.client
import json
import logging
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from marple_eval.llm.images import content_tokens
from marple_eval.llm.transport import TimedOut, TooLarge, post
from marple_gym.errors import MarpleError
from marple_gym.files import write_json_atomic
from marple_gym.validation import Fields, message_error, read_json_file, read_json_lines

log = logging.getLogger(__name__)

RETRY_STATUS = frozenset({408, 409, 429}) | frozenset(range(500, 600))
MAX_RETRY_AFTER_S = 60.0
"""The longest wait a ``Retry-After`` header is granted (a larger one waits this long)."""
MAX_TOKENS = 100_000_000
"""The most tokens a reply may count in ``usage`` (a larger count is not a real one)."""
TOKEN_COUNTS = ("prompt_tokens", "completion_tokens")
MAX_REPLY_BYTES = 16 * 2**20
"""The default size limit of one reply (``n`` completions of ``max_tokens`` each take well under a megabyte)."""
CHARS_PER_TOKEN = 4.0


class LLMError(MarpleError):
    """The language-model server could not be used: no credentials, a refused request, retries exhausted."""


class BadReply(LLMError):
    """A reply (from the server or the cache) that is not a whole chat completion."""


class _Retry(Exception):
    """An attempt that failed in a way asking again may mend; ``retry_after``: the server's header, if any."""

    def __init__(self, problem: str, retry_after: str | None = None) -> None:
        super().__init__(problem)
        self.retry_after = retry_after


@dataclass(frozen=True)
class ClientSettings:
    """Where the server is and how to talk to it. ``api_key`` is never written to any file."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 120.0
    """Seconds one request may take in all: connecting, waiting and reading the whole reply."""
    retries: int = 5
    backoff_s: float = 1.0
    cache: Path = Path(".marple-cache/llm")
    price_prompt: float = 0.0
    """US dollars per million prompt tokens (0: unknown, costs are reported as 0)."""
    price_completion: float = 0.0
    """US dollars per million completion tokens."""
    max_reply_bytes: int = MAX_REPLY_BYTES
    """The largest reply read (a larger one is refused unread)."""

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.price_prompt + completion_tokens * self.price_completion) / 1e6


@dataclass(frozen=True)
class Reply:
    """The completions' texts for one request and what they cost."""

    texts: list[str]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    top_logprobs: dict[str, float] = field(default_factory=dict)
    """The first choice's first token's alternatives and their log-probabilities, where the request asked for
    them (``logprobs``, ``top_logprobs``) and the server gave them; empty otherwise."""


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """A rough count of a request's prompt tokens, without a tokenizer (a picture counts
    :data:`~marple_eval.llm.images.IMAGE_TOKENS`)."""
    return sum(content_tokens(m["content"], CHARS_PER_TOKEN) + 4 for m in messages)


def request_key(base_url: str, body: dict[str, Any]) -> str:
    """The cache key: a hash of the server and the full request body."""
    canonical = json.dumps({"base_url": base_url.rstrip("/"), "body": body}, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def append_line(path: Path, record: dict[str, Any]) -> None:
    """Append one JSON line in a single write, so processes sharing the file do not interleave lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        os.write(fd, (json.dumps(record) + "\n").encode())
    finally:
        os.close(fd)


class ChatClient:
    """Sends chat-completion requests (or, with ``dry_run``, writes them to a file)."""

    def __init__(
        self, settings: ClientSettings, dry_run: Path | None = None, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.settings = settings
        self.dry_run = dry_run
        self.sleep = sleep

    @property
    def ledger(self) -> Path:
        return self.settings.cache / "usage.jsonl"

    def _cache_file(self, key: str) -> Path:
        return self.settings.cache / key[:2] / f"{key}.json"

    def complete(self, body: dict[str, Any]) -> Reply:
        """The completions for a request body, from the cache if it was asked before."""
        key = request_key(self.settings.base_url, body)
        reply = self._read_cache(key)
        if self.dry_run is not None:
            prompt = estimate_tokens(body["messages"])
            record = {"key": key, "cached": reply is not None, "estimated_prompt_tokens": prompt, "request": body}
            append_line(self.dry_run, record)
            return Reply([])
        if reply is None:
            response, reply = self._post(body)
            self._write_cache(key, body, response)  # checked whole first: a bad reply is never cached
        cost = 0.0 if reply.cached else self.settings.cost(reply.prompt_tokens, reply.completion_tokens)
        append_line(
            self.ledger,
            {
                "key": key,
                "model": body.get("model"),
                "cached": reply.cached,
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "cost_usd": cost,
            },
        )
        return reply

    # ---- the cache ------------------------------------------------------------------------------------------

    def _read_cache(self, key: str) -> Reply | None:
        path = self._cache_file(key)
        if not path.is_file():
            return None
        error = message_error(BadReply)
        try:
            response = Fields(read_json_file(path, error, "cache entry"), "", error, str(path)).mapping("response")
            return read_reply(response, str(path), cached=True)
        except LLMError as exc:  # a cache is only a shortcut: the server can answer again
            log.warning("ignoring a bad cache entry (%s); asking the server again", exc)
            return None

    def _write_cache(self, key: str, body: dict[str, Any], response: dict[str, Any]) -> None:
        path = self._cache_file(key)
        write_json_atomic(path, {"request": body, "response": response}, indent=None)  # never half an entry

    # ---- HTTP -----------------------------------------------------------------------------------------------

    def _post(self, body: dict[str, Any]) -> tuple[dict[str, Any], Reply]:
        """The server's reply to ``body``, checked whole, asked again (with backoff) while asking again may mend it."""
        s = self.settings
        url = s.base_url.rstrip("/") + "/chat/completions"
        headers = {"Content-Type": "application/json"}
        if s.api_key:
            headers["Authorization"] = f"Bearer {s.api_key}"
        data = json.dumps(body).encode()
        for attempt in range(s.retries + 1):
            try:
                return self._attempt(url, data, headers)
            except _Retry as retry:
                problem = str(retry)
                wait = retry_wait(retry.retry_after, s.backoff_s * 2**attempt)
            if attempt < s.retries:
                log.warning("%s from %s; retry %d of %d in %.1f s", problem, url, attempt + 1, s.retries, wait)
                self.sleep(wait)
        raise LLMError(f"{url}: {problem} after {s.retries + 1} attempts; is the server up? (see --model-arg retries=)")

    def _attempt(self, url: str, data: bytes, headers: dict[str, str]) -> tuple[dict[str, Any], Reply]:
        s = self.settings
        try:
            answer = post(url, data, headers, s.timeout_s, s.max_reply_bytes)
        except TimedOut as exc:
            raise _Retry(f"{exc} (--model-arg timeout=)") from None
        except TooLarge as exc:
            raise LLMError(f"{url}: {exc}; refused unread (--model-arg max_reply_mb= raises the limit)") from None
        except (OSError, http.client.HTTPException) as exc:  # URLError, ConnectionError, TimeoutError are OSErrors
            raise _Retry(str(getattr(exc, "reason", exc)) or type(exc).__name__) from None
        if not 200 <= answer.status < 300:
            detail = answer.body[:500].decode(errors="replace")
            if answer.status not in RETRY_STATUS:
                raise LLMError(_refusal(url, answer.status, detail))
            raise _Retry(f"HTTP {answer.status}", answer.headers.get("Retry-After"))
        try:
            text = answer.body.decode("utf-8")
        except UnicodeDecodeError as exc:  # the transport mangled it, not the model: ask again
            raise _Retry(f"a reply that is not UTF-8 text (invalid byte at {exc.start})") from None
        try:
            response = json.loads(text)
        except (ValueError, RecursionError):
            raise _Retry("a reply that is not JSON") from None
        try:
            return response, read_reply(response)
        except BadReply as exc:
            raise _Retry(f"a reply that is not a chat completion: {exc}") from None


def read_reply(response: Any, file: str | None = None, cached: bool = False) -> Reply:
    """The texts and token counts of a chat completion (``file``: the cache entry it was read from), every part
    checked: at least one choice, each with a message whose content is text (or null), and token counts that are
    whole numbers from 0 to :data:`MAX_TOKENS` where given. Raises :class:`BadReply` naming the first bad part."""
    top = Fields(response, "", message_error(BadReply), file)
    top.require("choices")
    choices = top.entries("choices")
    if not choices:
        raise top.fail("choices", "empty: the reply holds no completion")
    texts = [choice.fields("message").str("content", None) or "" for choice in choices]
    usage = top.fields("usage", None)
    counts = [0, 0] if usage is None else [usage.int(k, None, 0, MAX_TOKENS) or 0 for k in TOKEN_COUNTS]
    return Reply(texts, *counts, cached=cached, top_logprobs=_first_top_logprobs(choices[0]))


def _first_top_logprobs(choice: Fields) -> dict[str, float]:
    """``{token: log-probability}`` of the alternatives to a choice's first token (OpenAI's ``logprobs.content``),
    each checked; empty where the choice carries none."""
    logprobs = choice.fields("logprobs", None)
    content = [] if logprobs is None else logprobs.entries("content") if logprobs.get("content") else []
    if not content:
        return {}
    found: dict[str, float] = {}
    for alternative in content[0].entries("top_logprobs") if content[0].get("top_logprobs") else []:
        token, value = alternative.str("token"), alternative.number("logprob", high=0.0)
        found[token] = max(value, found.get(token, -math.inf))
    return found


def retry_wait(header: str | None, backoff: float) -> float:
    """How long to wait before asking again: what a ``Retry-After`` header asks for (seconds or an HTTP date, at
    most :data:`MAX_RETRY_AFTER_S`), or ``backoff`` when there is none or it is no time at all (``nan``, ``-5``,
    ``inf``, garbage)."""
    if header is None:
        return backoff
    try:
        seconds = float(header)
    except ValueError:
        seconds = _seconds_until(header)
    if not math.isfinite(seconds) or seconds < 0:
        return backoff
    return min(seconds, MAX_RETRY_AFTER_S)


def _seconds_until(date: str) -> float:
    """Seconds from now until an HTTP date (0 for a date passed; NaN for text that is not a date)."""
    try:
        when = email.utils.parsedate_to_datetime(date)
    except (TypeError, ValueError, IndexError):
        return math.nan
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max((when - datetime.now(timezone.utc)).total_seconds(), 0.0)


def _refusal(url: str, status: int, detail: str) -> str:
    if status in (401, 403):
        return (
            f"{url} refused the API key (HTTP {status}): {detail}; set OPENAI_API_KEY or MARPLE_LLM_API_KEY "
            "(or --model-arg api_key=...)"
        )
    return f"{url} refused the request (HTTP {status}): {detail}"


# ---- totals for the command line ------------------------------------------------------------------------


def _records(path: Path, offset: int = 0) -> list[Fields]:
    """The records of a usage ledger (or a dry run's requests) from byte ``offset`` on, each read strictly."""
    if not path.is_file():
        return []
    error = message_error(LLMError)
    lines = read_json_lines(path, error, "usage ledger", offset=offset).entries
    return [Fields(record, f"line {n}", error, str(path)) for n, record in lines]


def ledger_totals(path: Path, offset: int = 0) -> dict[str, Any]:
    """Requests, tokens and cost in a usage ledger from byte ``offset`` on (where a run started)."""
    records = _records(path, offset)
    sent = [r for r in records if not r.bool("cached")]
    return {
        "requests": len(sent),
        "from_cache": len(records) - len(sent),
        "prompt_tokens": sum(r.int("prompt_tokens", low=0) for r in sent),
        "completion_tokens": sum(r.int("completion_tokens", low=0) for r in sent),
        "cost_usd": round(sum(r.number("cost_usd", low=0) for r in sent), 6),
    }


def dry_run_totals(path: Path, settings: ClientSettings) -> dict[str, Any]:
    """What a dry run's requests would take: prompt tokens estimated, completion tokens at most ``n * max_tokens``."""
    records = _records(path)
    todo = [r for r in records if not r.bool("cached")]
    prompt = sum(r.int("estimated_prompt_tokens", low=0) for r in todo)
    requests = [r.fields("request") for r in todo]
    completion = sum(q.int("n", low=1) * q.int("max_tokens", low=1) for q in requests)
    return {
        "requests": len(todo),
        "from_cache": len(records) - len(todo),
        "estimated_prompt_tokens": prompt,
        "max_completion_tokens": completion,
        "max_cost_usd": round(settings.cost(prompt, completion), 2),
    }
