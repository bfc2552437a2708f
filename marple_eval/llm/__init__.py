"""The paper's LLM baseline: scene graphs as text, prompts, a caching chat client, answer parsing."""

from marple_eval.llm.answers import parse_answer, probabilities
from marple_eval.llm.client import ChatClient, ClientSettings, LLMError, Reply
from marple_eval.llm.model import LLMModel
from marple_eval.llm.prompts import messages

__all__ = ["ChatClient", "ClientSettings", "LLMError", "LLMModel", "Reply", "messages", "parse_answer", "probabilities"]
