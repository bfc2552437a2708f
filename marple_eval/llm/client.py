"""A small client for OpenAI-compatible chat-completion servers, with a disk cache.

It speaks ``POST {base_url}/chat/completions`` (hosted APIs, vLLM, llama.cpp's
server...) with the standard library only. Every answer is cached on disk by
the SHA-256 of the full request (server URL and body), so a run that is
repeated or resumed asks nothing twice. Rate limits (429), server errors (5xx),
timeouts and dropped connections are retried with exponential backoff
(honouring ``Retry-After``); other errors stop the run with the server's
message. Every request answered (by the server or the cache) is counted in a
ledger, ``usage.jsonl`` in the cache directory, with its tokens and cost.

In a dry run nothing is sent: each request is written to a JSON Lines file
with an estimate of its prompt tokens (about four characters a token; a real
tokenizer can differ by a fifth or more).
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import math
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from marple_gym.errors import MarpleError
from marple_gym.files import write_json_atomic
from marple_gym.validation import Fields, message_error, read_json_file, read_json_lines

log = logging.getLogger(__name__)

RETRY_STATUS = frozenset({408, 409, 429}) | frozenset(range(500, 600))
MAX_RETRY_AFTER_S = 60.0
CHARS_PER_TOKEN = 4.0


class LLMError(MarpleError):
    """The language-model server could not be used: no credentials, a refused request, retries exhausted."""


@dataclass(frozen=True)
class ClientSettings:
    """Where the server is and how to talk to it. ``api_key`` is never written to any file."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 120.0
    retries: int = 5
    backoff_s: float = 1.0
    cache: Path = Path(".marple-cache/llm")
    price_prompt: float = 0.0
    """US dollars per million prompt tokens (0: unknown, costs are reported as 0)."""
    price_completion: float = 0.0
    """US dollars per million completion tokens."""

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.price_prompt + completion_tokens * self.price_completion) / 1e6


@dataclass(frozen=True)
class Reply:
    """The completions' texts for one request and what they cost."""

    texts: list[str]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False


def estimate_tokens(messages: list[dict[str, str]]) -> int:
    """A rough count of a request's prompt tokens, without a tokenizer."""
    return sum(math.ceil(len(m["content"]) / CHARS_PER_TOKEN) + 4 for m in messages)


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
        cached = self._read_cache(key)
        if self.dry_run is not None:
            prompt = estimate_tokens(body["messages"])
            record = {"key": key, "cached": cached is not None, "estimated_prompt_tokens": prompt, "request": body}
            append_line(self.dry_run, record)
            return Reply([])
        response = cached if cached is not None else self._post(body)
        if cached is None:
            self._write_cache(key, body, response)
        reply = _reply(response, cached is not None)
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

    def _read_cache(self, key: str) -> dict[str, Any] | None:
        path = self._cache_file(key)
        if not path.is_file():
            return None
        error = message_error(LLMError)
        try:
            return Fields(read_json_file(path, error, "cache entry"), "", error, str(path)).mapping("response")
        except LLMError as exc:  # a cache is only a shortcut: the server can answer again
            log.warning("ignoring an unreadable cache entry (%s); asking again", exc)
            return None

    def _write_cache(self, key: str, body: dict[str, Any], response: dict[str, Any]) -> None:
        path = self._cache_file(key)
        write_json_atomic(path, {"request": body, "response": response}, indent=None)  # never half an entry

    # ---- HTTP -----------------------------------------------------------------------------------------------

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        s = self.settings
        url = s.base_url.rstrip("/") + "/chat/completions"
        headers = {"Content-Type": "application/json"}
        if s.api_key:
            headers["Authorization"] = f"Bearer {s.api_key}"
        data = json.dumps(body).encode()
        for attempt in range(s.retries + 1):
            wait = s.backoff_s * 2**attempt
            try:
                request = urllib.request.Request(url, data=data, headers=headers, method="POST")
                with urllib.request.urlopen(request, timeout=s.timeout_s) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode(errors="replace")[:500]
                if exc.code not in RETRY_STATUS:
                    raise LLMError(_refusal(url, exc.code, detail)) from None
                wait = _retry_after(exc.headers.get("Retry-After"), wait)
                problem = f"HTTP {exc.code}"
            except (urllib.error.URLError, http.client.HTTPException, TimeoutError, ConnectionError) as exc:
                problem = str(getattr(exc, "reason", exc)) or type(exc).__name__
            except json.JSONDecodeError:
                problem = "a reply that is not JSON"
            if attempt < s.retries:
                log.warning("%s from %s; retry %d of %d in %.1f s", problem, url, attempt + 1, s.retries, wait)
                self.sleep(wait)
        raise LLMError(f"{url}: {problem} after {s.retries + 1} attempts; is the server up? (see --model-arg retries=)")


def _retry_after(header: str | None, default: float) -> float:
    try:
        return min(max(float(header), 0.0), MAX_RETRY_AFTER_S)
    except (TypeError, ValueError):
        return default


def _refusal(url: str, status: int, detail: str) -> str:
    if status in (401, 403):
        return (
            f"{url} refused the API key (HTTP {status}): {detail}; set OPENAI_API_KEY or MARPLE_LLM_API_KEY "
            "(or --model-arg api_key=...)"
        )
    return f"{url} refused the request (HTTP {status}): {detail}"


def _reply(response: dict[str, Any], cached: bool) -> Reply:
    try:
        texts = [choice["message"].get("content") or "" for choice in response["choices"]]
    except (KeyError, TypeError, AttributeError):
        raise LLMError(f"the server's reply has no choices[].message: {json.dumps(response)[:300]}") from None
    usage = response.get("usage") or {}
    return Reply(texts, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0), cached)


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
