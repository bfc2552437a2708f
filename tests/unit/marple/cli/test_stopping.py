"""A command stopped by SIGTERM (a batch scheduler, ``kill``) or SIGINT (Ctrl-C) stops within moments, says what
it keeps, exits 143 or 130, and the same command run again resumes from what it kept.

Each case starts ``marple`` in its own process, waits until the command has begun its work (a file it writes
appears), and sends the signal a moment later: the moment is drawn from a seeded generator, so the schedule is the
same every run, and each job is long enough that the signal always lands while it works.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

STOP_WITHIN_S = 60.0
"""How long a stopped command may take to exit: moments on a quiet machine; generous for a loaded CI one."""
START_WITHIN_S = 180.0


def _marple(args: list[str], cwd: Path) -> subprocess.Popen:
    code = f"import sys\nfrom marple.cli.main import main\nsys.exit(main({args!r}))"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-c", code], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _stop_when(process: subprocess.Popen, started: Path | float, signum: int, delay: float) -> tuple[int, str, float]:
    """Send ``signum`` ``delay`` seconds after ``started`` exists (a path), or after the process has used
    ``started`` CPU seconds (a command that writes nothing until it ends); the exit status, stderr and the seconds
    from the signal to the exit."""
    deadline = time.monotonic() + START_WITHIN_S
    begun = started.exists if isinstance(started, Path) else lambda: _cpu_seconds(process.pid) >= started
    while not begun():
        assert process.poll() is None, f"the command ended before it started its work: {process.communicate()}"
        assert time.monotonic() < deadline, f"{started} never appeared"
        time.sleep(0.02)
    time.sleep(delay)
    assert process.poll() is None, "the job ended before the signal: make it longer"
    sent = time.monotonic()
    process.send_signal(signum)
    try:
        _, err = process.communicate(timeout=STOP_WITHIN_S)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail(f"still running {STOP_WITHIN_S:.0f} s after {signal.Signals(signum).name}")
    return process.returncode, err, time.monotonic() - sent


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", f"import sys\nfrom marple.cli.main import main\nsys.exit(main({args!r}))"],
        cwd=cwd, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def _belief_set(cwd: Path, out: str = "set", houses: int = 2) -> list[str]:
    return ["generate", "--family", "beliefs", "--test-houses", str(houses), "--episodes-per-house", "6",
            "--train-episodes", "60", "--out", out, "--workers", "2", "--no-progress"]  # fmt: skip


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stopped_generation_exits_with_the_signal_and_the_same_command_finishes_the_set(tmp_path, signum):
    rng = random.Random(f"generate {signum}")
    args = _belief_set(tmp_path)
    status, err, took = _stop_when(_marple(args, tmp_path), tmp_path / "set", signum, rng.uniform(0.5, 2.0))
    assert status == 128 + signum, err
    assert f"stopped by {signal.Signals(signum).name}" in err and "run the same command again" in err
    done = _run(args, tmp_path)
    assert done.returncode == 0, done.stderr
    from marple_gym.beliefs.questions import read_question_set

    assert read_question_set(tmp_path / "set", "test")  # complete, every file matching its checksum


@pytest.fixture(scope="module")
def belief_set(tmp_path_factory) -> Path:
    cwd = tmp_path_factory.mktemp("beliefs")
    # Large enough that scoring it takes seconds on a quiet machine: the signal must land while it runs.
    done = _run(_belief_set(cwd, houses=8), cwd)
    assert done.returncode == 0, done.stderr
    return cwd / "set"


def test_a_stopped_evaluation_keeps_its_journal_and_resumes_to_the_same_answers(belief_set, tmp_path):
    args = ["evaluate", "--family", "beliefs", "--model", "observer", "--data", str(belief_set), "--no-progress"]
    journal = tmp_path / "results" / "beliefs-observer.json.journal.jsonl"
    rng = random.Random("evaluate")
    status, err, _ = _stop_when(_marple(args, tmp_path), journal, signal.SIGINT, rng.uniform(0.0, 0.3))
    assert status == 130, err
    assert "keeps" in err and "stopped by SIGINT" in err
    assert journal.is_file()
    resumed = _run(args, tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    whole = _run([*args, "--out", "whole.json"], tmp_path)
    assert whole.returncode == 0, whole.stderr
    import json

    def answers(path: Path) -> list:
        return json.loads(path.read_text())["answers"]

    assert answers(tmp_path / "results" / "beliefs-observer.json") == answers(tmp_path / "whole.json")


def test_training_stopped_by_sigterm_exits_143_within_moments(belief_set, tmp_path):
    """Lightning turns a SIGTERM into ``SystemExit`` with status 0 on its own; the command must still say 143.
    Training writes nothing until it ends, so the signal waits for the CPU seconds that imports and reading the
    set take (a few), then lands in the steps."""
    args = ["train", "--family", "beliefs", "--data", str(belief_set), "--out", "policy", "--max-steps", "100000",
            "--no-progress"]  # fmt: skip
    rng = random.Random("train")
    status, err, _ = _stop_when(_marple(args, tmp_path), 10.0, signal.SIGTERM, rng.uniform(0.0, 2.0))
    assert status == 143, err
    assert "stopped by SIGTERM" in err


@pytest.fixture(scope="module")
def whodunit_set(tmp_path_factory) -> Path:
    cwd = tmp_path_factory.mktemp("whodunit")
    args = ["generate", "--scenario", "laundry", "--splits", "test", "--test-houses", "2", "--test-per-house", "8",
            "--out", "set", "--workers", "2", "--no-progress"]  # fmt: skip
    done = _run(args, cwd)
    assert done.returncode == 0, done.stderr
    return cwd / "set"


WHODUNIT_EVALUATION = ["evaluate", "--method", "ideal", "--labelings", "both", "--workers", "2", "--no-progress"]


@pytest.fixture(scope="module")
def whodunit_trials(whodunit_set) -> list[str]:
    """The trials of an evaluation that ran uninterrupted, to compare a resumed one with."""
    done = _run([*WHODUNIT_EVALUATION, "--data", str(whodunit_set), "--out", "whole.json"], whodunit_set.parent)
    assert done.returncode == 0, done.stderr
    return _trials(whodunit_set.parent / "whole.json")


def _trials(path: Path) -> list[str]:
    import json

    return sorted(json.dumps(t, sort_keys=True) for t in json.loads(path.read_text())["trials"])


def _group_gone(pgid: int, within: float = 10.0) -> bool:
    """Whether every process of a process group has exited (worker pools included) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_an_evaluation_with_worker_processes_stops_them_all_and_resumes_to_the_same_answers(
    whodunit_set, whodunit_trials, tmp_path, signum
):
    args = [*WHODUNIT_EVALUATION, "--data", str(whodunit_set)]
    code = f"import sys\nfrom marple.cli.main import main\nsys.exit(main({args!r}))"
    process = subprocess.Popen(
        [sys.executable, "-c", code], cwd=tmp_path, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    journal = tmp_path / "results" / "ideal.json.journal.jsonl"
    rng = random.Random(f"evaluate with workers {signum}")
    status, err, _ = _stop_when(process, journal, signum, rng.uniform(0.0, 0.3))
    assert status == 128 + signum, err
    assert f"stopped by {signal.Signals(signum).name}" in err and "keeps" in err
    assert _group_gone(process.pid), "a worker process outlived the stopped command"
    assert journal.is_file()
    resumed = _run(args, tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert _trials(tmp_path / "results" / "ideal.json") == whodunit_trials


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stopped_expectation_set_exits_with_the_signal_and_the_same_command_finishes_it(tmp_path, signum):
    args = ["generate", "--family", "expectations", "--train-per-type", "10", "--validation-per-type", "2",
            "--test-per-type", "4", "--out", "set", "--workers", "2", "--no-progress"]  # fmt: skip
    rng = random.Random(f"expectations {signum}")
    status, err, _ = _stop_when(_marple(args, tmp_path), tmp_path / "set", signum, rng.uniform(0.5, 2.0))
    assert status == 128 + signum, err
    assert f"stopped by {signal.Signals(signum).name}" in err and "run the same command again" in err
    done = _run(args, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "trials (10 train, 2 validation, 4 test per type" in done.stderr + done.stdout
