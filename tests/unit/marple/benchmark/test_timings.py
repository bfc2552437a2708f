"""timings.json: the CPU seconds of the processes a stage started count in it; bench_budget prints them."""

from __future__ import annotations

import json
import subprocess
import sys

from bench_scripts import load_bench

from marple.benchmark.timings import Timings, cpu_seconds

BUSY = "import time\nend = time.process_time() + 0.6\nwhile time.process_time() < end: pass"


def test_a_stage_counts_the_cpu_of_the_processes_it_started():
    timings = Timings()
    before = cpu_seconds()
    timings.stage("data", lambda: subprocess.run([sys.executable, "-c", BUSY], check=True))
    assert timings.stages["data"]["cpu_s"] >= 0.6 and cpu_seconds() - before >= 0.6
    run = type("Run", (), {"name": "uniform"})()
    assert timings.timed_run(lambda r, device: (r.name, device), run, "cpu") == ("uniform", "cpu")
    record = timings.record()
    assert set(record) == {"cores", "threads", "stages", "runs"}
    assert set(record["runs"]["uniform"]) == {"wall_s", "cpu_s"}
    assert "data" in timings.words() and "CPU" in timings.words()


def test_timings_say_the_torch_threads_of_each_process(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert Timings().record()["threads"] == 3 and Timings().words().endswith("3 torch threads per process")
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert Timings().record()["threads"] == 1 and Timings().words().endswith("1 torch thread per process")


def test_bench_budget_prints_two_runs_side_by_side(tmp_path, capsys):
    bench = load_bench("bench_budget")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "timings.json").write_text(json.dumps({"data": 5.0, "models": 72.0}))  # an older run's
    stages = {"data": {"wall_s": 9.0, "cpu_s": 4.0}, "models": {"wall_s": 60.0, "cpu_s": 100.0}}
    runs = {"uniform": {"wall_s": 2.0, "cpu_s": 1.5}}
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "timings.json").write_text(json.dumps({"cores": 2, "stages": stages, "runs": runs}))
    assert bench.main([str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert "| data | - | 5.0 | 4.0 | 9.0 | - |" in out and "|   uniform | - | - | 1.5 | 2.0 | - |" in out
