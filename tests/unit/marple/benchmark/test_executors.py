"""The benchmark's executors: jobs spread one per device on this machine, or over a Ray cluster."""

from __future__ import annotations

import json
import os
import sys

import pytest

pytest.importorskip("torch")

from marple.benchmark.executors import LocalExecutor, make_executor  # noqa: E402
from marple_gym.errors import MarpleError  # noqa: E402


def record_job(job: str, device: str, folder: str) -> None:
    """A job that notes which process ran it on which device."""
    with open(os.path.join(folder, f"{job}.json"), "w") as f:
        json.dump({"pid": os.getpid(), "device": device}, f)


def test_each_worker_keeps_one_device_of_its_own(tmp_path):
    """Two GPUs (names only: the jobs touch no GPU): a worker process per device, every job run on one."""
    import functools

    jobs = [f"job{i}" for i in range(6)]
    executor = LocalExecutor(["cuda:0", "cuda:1"])
    assert executor.kind == "cuda" and executor.slots(len(jobs), parallel=8) == ["cuda:0", "cuda:1"]
    done = list(executor.run(functools.partial(record_job, folder=str(tmp_path)), jobs))
    assert sorted(done) == jobs
    seen = [json.loads((tmp_path / f"{job}.json").read_text()) for job in jobs]
    device_of = {}
    for record in seen:
        assert device_of.setdefault(record["pid"], record["device"]) == record["device"]  # a process, a device
    assert len(set(device_of.values())) == len(device_of) and set(device_of.values()) <= {"cuda:0", "cuda:1"}
    assert os.getpid() not in device_of


def test_one_device_runs_the_jobs_here_in_order_and_cpus_share_out_the_cores(tmp_path):
    import functools

    executor = LocalExecutor("cpu")
    assert executor.kind == "cpu" and executor.slots(jobs=5, parallel=2) == ["cpu", "cpu"]
    assert executor.slots(jobs=1, parallel=4) == ["cpu"]
    jobs = ["a", "b", "c"]
    assert list(executor.run(functools.partial(record_job, folder=str(tmp_path)), jobs)) == jobs
    assert {json.loads((tmp_path / f"{j}.json").read_text())["pid"] for j in jobs} == {os.getpid()}


def test_the_ray_executor_without_ray_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    with pytest.raises(MarpleError, match=r"pip install 'marple-gym\[ray\]'"):
        make_executor("ray")
    with pytest.raises(ValueError, match="unknown executor 'slurm'"):
        make_executor("slurm")
