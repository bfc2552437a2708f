"""The LLM baseline: one request per test, written from what an onlooker sees, answers averaged; a dry run sends
nothing."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from marple_eval.expectations.llm import FALLBACK, NO_ANSWER, ExpectationLLM, messages
from marple_eval.expectations.methods import rate_trial
from marple_eval.llm.client import ClientSettings, LLMError, Reply
from marple_gym.expectations.pictures import episode_frames, evidence_frames
from marple_gym.expectations.scenarios import make_trial
from marple_gym.expectations.trial import TrialKey


class FakeClient:
    """Answers every request with ``answers`` (cycled), and keeps the requests."""

    dry_run = None

    def __init__(self, answers):
        self.settings = ClientSettings(base_url="http://127.0.0.1:9/v1", model="fake")
        self.answers = answers
        self.bodies = []
        self.top_logprobs = {}

    def complete(self, body):
        self.bodies.append(body)
        top = self.top_logprobs if body.get("logprobs") else {}
        return Reply([self.answers[i % len(self.answers)] for i in range(body["n"])], top_logprobs=top)


@pytest.fixture(scope="module")
def trial():
    return make_trial(TrialKey("unobserved_constraints", "3.1", "test", 0))


def test_each_test_is_one_request_and_its_answers_are_averaged(trial):
    client = FakeClient(["Reasoning: odd.\nAnswer: 80", "Answer: 60", "no idea"])
    rater = ExpectationLLM(client, n=3)
    ratings = rater.rate(trial.view())
    assert ratings == [70.0, 70.0] and len(client.bodies) == 2
    assert client.bodies[0]["n"] == 3 and client.bodies[0]["model"] == "fake"


def test_the_prompt_hides_what_the_screen_hides_until_it_is_lifted(trial):
    view = trial.view(["expected", "surprising"])
    text = messages(view, view.tests[0])[1]["content"]
    assert "A screen hides the cells" in text and "unseen, behind the screen" in text
    familiarisation = text.split("Test video:")[0]
    hidden = view.familiarisation[0].hidden
    shown = {(int(x), int(y)) for y, x in zip(*np.nonzero(hidden))}
    assert not any(f"at {cell}" in familiarisation for cell in shown)  # the chairs stand behind the screen
    assert "chair_1" in familiarisation and "chair_3" not in familiarisation  # the two beside the goal, as seen
    assert "Then the screen is lifted: behind it stand chairs at" in text
    assert "there is only floor" in messages(view, view.tests[1])[1]["content"]


def test_a_dry_run_writes_every_request_and_sends_nothing(trial, tmp_path):
    rater = ExpectationLLM.from_options(dry_run=str(tmp_path / "prompts.jsonl"), cache=str(tmp_path / "cache"), n=2)
    rating = rate_trial(rater, trial)
    assert rating.expected == rating.surprising == NO_ANSWER
    requests = [json.loads(line) for line in (tmp_path / "prompts.jsonl").read_text().splitlines()]
    assert len(requests) == 2 and requests[0]["estimated_prompt_tokens"] > 100


def test_bad_settings_and_missing_credentials_are_refused(monkeypatch):
    for name in ("OPENAI_API_KEY", "MARPLE_LLM_API_KEY", "MARPLE_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(LLMError, match="no model name"):
        ExpectationLLM.from_options()
    with pytest.raises(LLMError, match="n must be a whole number >= 1"):
        ExpectationLLM(FakeClient(["Answer: 1"]), n=0)


@pytest.mark.parametrize("condition", ["frames", "multimodal"])
def test_the_vision_conditions_show_each_video_as_the_onlookers_frames(trial, condition):
    client = FakeClient(["Answer: 40"])
    ExpectationLLM(client, n=1, condition=condition, frames=4).rate(trial.view(["expected", "surprising"]))
    parts = client.bodies[0]["messages"][1]["content"]
    images = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    shown = [*trial.familiarisation, trial.expected]  # at most 4 frames each: the lift has two
    assert len(images) == sum(min(4, len(e.states)) for e in shown) and all(
        url.startswith("data:image/png;base64,") for url in images
    )
    texts = [p["text"] for p in parts if p["type"] == "text"]
    assert texts[-1] == "How surprising is the agent's behaviour in the test video, from 0 to 100?"
    assert any("A screen hides the cells" in t for t in texts) == (condition == "multimodal")


def test_where_no_completion_rates_the_fallback_rates_100_times_the_probability_of_yes(trial):
    client = FakeClient(["Reasoning: the agent walks"])
    client.top_logprobs = {"Yes": math.log(0.6), "no": math.log(0.2), "The": math.log(0.1)}
    ratings = ExpectationLLM(client, n=1, fallback=True).rate(trial.view())
    assert ratings == pytest.approx([75.0, 75.0])  # 0.6 / (0.6 + 0.2)
    asked, scored = client.bodies[:2]
    assert scored["messages"][: len(asked["messages"])] == asked["messages"]
    assert scored["messages"][-2:] == [
        {"role": "assistant", "content": "Reasoning: the agent walks"},
        {"role": "user", "content": FALLBACK},
    ]
    client.top_logprobs = {}  # a server without log-probabilities: no rating, as before
    assert ExpectationLLM(client, n=1, fallback=True).rate(trial.view()) == [NO_ANSWER, NO_ANSWER]


def test_the_frames_of_a_video_are_the_onlookers_own(trial):
    for evidence, episode in zip(trial.view().tests, trial.tests.values()):
        shown = evidence_frames(evidence, count=len(episode.actions) + 1)
        assert all((a == b).all() for a, b in zip(shown, episode_frames(episode), strict=True))
