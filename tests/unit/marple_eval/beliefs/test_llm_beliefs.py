"""The LLM baseline on belief questions: MMToM-QA's prompt through the project's client, against a local test
server (127.0.0.1 only), and a dry run that needs no server."""

from __future__ import annotations

import json

import numpy as np
import pytest
from llm_process import Server
from search_houses import piece, two_rooms

from marple_eval.beliefs.llm import BeliefLLM, parse_choice
from marple_eval.methods.registry import make_method
from marple_gym.beliefs.episodes import search_episode
from marple_gym.beliefs.questions.question import episode_questions
from marple_gym.beliefs.questions.text import question_text


@pytest.fixture(scope="module")
def question():
    config = two_rooms({"fridge": "apple", "kitchen cabinet": "plate"})
    prior = [piece("fridge"), piece("kitchen cabinet"), piece("table")]
    episode = search_episode(np.random.default_rng(0), config, goal="apple", prior=prior, episode_id="e")
    return episode_questions(episode, np.random.default_rng(0), ["1.2"])[0]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "MARPLE_LLM_API_KEY", "MARPLE_LLM_MODEL", "MARPLE_LLM_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_a_reply_is_read_for_its_first_letter():
    assert parse_choice("a") == 0 and parse_choice(" (b) because") == 1 and parse_choice("Answer: b.") == 1
    assert parse_choice("B") == 1 and parse_choice("I am not sure") is None and parse_choice(None) is None


def test_the_method_sends_mmtom_qas_prompt_and_reads_the_letters(question, tmp_path):
    server = Server(tmp_path, "--answers", json.dumps(["b", "a", "(b)", "unsure"]))
    try:
        method = BeliefLLM(
            model="m", api_key="k", base_url=server.url, n=4, temperature=0.7, cache=str(tmp_path / "cache")
        )
        assert method.answer(question) == pytest.approx((1 / 3, 2 / 3))
        body = server.requests()[0]["body"]
        assert body["messages"][-1]["content"] == question_text(question) + "\nAnswer: "
        assert body["n"] == 4 and body["max_tokens"] == 5
        assert method.settings()["prompt_version"] == 1
    finally:
        server.stop()


def test_a_dry_run_writes_the_requests_and_answers_one_half(question, tmp_path):
    method = make_method("beliefs", "llm", dry_run=str(tmp_path / "requests.jsonl"), cache=str(tmp_path / "cache"))
    assert method.answer(question) == (0.5, 0.5)
    (request,) = [json.loads(line) for line in (tmp_path / "requests.jsonl").read_text().splitlines()]
    assert request["request"]["messages"][1]["content"].endswith("Please respond with either a or b.\nAnswer: ")
    assert request["estimated_prompt_tokens"] > 100
