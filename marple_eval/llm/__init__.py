"""The paper's LLM baseline: scene graphs as text, prompts, a caching chat client, answer parsing."""

from marple_eval.llm.answers import parse_answer, probabilities
from marple_eval.llm.client import ChatClient, ClientSettings, LLMError, Reply
from marple_eval.llm.model import LLMMethod
from marple_eval.llm.prompts import messages

__all__ = [
    "ChatClient",
    "ClientSettings",
    "LLMError",
    "LLMMethod",
    "Reply",
    "messages",
    "parse_answer",
    "probabilities",
]
