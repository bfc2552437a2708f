"""The LLM baseline on belief questions: MMToM-QA's prompt through the project's client, against a local test
server (127.0.0.1 only), and a dry run that needs no server."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest
from llm_process import Server
from PIL import Image
from search_houses import piece, two_rooms

from marple_eval.beliefs.llm import BeliefLLM, parse_choice
from marple_eval.llm.client import LLMError
from marple_eval.methods.registry import make_method
from marple_gym.beliefs.episodes import search_episode
from marple_gym.beliefs.questions.conditions import frame_steps, frames
from marple_gym.beliefs.questions.moments import episode_questions
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


def test_where_no_reply_names_a_letter_the_fallback_scores_a_and_b_by_log_likelihood(question, tmp_path):
    top = {"The": -0.1, " b": -1.0, "B": -2.0, "a": -3.0}  # b: e^-1 + e^-2 against a: e^-3
    server = Server(tmp_path, "--answers", json.dumps(["The answer is"]), "--top-logprobs", json.dumps(top))
    try:
        method = BeliefLLM(model="m", api_key="k", base_url=server.url, fallback=True, cache=str(tmp_path / "c"))
        b = (np.exp(-1) + np.exp(-2)) / (np.exp(-1) + np.exp(-2) + np.exp(-3))
        assert method.answer(question) == pytest.approx((1 - b, b))
        asked, scored = (r["body"] for r in server.requests())
        assert scored["messages"] == asked["messages"] and scored["max_tokens"] == 1 and scored["logprobs"] is True
        assert "fallback" in method.settings()
    finally:
        server.stop()


def test_without_log_probabilities_the_fallback_leaves_one_half_each(question, tmp_path):
    server = Server(tmp_path, "--answers", json.dumps(["The answer is"]))
    try:
        method = BeliefLLM(model="m", api_key="k", base_url=server.url, fallback=True, cache=str(tmp_path / "c"))
        assert method.answer(question) == (0.5, 0.5)
    finally:
        server.stop()


def test_a_dry_run_writes_the_requests_and_answers_one_half(question, tmp_path):
    method = make_method("beliefs", "llm", dry_run=str(tmp_path / "requests.jsonl"), cache=str(tmp_path / "cache"))
    assert method.answer(question) == (0.5, 0.5)
    (request,) = [json.loads(line) for line in (tmp_path / "requests.jsonl").read_text().splitlines()]
    assert request["request"]["messages"][1]["content"].endswith("Please respond with either a or b.\nAnswer: ")
    assert request["estimated_prompt_tokens"] > 100


def _png(url: str) -> np.ndarray:
    head, data = url.split(",", 1)
    assert head == "data:image/png;base64"
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB"))


@pytest.mark.parametrize("condition", ["frames", "multimodal"])
def test_the_vision_conditions_send_the_questions_frames_as_image_parts(question, tmp_path, condition):
    method = make_method(
        "beliefs", "llm", condition=condition, dry_run=str(tmp_path / "r.jsonl"), cache=str(tmp_path / "c")
    )
    assert method.answer(question) == (0.5, 0.5)
    (request,) = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    parts = request["request"]["messages"][1]["content"]
    images = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    expected = frames(question)
    assert len(images) == len(expected) == len(frame_steps(question))
    assert all((_png(url) == frame).all() for url, frame in zip(images, expected))  # lossless, in order
    texts = [p["text"] for p in parts if p["type"] == "text"]
    assert texts[0].startswith("Frame 1 of") and texts[-1].endswith("Please respond with either a or b.\nAnswer: ")
    assert ("What's inside the apartment" in texts[-1]) == (condition == "multimodal")  # video only: no story
    assert request["estimated_prompt_tokens"] >= 255 * len(images)
    assert method.settings()["condition"] == condition and method.settings()["frames"] == 8


def test_an_unknown_condition_is_refused_naming_the_choices(tmp_path):
    with pytest.raises(LLMError, match="condition must be one of text, frames, multimodal"):
        make_method("beliefs", "llm", condition="video", dry_run=str(tmp_path / "r.jsonl"))
