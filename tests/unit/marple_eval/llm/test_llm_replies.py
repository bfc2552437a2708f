"""bench/llm_replies.py counts a run's replies from its cache: read, scored by log-likelihood, or neither."""

from __future__ import annotations

import json

from bench_scripts import load_bench
from llm_process import Server

from marple_eval.beliefs.llm import BeliefLLM
from marple_gym.beliefs.questions import QuestionSpec, make_questions


def test_the_replies_that_counted_are_read_back_from_the_cache(tmp_path, capsys):
    questions = make_questions(QuestionSpec(seed=1), "test", 0, 0)[:3]
    top = {"b": -0.5, "The": -1.0}  # the fallback finds b among the likeliest first tokens
    server = Server(tmp_path, "--answers", json.dumps(["a", "The answer", "b"]), "--top-logprobs", json.dumps(top))
    try:
        method = BeliefLLM(model="m", api_key="k", base_url=server.url, fallback=True, cache=str(tmp_path / "c"))
        answers = [method.answer(q) for q in questions]
    finally:
        server.stop()
    assert answers[1] == (0.0, 1.0)
    load_bench("llm_replies").main(["--family", "beliefs", str(tmp_path / "c")])
    found = json.loads(capsys.readouterr().out)
    assert (found["generated"], found["read"], found["log-likelihood"], found["neither"]) == (3, 2, 1, 0)
    assert found["share_counted"] == 1.0
