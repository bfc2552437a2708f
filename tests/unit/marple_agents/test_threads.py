"""One setting decides torch's threads in every process that runs models: --threads, else OMP_NUM_THREADS, else one."""

from __future__ import annotations

import os

import pytest

from marple_agents.threads import DEFAULT_THREADS, THREADS_VARIABLE, torch_threads, use_torch_threads


@pytest.fixture
def threads_restored(monkeypatch):
    """The environment variable and torch's threads as they were before the test."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    yield torch
    torch.set_num_threads(before)


def test_the_setting_is_the_option_else_the_environment_else_one(monkeypatch):
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    assert torch_threads() == DEFAULT_THREADS == 1
    monkeypatch.setenv(THREADS_VARIABLE, "3")
    assert torch_threads() == 3 and torch_threads(2) == 2
    for unusable in ("0", "two", ""):  # not a thread count: the default, as torch would not take it either
        monkeypatch.setenv(THREADS_VARIABLE, unusable)
        assert torch_threads() == 1
    with pytest.raises(ValueError, match="threads must be at least 1"):
        torch_threads(0)


def test_using_the_setting_sets_torch_and_the_processes_started_after(threads_restored):
    torch = threads_restored
    torch.set_num_threads(2)
    assert use_torch_threads() == 1 and torch.get_num_threads() == 1 and os.environ[THREADS_VARIABLE] == "1"
    assert use_torch_threads(2) == 2 and torch.get_num_threads() == 2 and os.environ[THREADS_VARIABLE] == "2"


@pytest.mark.parametrize("command", ["train", "evaluate", "benchmark"])
@pytest.mark.parametrize("family", ["whodunit", "beliefs", "expectations"])
def test_the_commands_that_run_torch_take_threads(command, family, threads_restored, capsys):
    from marple.cli.main import build_parser, main, parse_command

    torch = threads_restored
    parser = build_parser()
    assert parse_command(parser, [command, "--family", family, "--threads", "2"]).threads == 2
    assert parse_command(parser, [command, "--family", family]).threads is None
    with pytest.raises(SystemExit):
        parse_command(parser, [command, "--family", family, "--threads", "0"])
    assert "expected an integer >= 1" in capsys.readouterr().err
    if command == "evaluate" and family == "whodunit":  # a command run: its threads are set before it does anything
        assert main(["evaluate", "--threads", "2", "--list-methods"]) == 0
        assert torch.get_num_threads() == 2 and os.environ[THREADS_VARIABLE] == "2"
    assert not hasattr(parse_command(parser, ["envs"]), "threads")  # a command without a model has no such option


def test_training_takes_the_processs_setting(threads_restored, tmp_path):
    """A trainer called from a script, not a command, still runs at the one setting (one thread by default)."""
    from tiny_models import train_tiny

    torch = threads_restored
    torch.set_num_threads(2)
    train_tiny(tmp_path / "policy", max_steps=1, batch_size=8)
    assert torch.get_num_threads() == 1 and os.environ[THREADS_VARIABLE] == "1"
