"""Worker processes that score trials, kept for as many runs as their owner scores with them.

Starting a worker costs seconds (the imports, torch among them for a learned
method), and what it loads serves every later run that uses the same agent
models: the policies, and the answers their caches keep
(:func:`marple_agents.cache.policy_cache`), so that the audio variant finds the
vision variant's rollouts already answered, ``all`` the language variant's. A
benchmark keeps one :class:`TrialWorkers` for its whole inference stage;
:func:`~marple_eval.protocol.evaluate` starts one for its run when given none.

Each trial goes to a worker fixed by where it stands among the run's trials
(longest first, dealt back and forth over the workers), not to whichever
worker is free: the same trial goes to the same worker in every run, where the
states its rollouts visit are already answered, and what each worker scores
and keeps is the same whatever the timing. A worker takes its trials in the
order given (the benchmark's: scenario by scenario, so a model is set up for
a scenario once).
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import queue
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any


class TrialWorkers:
    """``workers`` processes (spawned: no inherited torch state or locks) that score the trials of one run after
    another; each keeps what it loaded between runs. Use as a context manager, or :meth:`close` it."""

    def __init__(self, workers: int) -> None:
        context = mp.get_context("spawn")
        threads = max(1, (os.cpu_count() or 1) // workers)  # one thread each on a 2-core machine with 2 workers
        self.pools = [context.Pool(1, initializer=_start, initargs=(threads,)) for _ in range(workers)]
        self._runs = itertools.count()

    def __len__(self) -> int:
        return len(self.pools)

    def score(
        self, scorer: Callable[[], Callable[..., Any]], items: Sequence[tuple], costs: Sequence[float]
    ) -> Iterator:
        """``scorer()(*item)`` of every item, yielded as each finishes: ``scorer`` (picklable) builds the run's
        scorer once in each worker; ``costs`` (one per item, e.g. the trial's length) deal the items out."""
        run = next(self._runs)
        done: queue.SimpleQueue = queue.SimpleQueue()
        for item, worker in zip(items, deal(costs, len(self.pools))):
            self.pools[worker].apply_async(
                _score, (run, scorer, item), callback=done.put, error_callback=lambda error: done.put(_Failed(error))
            )
        for _ in items:
            answer = done.get()
            if isinstance(answer, _Failed):
                raise answer.error
            yield answer

    def close(self) -> None:
        """Stop the workers (a trial in progress is abandoned)."""
        for pool in self.pools:
            pool.terminate()
        for pool in self.pools:
            pool.join()

    def __enter__(self) -> TrialWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def deal(costs: Sequence[float], workers: int) -> list[int]:
    """The worker of each item: by cost, highest first (ties in the order given), dealt 0, 1, ..., n-1, n-1, ...,
    0, 0, 1, ... so that each worker gets about as much of the work."""
    order = sorted(range(len(costs)), key=lambda k: -costs[k])
    turns = [*range(workers), *reversed(range(workers))]
    worker = [0] * len(costs)
    for position, k in enumerate(order):
        worker[k] = turns[position % len(turns)]
    return worker


class _Failed:
    """What a worker raised, sent back in place of an answer."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


def _start(threads: int) -> None:
    """Each worker's threads for its forward passes (unless ``OMP_NUM_THREADS`` is set): more than the cores
    spread over the workers only contend, and a thread that spins waiting for a descheduled one burns CPU."""
    if "OMP_NUM_THREADS" in os.environ:
        return
    os.environ["OMP_NUM_THREADS"] = str(threads)  # read by torch when it is imported ...
    torch = sys.modules.get("torch")
    if torch is not None:  # ... or imported already: with the main module (``marple``'s), which spawn re-imports
        torch.set_num_threads(threads)


_RUN: tuple[int, Callable[..., Any]] | None = None
"""This worker's current run and its scorer."""


def _score(run: int, scorer: Callable[[], Callable[..., Any]], item: tuple) -> Any:
    global _RUN
    if _RUN is None or _RUN[0] != run:
        _RUN = (run, scorer())
    return _RUN[1](*item)
