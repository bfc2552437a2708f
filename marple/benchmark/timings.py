"""Where a benchmark run's time went: the wall and CPU seconds of each stage and of each inference run
(``timings.json``, not a figure: it depends on the machine and its load; ``bench/bench_budget.py`` prints it).

CPU seconds are those of this process and every process it started (worker pools, the data generator's fork
server), counted while they run: on a busy machine they say what the work cost, where wall time says mostly what
the other jobs took.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from marple_agents.threads import torch_threads

T = TypeVar("T")

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and all its descendants so far, living or ended.

    Read from ``/proc``: each living descendant's own time and that of the children it reaped, so a worker that
    ended counts once, in its parent. Without ``/proc``: this process and the children it reaped.
    """
    if not Path("/proc/self/stat").is_file():
        own, reaped = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime
    parents, ticks = {}, {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:  # ended while we looked: its parent counts it once reaped
                continue
            fields = stat[stat.rindex(")") + 2 :].split()  # after the command name, which may hold spaces
            parents[int(name)] = int(fields[1])
            ticks[int(name)] = sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    me = os.getpid()
    return sum(t for pid, t in ticks.items() if _descends(pid, me, parents)) / _TICK


def _descends(pid: int, ancestor: int, parents: dict[int, int]) -> bool:
    while pid != ancestor:
        pid = parents.get(pid, 0)
        if pid <= 1:
            return False
    return True


class Timings:
    """The wall and CPU seconds of a run's stages and inference runs, as :meth:`record` measures them."""

    def __init__(self) -> None:
        self.stages: dict[str, dict[str, float]] = {}
        self.runs: dict[str, dict[str, float]] = {}

    @contextmanager
    def measure(self, table: dict[str, dict[str, float]], name: str) -> Iterator[None]:
        wall, cpu = time.perf_counter(), cpu_seconds()
        yield
        table[name] = {"wall_s": round(time.perf_counter() - wall, 2), "cpu_s": round(cpu_seconds() - cpu, 2)}

    def stage(self, name: str, work: Callable[[], T]) -> T:
        """``work()``, measured as stage ``name``."""
        with self.measure(self.stages, name):
            return work()

    def timed_run(self, score: Callable[..., T], run: Any, *args: Any) -> T:
        """``score(run, *args)``, measured as inference run ``run.name``."""
        with self.measure(self.runs, run.name):
            return score(run, *args)

    def record(self) -> dict[str, Any]:
        """What ``timings.json`` holds: the machine's cores and the torch threads of each process that ran models
        (:func:`~marple_agents.threads.torch_threads`), every stage and every run scored in this invocation (a run
        resumed from its results file took no time)."""
        return {"cores": os.cpu_count(), "threads": torch_threads(), "stages": self.stages, "runs": self.runs}

    def words(self) -> str:
        """The stages in one line, and the threads of each process, for the summary."""
        stages = ", ".join(f"{k} {v['wall_s']:.0f} ({v['cpu_s']:.0f} CPU)" for k, v in self.stages.items())
        threads = torch_threads()
        return f"{stages}; {threads} torch thread{'s' if threads > 1 else ''} per process"
