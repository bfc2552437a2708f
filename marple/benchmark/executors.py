"""Where the benchmark's independent jobs run: this machine's devices, one job per device, or a Ray cluster.

A job (an agent model to train, an inference run to score) is a function of
the job and the device it gets; it reads and writes files under the
benchmark's folder and nothing else, so which process, device or machine ran
it changes no figure: on the CPU both executors write byte-identical
``benchmark.json`` files (tested).

* :class:`LocalExecutor`: with GPUs, one worker process per GPU, each running
  one job at a time on its own device (``--device cuda:1`` uses that one only);
  on the CPU, ``parallel`` worker processes sharing the cores, or the jobs one
  after the other in this process.
* :class:`RayExecutor` (``--executor ray``, the ``ray`` extra): each job a Ray
  task with one GPU where the cluster has GPUs, else one CPU; it joins the
  cluster ``RAY_ADDRESS`` names, or starts one on this machine that listens
  on 127.0.0.1 only (:func:`start_local_ray`; Ray's own local cluster would
  listen on every network interface). Every node needs this package and the
  benchmark's folder at the same path (a shared file system).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TypeVar

from marple_agents.device import DeviceError, devices_for, kind
from marple_gym.errors import MarpleError
from marple_gym.extras import install_command

J = TypeVar("J")
JobFunction = Callable[[J, str], object]
"""``fn(job, device)``: does one job on ``device`` ("cpu", "cuda:N")."""

EXECUTORS = ("local", "ray")


class Executor(ABC):
    """Runs independent jobs on devices; ``kind`` is ``"cpu"`` or ``"cuda"`` (what the jobs get)."""

    kind: str = "cpu"

    @abstractmethod
    def run(self, fn: JobFunction, jobs: Sequence[J], parallel: int = 1) -> Iterator[J]:
        """Do every job, yielding each as it finishes; ``parallel``: jobs at a time on a CPU-only machine."""


class LocalExecutor(Executor):
    """This machine: one worker process per device, or ``parallel`` CPU workers (see module docs).

    ``devices`` is a device setting (``auto``, ``cpu``, ``cuda``, ``cuda:N``) or an explicit list of devices,
    e.g. ``["cpu", "cpu"]`` to run two jobs at a time as if each had a device of its own.
    """

    def __init__(self, devices: str | Sequence[str] = "auto", verbose: bool = False) -> None:
        self.devices = devices_for(devices) if isinstance(devices, str) else list(devices)
        self.kind = kind(self.devices[0])
        self.verbose = verbose

    def slots(self, jobs: int, parallel: int) -> list[str]:
        """The device of each worker: every GPU, or ``parallel`` CPU workers (never more than there are jobs)."""
        slots = self.devices if self.kind == "cuda" or len(self.devices) > 1 else ["cpu"] * parallel
        return slots[: max(1, jobs)]

    def run(self, fn: JobFunction, jobs: Sequence[J], parallel: int = 1) -> Iterator[J]:
        slots = self.slots(len(jobs), parallel)
        if len(slots) == 1:
            for job in jobs:
                fn(job, slots[0])
                yield job
            return
        context = mp.get_context("spawn")  # fresh interpreters: no inherited CUDA state, torch threads or locks
        free = context.Queue()
        for device in slots:
            free.put(device)
        # One thread per CPU worker, whatever the machine is doing: the weights must not depend on the load.
        threads = max(1, (os.cpu_count() or 1) // len(slots))
        pool = ProcessPoolExecutor(len(slots), context, _take_device, (free, threads, self.verbose))
        try:
            running = {pool.submit(_run_job, fn, job): job for job in jobs}
            for done in as_completed(running):
                done.result()
                yield running[done]
        except BaseException:
            _stop_workers(pool)  # a signal or a failed job: the running jobs are not waited for (minutes each)
            raise
        pool.shutdown()


_DEVICE = "cpu"
"""The device of this worker process (set once, when it starts)."""


def _take_device(free, threads: int, verbose: bool) -> None:
    global _DEVICE
    _DEVICE = free.get()
    _quiet_worker(threads, verbose)


def _quiet_worker(threads: int, verbose: bool) -> None:
    import torch  # torch and Lightning load in the worker processes only

    from marple_agents.training.train import quiet_lightning

    torch.set_num_threads(threads)
    quiet_lightning(verbose)


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """End a pool's worker processes now, jobs running or not (what they finished is already written).
    ``shutdown`` alone waits for the running jobs; Python 3.14's ``terminate_workers`` does this, before it the
    pool's process table is the only handle on them."""
    processes = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=10)


def _run_job(fn: JobFunction, job) -> object:
    return fn(job, _DEVICE)


class RayExecutor(Executor):
    """Each job a Ray task on the cluster ``RAY_ADDRESS`` names, or on one started here (see module docs).

    ``device`` ``cpu`` keeps jobs off GPUs; ``auto`` uses them where the cluster has some; ``cuda`` requires them.
    """

    def __init__(self, device: str = "auto", verbose: bool = False, **init) -> None:
        options = {"log_to_driver": verbose, "include_dashboard": False, **init}
        if init.get("address") or os.environ.get("RAY_ADDRESS"):
            ray = _ray()
            if not ray.is_initialized():
                ray.init(**options)
        else:
            ray = start_local_ray(**options)
        gpus = int(ray.cluster_resources().get("GPU", 0))
        if device.startswith("cuda") and not gpus:
            raise DeviceError(f"--device {device}: the Ray cluster has no GPU")
        if device not in ("auto", "cpu", "cuda"):
            raise DeviceError(f"--device {device}: with --executor ray, choose auto, cpu or cuda (Ray assigns GPUs)")
        self.kind = "cuda" if gpus and device != "cpu" else "cpu"
        self.verbose = verbose

    def run(self, fn: JobFunction, jobs: Sequence[J], parallel: int = 1) -> Iterator[J]:
        ray = _ray()
        gpu = self.kind == "cuda"
        task = ray.remote(_ray_job).options(num_gpus=1 if gpu else 0, num_cpus=1)
        pending = {task.remote(fn, job, gpu, self.verbose): k for k, job in enumerate(jobs)}
        while pending:
            (ready,), _ = ray.wait(list(pending), num_returns=1)
            ray.get(ready)  # raises the job's error here
            yield jobs[pending.pop(ready)]


def _ray_job(fn: JobFunction, job, gpu: bool, verbose: bool) -> object:
    _quiet_worker(1, verbose)
    return fn(job, "cuda:0" if gpu else "cpu")  # Ray shows a task only the GPU it assigned


def _ray():
    try:
        import ray  # the ray extra, asked for by --executor ray
    except ModuleNotFoundError:
        raise MarpleError(f"--executor ray needs Ray: {install_command('ray')}") from None
    return ray


LOOPBACK = "127.0.0.1"
RAY_LOCAL_ONLY = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray's switch between a cluster and a single machine: at 0 (its default on macOS and Windows) every process of a
local instance listens on the loopback interface; otherwise Ray replaces a loopback node address with the
machine's network address. Ray reads it when it is imported."""


def start_local_ray(**init):
    """Ray, with a local cluster of this machine's processes started (unless one is running in this process) that
    listens and is reached on 127.0.0.1 only; ``init``: more ``ray.init`` arguments (``num_cpus``, ...).

    Raises :class:`MarpleError`, starting nothing, when Ray was imported before with cluster networking on, which
    would put the local cluster on the network (the error says how to avoid it)."""
    if "ray" not in sys.modules:  # Ray reads it when it is imported
        os.environ.setdefault(RAY_LOCAL_ONLY, "0")
    ray = _ray()
    if ray.is_initialized():
        return ray
    address = ray.util.get_node_ip_address()  # the address a node started now would have
    if address != LOOPBACK:
        raise MarpleError(
            f"Ray's local cluster would listen on {address}, not only on {LOOPBACK}: Ray was imported before with "
            f"{RAY_LOCAL_ONLY} unset; set {RAY_LOCAL_ONLY}=0 before importing it, or name a cluster with RAY_ADDRESS"
        )
    ray.init(address="local", _node_ip_address=LOOPBACK, **init)
    return ray


def make_executor(name: str, device: str = "auto", verbose: bool = False) -> Executor:
    """The executor ``--executor`` names, for jobs on ``device`` (a ``--device`` setting)."""
    if name == "local":
        return LocalExecutor(device, verbose)
    if name == "ray":
        return RayExecutor(device, verbose)
    raise ValueError(f"unknown executor {name!r}; choose from {', '.join(EXECUTORS)}")
