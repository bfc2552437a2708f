"""The benchmark's executors: jobs spread one per device on this machine, or over a Ray cluster."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("torch")

from marple.benchmark.executors import LocalExecutor, make_executor  # noqa: E402
from marple_gym.errors import MarpleError  # noqa: E402
from marple_gym.extras import install_command  # noqa: E402


def record_job(job: str, device: str, folder: str) -> None:
    """A job that notes which process ran it on which device."""
    with open(os.path.join(folder, f"{job}.json"), "w") as f:
        json.dump({"pid": os.getpid(), "device": device}, f)


def sleep_or_fail(job: str, device: str, folder: str) -> None:
    """A job that runs for minutes ("sleep", noting its process), or fails once the sleeping one runs ("fail")."""
    import time

    pid_file = os.path.join(folder, "sleeper.pid")
    if job == "sleep":
        with open(pid_file + ".part", "w") as f:
            f.write(str(os.getpid()))
        os.replace(pid_file + ".part", pid_file)
        time.sleep(600)
    while not os.path.exists(pid_file):
        time.sleep(0.05)
    raise ValueError("this job failed")


def test_a_failed_or_stopped_run_ends_the_jobs_still_running_rather_than_waiting_for_them(tmp_path):
    """A signal (or a failed job) in the middle of the agent models' training must not wait minutes for the
    running jobs to end: their worker processes are ended with the run."""
    import functools

    executor = LocalExecutor("cpu")
    with pytest.raises(ValueError, match="this job failed"):
        list(executor.run(functools.partial(sleep_or_fail, folder=str(tmp_path)), ["sleep", "fail"], parallel=2))
    sleeper = int((tmp_path / "sleeper.pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(sleeper, 0)


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
    with pytest.raises(MarpleError, match=re.escape(install_command("ray"))):
        make_executor("ray")
    with pytest.raises(ValueError, match="unknown executor 'slurm'"):
        make_executor("slurm")


def test_a_local_ray_cluster_that_would_listen_on_the_network_is_refused_before_it_starts():
    """Ray imported before the executor, with cluster networking on, would put the local cluster on the
    machine's network address: refused, naming the remedy, and nothing started (in a fresh process)."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("the ray extra is not installed")
    code = """
import ray
from marple.benchmark.executors import start_local_ray
if ray.util.get_node_ip_address() == "127.0.0.1":
    raise SystemExit("loopback only")
try:
    start_local_ray(num_cpus=1)
except Exception as exc:
    print(type(exc).__name__, exc)
print("started" if ray.is_initialized() else "nothing started")
"""
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "RAY_ADDRESS")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    if "loopback only" in done.stderr:
        pytest.skip("this machine has no address besides loopback: Ray's cluster networking stays on it")
    assert done.stdout.startswith("MarpleError Ray's local cluster would listen on "), done.stdout + done.stderr
    assert (
        "set RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 before importing it, or name a cluster with RAY_ADDRESS" in done.stdout
    )
    assert done.stdout.strip().endswith("nothing started")
