"""The LLM baseline against a real local chat-completions server process (tests/llm_server.py).

Nothing here reaches beyond 127.0.0.1.
"""

from __future__ import annotations

import json
import math
import re
import sys
import threading
from pathlib import Path

import pytest
from llm_process import Server
from paths import ROOT

from marple.cli.main import main
from marple_eval.evidence import NEUTRAL_AGENT, UndeclaredModalityError
from marple_eval.llm import LLMError, LLMMethod, parse_answer, probabilities
from marple_eval.llm.client import MAX_RETRY_AFTER_S, retry_wait
from marple_eval.llm.model import FALLBACK
from marple_eval.llm.scenes import describe_query
from marple_eval.protocol import ProtocolSettings, dataset_episodes, evaluate
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset
from marple_gym.missions.mission import get_mission

ENV = ("OPENAI_API_KEY", "MARPLE_LLM_API_KEY", "MARPLE_LLM_MODEL", "MARPLE_LLM_BASE_URL", "MARPLE_LLM_CACHE")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("llm") / "data"
    spec = DatasetSpec([Unit.scenario("laundry")], Sizes(1, 2, 4, 1), seed=7, splits=("test", "train-in"))
    generate_dataset(spec, root, workers=1, progress=False)
    return MarpleDataset(root)


@pytest.fixture
def serve(tmp_path):
    servers: list[Server] = []

    def start(*args: str) -> Server:
        servers.append(Server(tmp_path, *args))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def llm(server: Server, tmp_path: Path, **options) -> LLMMethod:
    options = {
        "model": "test-model",
        "api_key": "test-key",
        "cache": str(tmp_path / "cache"),
        "backoff": 0.0,
        **options,
    }
    return LLMMethod(base_url=server.url, **options)


class SpyLLM(LLMMethod):
    """The LLM model, keeping every trial it is shown."""

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.seen: list = []

    def predict(self, trial):
        self.seen.append(trial)
        return super().predict(trial)


def run_llm(model: LLMMethod, data, limit: int = 1):
    settings = ProtocolSettings(seed=0, cutoff=None)  # ask at every evidence point
    return evaluate(lambda: model, dataset_episodes(data, ["laundry"], limit), settings, progress=False)


# ---- answers ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("I'd say 70%", 70),
        ("Answer: 85/100", 85),
        ("Reasoning: the agent went from (9, 5) to (3, 12) in 14 steps.\nAnswer: 20", 20),
        ("**Answer:** [40]", 40),
        ("Reasoning: first I thought 90.\nAnswer: 65", 65),
        ("The answer is 12.5", 12.5),
        ("  55 ", 55),
        ("Answer: 0", 0),
        ("none", None),
        ("", None),
        ("Answer: Agent B, clearly", None),
        ("Answer: 150", None),
        ("Answer: 1000", None),
        ("Agent A stood at (9, 5) for 3 steps.", None),
    ],
)
def test_messy_answers_are_parsed_or_refused(text, value):
    assert parse_answer(text) == value


def test_answers_average_into_probabilities():
    assert probabilities([20, 40, None]) == pytest.approx((0.7, 0.3))
    assert probabilities([None, None]) == (0.5, 0.5)


# ---- requests, cache, retries -----------------------------------------------------------------------------


def test_requests_carry_the_papers_prompt_and_settings(serve, data, tmp_path):
    server = serve("--answers", json.dumps(["Reasoning: A moved.\nAnswer: 20", "I'd say 40%"]))
    run = run_llm(llm(server, tmp_path), data)
    requests = server.requests()
    assert len(requests) == 11  # one request (n completions) per evidence point
    for request in requests:
        body = request["body"]
        assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer test-key"
        assert body["model"] == "test-model" and body["n"] == 10 and body["temperature"] == 0.5
        system, user = body["messages"]
        assert system["role"] == "system" and "0 means certainly Agent A" in system["content"]
        assert "Answer: <an integer from 0 to 100>" in system["content"]
        content = user["content"]
        assert content.startswith("Question: Who turned on the laundry?")
        assert "Query state: a laundry in a Bathroom newly on" in content
        for label in "AB":  # consecutive scenes, as the paper: the step before (the start at tau = 0) and now
            assert f"Agent {label} now, after" in content
            assert f"Agent {label} at its start:" in content or f"Agent {label} the step before, after" in content
        assert "laundry_1 (laundry)" in content and "rooms:" in content
        assert "do_laundry" not in content and "change_outfit" not in content  # no mission names
    # Answers 20 and 40 alternate: mean 30, so P(B) = 0.3 at every point.
    trial = run.trials[0]
    p_b = [lab["p_b"] for lab in trial.labelings][0]
    assert p_b == pytest.approx([0.3] * 11)
    assert run.settings["llm"] == "test-model" and run.settings["n"] == 10 and "api_key" not in json.dumps(run.settings)


def test_where_no_completion_gives_a_number_the_fallback_reads_b_against_a(serve, data, tmp_path):
    top = {"B": math.log(0.3), "A": math.log(0.1), "Agent": math.log(0.5)}
    server = serve("--answers", json.dumps(["Reasoning: Agent B went"]), "--top-logprobs", json.dumps(top))
    run = run_llm(llm(server, tmp_path, n=1, fallback=True), data)
    p_b = [lab["p_b"] for lab in run.trials[0].labelings][0]
    assert p_b == pytest.approx([0.75] * 11)  # 0.3 / (0.3 + 0.1), where the reply gave no number
    asked, scored = (r["body"] for r in server.requests()[:2])
    assert scored["messages"][:2] == asked["messages"] and scored["messages"][2]["role"] == "assistant"
    assert scored["messages"][3] == {"role": "user", "content": FALLBACK} and scored["top_logprobs"] == 20
    assert run.settings["fallback"] == FALLBACK


def test_the_second_run_is_answered_from_the_cache(serve, data, tmp_path):
    server = serve()
    first = run_llm(llm(server, tmp_path), data)
    asked = len(server.requests())
    second = run_llm(llm(server, tmp_path), data)
    assert len(server.requests()) == asked  # nothing new was sent
    assert second.matrix().tolist() == first.matrix().tolist()
    ledger = [json.loads(line) for line in (tmp_path / "cache" / "usage.jsonl").read_text().splitlines()]
    assert [r["cached"] for r in ledger] == [False] * asked + [True] * asked
    assert all(r["prompt_tokens"] > 1000 and r["completion_tokens"] == 70 for r in ledger[:asked])


def test_failures_are_retried_with_backoff(serve, data, tmp_path):
    server = serve("--fail", "2", "--fail-status", "503", "--retry-after", "0")
    waits: list[float] = []
    model = llm(server, tmp_path, backoff=0.5, n=1)
    model.client.sleep = waits.append
    run_llm(model, data)
    assert waits == [0.0, 0.0]  # the server's Retry-After: 0 wins over the backoff
    assert len(server.requests()) == 11 + 2


def test_rate_limits_without_retry_after_back_off_exponentially(serve, tmp_path):
    server = serve("--fail", "3", "--fail-status", "429")
    model = llm(server, tmp_path, backoff=0.5, n=1)
    waits: list[float] = []
    model.client.sleep = waits.append
    body = {"model": "test-model", "messages": [{"role": "user", "content": "hi"}], "n": 1}
    assert model.client.complete(body).texts
    assert waits == [0.5, 1.0, 2.0]


def test_a_timeout_is_retried(serve, tmp_path):
    server = serve("--hang", "1")  # the first request is never answered: it times out however fast the machine is
    model = llm(server, tmp_path, timeout=0.3, n=1)
    waits: list[float] = []
    model.client.sleep = waits.append
    assert model.client.complete(HI).texts
    assert len(waits) == 1 and len(server.requests()) == 2


HI = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "n": 1}


def test_a_reply_dripped_a_byte_at_a_time_is_cut_when_the_request_time_is_up(serve, tmp_path, caplog):
    # Each byte comes well within any read timeout, and the reply never ends: only a bound on the whole
    # request stops it (the thread's 60 s are a guard against a client that never would, not the verdict).
    server = serve("--drip", "1")
    model = llm(server, tmp_path, timeout=0.5, n=1)
    model.client.sleep = lambda s: None
    replies: list = []
    asking = threading.Thread(target=lambda: replies.append(model.client.complete(HI)), daemon=True)
    asking.start()
    asking.join(60)
    assert replies and replies[0].texts, "the dripping reply held the request"
    assert len(server.requests()) == 2 and "no whole reply within 0.5 s" in caplog.text


@pytest.mark.parametrize(
    "header, wait",
    [("nan", 0.5), ("-5", 0.5), ("inf", 0.5), ("1e400", 0.5), ("soon", 0.5), ("", 0.5), ("1e9", 60.0), ("2", 2.0)],
)
def test_a_retry_after_that_is_no_time_falls_back_to_the_backoff(serve, tmp_path, header, wait):
    server = serve("--fail", "1", "--fail-status", "429", "--retry-after", header)
    model = llm(server, tmp_path, backoff=0.5, n=1)
    waits: list[float] = []
    model.client.sleep = waits.append
    assert model.client.complete(HI).texts
    assert waits == [wait]


def test_an_http_date_retry_after_is_a_time():
    assert retry_wait("Wed, 21 Oct 2015 07:28:00 GMT", 3.0) == 0.0  # a date passed: ask again at once
    assert retry_wait("Fri, 31 Dec 9999 23:59:59 GMT", 3.0) == MAX_RETRY_AFTER_S
    assert retry_wait("Wed, 99 Foo 2015", 3.0) == 3.0


GOOD_CHOICE = '{"choices": [{"message": {"content": "Answer: 30"}}]'
BAD_REPLIES = {
    '{"id": "x"}': "choices: missing",
    '{"choices": []}': "choices: empty",
    '{"choices": "abc"}': "choices: expected a list",
    "[1]": "expected a JSON object, got list",
    '{"choices": [{"text": "hi"}]}': "choices[0].message: missing",
    '{"choices": [{"message": {"content": 5}}]}': "choices[0].message.content: expected a string",
    GOOD_CHOICE + ', "usage": [1]}': "usage: expected a JSON object",
    GOOD_CHOICE + ', "usage": {"prompt_tokens": "abc"}}': "usage.prompt_tokens: expected an integer, got 'abc'",
    GOOD_CHOICE + ', "usage": {"prompt_tokens": 1e400}}': "usage.prompt_tokens: expected an integer, got inf",
    GOOD_CHOICE + ', "usage": {"prompt_tokens": -5}}': "usage.prompt_tokens: expected an integer in [0, 100000000]",
    GOOD_CHOICE + ', "usage": {"completion_tokens": NaN}}': "usage.completion_tokens: expected an integer, got nan",
    GOOD_CHOICE + ', "usage": {"completion_tokens": 1.5}}': "usage.completion_tokens: expected an integer, got 1.5",
    GOOD_CHOICE + ', "usage": {"prompt_tokens": true}}': "usage.prompt_tokens: expected an integer, got True",
    GOOD_CHOICE + ', "usage": {"prompt_tokens": 1000000000000}}': "expected an integer in [0, 100000000]",
    '{"choices": [{"message": {"content": "\xff"}}]}': "not UTF-8 text",  # a raw 0xff byte: mangled on the way
    "<html>Bad gateway</html>": "not JSON",
}


def test_a_bad_reply_is_asked_again_and_never_cached_or_counted(serve, tmp_path, caplog):
    server = serve("--bodies", json.dumps(list(BAD_REPLIES)))
    model = llm(server, tmp_path, n=1, retries=len(BAD_REPLIES))
    model.client.sleep = lambda s: None
    reply = model.client.complete(HI)
    assert reply.texts == ["Reasoning: hm.\nAnswer: 30"] and not reply.cached  # the server's first good reply
    assert len(server.requests()) == len(BAD_REPLIES) + 1
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == len(BAD_REPLIES)
    for warning, problem in zip(warnings, BAD_REPLIES.values()):
        assert problem in warning, warning
    (entry,) = (tmp_path / "cache").glob("*/*.json")
    assert json.loads(entry.read_text())["response"]["choices"][0]["message"]["content"] == reply.texts[0]
    (line,) = ledger(tmp_path)
    assert line["prompt_tokens"] == 0 and line["completion_tokens"] == 7  # the good reply's counts, none other


def ledger(tmp_path: Path) -> list[dict]:
    path = tmp_path / "cache" / "usage.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


def test_bad_replies_to_the_last_retry_stop_the_run_naming_the_problem(serve, tmp_path):
    server = serve("--bodies", json.dumps(['{"id": "x"}'] * 3))
    model = llm(server, tmp_path, n=1, retries=2)
    model.client.sleep = lambda s: None
    with pytest.raises(LLMError, match=r"not a chat completion: choices: missing after 3 attempts"):
        model.client.complete(HI)
    assert not list((tmp_path / "cache").glob("*/*.json")) and not ledger(tmp_path)


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda entry: entry["response"]["usage"].__setitem__("prompt_tokens", -5), "usage.prompt_tokens"),
        (lambda entry: entry["response"].pop("choices"), "choices: missing"),
        (lambda entry: entry.__setitem__("response", "abc"), "response: expected a JSON object"),
    ],
)
def test_a_bad_cache_entry_is_named_and_asked_for_again(serve, tmp_path, caplog, edit, problem):
    server = serve()
    model = llm(server, tmp_path, n=1)
    first = model.client.complete(HI)
    (path,) = (tmp_path / "cache").glob("*/*.json")
    entry = json.loads(path.read_text())
    edit(entry)
    path.write_text(json.dumps(entry))
    again = model.client.complete(HI)
    assert again.texts == first.texts and not again.cached and len(server.requests()) == 2
    assert f"{path}: " in caplog.text and problem in caplog.text
    assert model.client.complete(HI).cached  # the entry was written again, whole
    assert all(r["prompt_tokens"] >= 0 for r in ledger(tmp_path))


@pytest.mark.parametrize("length", ["declared", "undeclared"])
def test_a_reply_over_the_size_limit_stops_the_run_unread_and_uncached(serve, tmp_path, length):
    server = serve(*(["--no-length"] if length == "undeclared" else []))
    model = llm(server, tmp_path, n=1, max_reply_mb=100 / 2**20)  # 100 bytes: less than any whole reply
    with pytest.raises(LLMError, match=r"a reply of more than 100 bytes; refused unread .*max_reply_mb="):
        model.client.complete(HI)
    assert len(server.requests()) == 1 and not list((tmp_path / "cache").glob("*/*.json")) and not ledger(tmp_path)


@pytest.mark.parametrize(
    "option, message",
    [
        ({"timeout": math.nan}, "timeout must be a finite number > 0, got nan"),
        ({"timeout": 0}, "timeout must be a finite number > 0"),
        ({"retries": 1.5}, "retries must be a whole number >= 0, got 1.5"),
        ({"retries": True}, "retries must be a whole number >= 0, got True"),
        ({"backoff": -1}, "backoff must be a finite number >= 0"),
        ({"price_prompt": -1}, "price_prompt must be a finite number >= 0"),
        ({"price_completion": math.inf}, "price_completion must be a finite number >= 0"),
        ({"max_reply_mb": 0}, "max_reply_mb must be a finite number > 0"),
        ({"n": True}, "n must be a whole number >= 1, got True"),
        ({"temperature": 3}, "temperature must be a finite number >= 0 and <= 2, got 3"),
    ],
)
def test_bad_client_options_are_refused_before_anything_is_sent(option, message):
    with pytest.raises(LLMError, match=re.escape(message)):
        LLMMethod(model="m", api_key="k", **option)


def test_retries_run_out_with_a_clear_error(serve, tmp_path):
    server = serve("--fail", "100")
    model = llm(server, tmp_path, retries=2, n=1)
    model.client.sleep = lambda s: None
    with pytest.raises(LLMError, match="HTTP 503 after 3 attempts"):
        model.client.complete({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert len(server.requests()) == 3


def test_a_server_that_returns_fewer_choices_is_asked_for_the_rest(serve, data, tmp_path):
    server = serve("--max-choices", "1")
    model = llm(server, tmp_path, n=3)
    texts = model.completions([{"role": "user", "content": "hi"}])
    assert len(texts) == 3
    assert [r["body"]["n"] for r in server.requests()] == [3, 2, 1]


# ---- credentials --------------------------------------------------------------------------------------------


def test_missing_credentials_are_refused_clearly(serve, data, tmp_path, monkeypatch, capsys):
    with pytest.raises(LLMError, match="no API key: set OPENAI_API_KEY"):
        LLMMethod(model="m")
    with pytest.raises(LLMError, match="no model name"):
        LLMMethod(api_key="k")
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    monkeypatch.setenv("MARPLE_LLM_MODEL", "env-model")
    assert LLMMethod().client.settings.model == "env-model"
    monkeypatch.delenv("OPENAI_API_KEY")
    args = ["evaluate", "--data", str(data.root), "--model", "llm", "--out", str(tmp_path / "r.json"), "--no-progress"]
    assert main(args) == 2
    assert "no API key" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


def test_a_refused_key_stops_the_run(serve, data, tmp_path):
    server = serve("--key", "right-key")
    with pytest.raises(LLMError, match="refused the API key"):
        run_llm(llm(server, tmp_path, api_key="wrong-key"), data)
    assert len(server.requests()) == 1  # no retries for a refusal


# ---- the command line: a whole run, a dry run ---------------------------------------------------------------


def test_cli_evaluate_llm_counts_tokens_and_cost(serve, data, tmp_path, capsys):
    server = serve()
    out = tmp_path / "llm.json"
    args = ["evaluate", "--data", str(data.root), "--model", "llm", "--limit", "1", "--out", str(out), "--no-progress"]
    options = ["base_url=" + server.url, "model=test-model", "api_key=k", f"cache={tmp_path / 'cache'}"]
    options += ["price_prompt=10", "price_completion=30"]
    assert main(args + [a for o in options for a in ("--model-arg", o)]) == 0
    printed = capsys.readouterr().out
    assert "llm: 11 requests (0 more answered from the cache)" in printed
    usage = json.loads(out.read_text())["settings"]["llm_usage"]
    sent = [r["body"] for r in server.requests()]
    assert usage["requests"] == 11 and usage["completion_tokens"] == 70 * 11
    prompt = sum(sum(len(m["content"]) for m in b["messages"]) // 4 for b in sent)
    assert usage["prompt_tokens"] == prompt
    assert usage["cost_usd"] == pytest.approx((prompt * 10 + 770 * 30) / 1e6)
    # Scored as the paper scored GPT-4: never cut, unless --cutoff says otherwise.
    assert json.loads(out.read_text())["settings"]["protocol"]["cutoff"] is None
    assert json.loads(out.read_text())["settings"]["limit"] == 1  # a subsample: one trial per scenario


def test_dry_run_writes_prompts_and_calls_nothing(data, tmp_path, capsys):
    out = tmp_path / "llm.json"
    args = ["evaluate", "--data", str(data.root), "--model", "llm", "--dry-run", "--out", str(out), "--no-progress"]
    # No key, no model name, and a server address where nothing listens: a dry run needs none of them.
    assert main(args + ["--model-arg", "base_url=http://127.0.0.1:9/v1", "--model-arg", f"cache={tmp_path}"]) == 0
    printed = capsys.readouterr().out
    lines = [json.loads(line) for line in (tmp_path / "llm.prompts.jsonl").read_text().splitlines()]
    episodes = dataset_episodes(data, ["laundry"])
    assert len(lines) == 11 * len(episodes) and f"dry run: {len(lines)} requests to send" in printed
    assert all(line["estimated_prompt_tokens"] > 1000 and line["request"]["n"] == 10 for line in lines)
    assert not out.exists()
    # Asked for the protocol's cutoff, points where T + margin - tau > 40 are not asked.
    assert main([*args, "--cutoff", "40", "--model-arg", f"cache={tmp_path}"]) == 0
    settings = ProtocolSettings()
    uncut = sum(not settings.is_cut(e.horizon, tau) for e in episodes for tau in settings.taus(e.horizon))
    assert len((tmp_path / "llm.prompts.jsonl").read_text().splitlines()) == uncut < len(lines)
    assert main(["evaluate", "--data", str(data.root), "--model", "distance", "--dry-run"]) == 2
    assert "calls no service" in capsys.readouterr().err


# ---- in-context examples and modalities ---------------------------------------------------------------------


def test_in_context_examples_come_from_training_data(serve, data, tmp_path):
    server = serve()
    model = llm(server, tmp_path, shots=2, examples=str(data.root), n=1)
    run = run_llm(model, data)
    content = server.requests()[-1]["body"]["messages"][1]["content"]
    assert "Solved example 1:" in content and "Solved example 2:" in content
    assert "Correct answer: 0 (Agent A" in content and "Correct answer: 100 (Agent B" in content
    assert content.index("Now the trial to answer:") > content.index("Solved example 2:")
    test = {id(t) for e in dataset_episodes(data, ["laundry"]) for t in e.trajectories}
    train_seeds = {t.seed for t in data.trajectories("laundry", "train-in")}
    for pair in model._pairs["laundry"]:
        assert pair.trajectories[0].seed in train_seeds and not {id(t) for t in pair.trajectories} & test
    assert run.settings["shots"] == 2
    with pytest.raises(LLMError, match="examples=DATA_DIR"):
        LLMMethod(shots=2, dry_run="x")


def test_the_llm_declares_vision_and_gets_nothing_else(data, tmp_path):
    model = SpyLLM(dry_run=str(tmp_path / "p.jsonl"))
    run_llm(model, data)
    seen = model.seen
    assert SpyLLM.reads == frozenset({"vision"})
    with pytest.raises(UndeclaredModalityError):
        _ = seen[0].agents[0].audio
    with pytest.raises(UndeclaredModalityError):
        _ = seen[0].agents[0].intents


@pytest.mark.parametrize("scenes", ["consecutive", "start"])
def test_the_prompt_shows_consecutive_scenes_as_the_paper_or_the_start(data, scenes):
    from marple_eval.evidence import trial_evidence
    from marple_eval.llm.prompts import messages
    from marple_eval.llm.scenes import describe_scene
    from marple_gym.evidence.scene_graph import scene_graph

    episode = dataset_episodes(data, ["laundry"])[0]
    tau = episode.horizon // 2
    trial = trial_evidence(episode, tau, False, frozenset({"vision"}), ("x1", "x2"))
    system, user = messages(trial, scenes=scenes)
    agent = trial.agents[0]
    first = tau - 1 if scenes == "consecutive" else 0
    before = agent.world(first)
    assert describe_scene(scene_graph(before.house, before.state)) in user["content"]
    title = f"the step before, after {tau - 1} steps" if scenes == "consecutive" else "at its start"
    assert f"Agent A {title}:" in user["content"]
    assert ("the step before now, and now" in system["content"]) == (scenes == "consecutive")
    with pytest.raises(LLMError, match="scenes must be one of consecutive, start"):
        LLMMethod(scenes="all", dry_run="x")


def test_every_query_state_is_described():
    for name in ("do_laundry", "watch_movie_cozily", "feed_dog", "watch_news_on_tv", "clean_living_room_table"):
        text = describe_query(get_mission(name).query_subgoal)
        assert text.startswith(("a ", "an ", "the ")) and "None" not in text


# ---- any model from the command line ----------------------------------------------------------------------


def docs_model() -> str:
    """The 15-line custom model of docs/evaluation.md."""
    docs = (ROOT / "docs" / "evaluation.md").read_text()
    blocks = [b.split("```", 1)[0] for b in docs.split("```python\n")[1:]]
    (code,) = [b for b in blocks if "class Witness" in b]
    return code


def test_cli_loads_a_model_by_module_path(data, tmp_path, monkeypatch, capsys):
    code = docs_model()
    assert len([line for line in code.splitlines() if line.strip()]) <= 15
    (tmp_path / "my_models.py").write_text(code + "\nNOT_A_MODEL = 3\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    out = tmp_path / "witness.json"
    base = ["evaluate", "--data", str(data.root), "--limit", "1", "--no-progress"]
    assert main([*base, "--model", "my_models:Witness", "--model-arg", "confidence=0.9", "--out", str(out)]) == 0
    saved = json.loads(out.read_text())
    assert saved["method"] == "witness" and saved["trials"][0]["p_culprit"][-1] == pytest.approx(0.9)
    assert main([*base, "--model", "my_models:Missing"]) == 2
    assert "has no attribute 'Missing'" in capsys.readouterr().err
    assert main([*base, "--model", "no_such_module:Model"]) == 2
    assert "cannot import 'no_such_module'" in capsys.readouterr().err
    assert main([*base, "--model", "my_models:NOT_A_MODEL"]) == 2
    assert "not a class or factory" in capsys.readouterr().err


def test_evidence_does_not_name_agents_by_role(data, tmp_path):
    """A recorded agent is named by its role, and role A is always the culprit: the evidence must not carry it."""
    model = SpyLLM(dry_run=str(tmp_path / "p.jsonl"))
    evaluate(lambda: model, dataset_episodes(data, ["laundry"]), ProtocolSettings(labelings="both"), progress=False)
    for trial in model.seen:
        for agent in trial.agents:
            assert [a.name for a in agent.start.agents] == [NEUTRAL_AGENT.name]
            assert agent.world().house.agent_names == (NEUTRAL_AGENT.name,)
            assert agent.world().state.grid.tolist() == agent.vision[-1].tolist()
