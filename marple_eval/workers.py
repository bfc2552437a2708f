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

import functools
import itertools
import multiprocessing as mp
import os
import pickle
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from marple_eval.lockstep import run_in_lockstep


class TrialWorkers:
    """``workers`` processes (spawned: no inherited torch state or locks) that score the trials of one run after
    another; each keeps what it loaded between runs. Use as a context manager, or :meth:`close` it."""

    def __init__(self, workers: int) -> None:
        context = mp.get_context("spawn")
        threads = max(1, (os.cpu_count() or 1) // workers)  # one thread each on a 2-core machine with 2 workers
        self.answers = context.Queue()  # (run, answer) from every worker, as each trial finishes
        self.pools = [context.Pool(1, initializer=_start, initargs=(threads, self.answers)) for _ in range(workers)]
        self._runs = itertools.count()

    def __len__(self) -> int:
        return len(self.pools)

    def score(
        self,
        scorer: Callable[[], Callable[..., Any]],
        items: Sequence[tuple],
        costs: Sequence[float],
        in_flight: int = 1,
    ) -> Iterator:
        """``scorer()(*item)`` of every item, yielded as each finishes: ``scorer`` (picklable) builds the run's
        scorer in each worker; ``costs`` (one per item, e.g. the trial's length) deal the items out. Each worker
        scores ``in_flight`` of its items at a time, in threads whose model calls are batched in lockstep
        (:func:`~marple_eval.lockstep.run_in_lockstep`, a scorer each): one forward pass for the rollouts of many
        trials."""
        run = next(self._runs)
        dealt = deal(costs, len(self.pools))
        for worker, pool in enumerate(self.pools):
            mine = [item for item, w in zip(items, dealt) if w == worker]
            if mine:
                failed = functools.partial(_put_failure, self.answers, run)
                pool.apply_async(_score_all, (run, scorer, mine, in_flight), error_callback=failed)
        for _ in items:
            answer = self._next(run)
            if isinstance(answer, _Failed):
                raise answer.error
            yield answer

    def _next(self, run: int) -> Any:
        """The next answer of run ``run`` (those of an earlier run that stopped at an error are passed over)."""
        while True:
            found, answer = self.answers.get()
            if found == run:
                return answer

    def close(self) -> None:
        """Stop the workers (a trial in progress is abandoned)."""
        for pool in self.pools:
            pool.terminate()
        for pool in self.pools:
            pool.join()
        self.answers.cancel_join_thread()
        self.answers.close()

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


def _put_failure(answers, run: int, error: BaseException) -> None:
    answers.put((run, _Failed(error)))


_ANSWERS: Any = None
"""This worker's end of its owner's answer queue."""


def _start(threads: int, answers) -> None:
    """A worker's set-up: its end of the answer queue, and its threads."""
    global _ANSWERS
    _ANSWERS = answers
    _share_threads(threads)


def _share_threads(threads: int) -> None:
    """Each worker's threads for its forward passes (unless ``OMP_NUM_THREADS`` is set): more than the cores
    spread over the workers only contend, and a thread that spins waiting for a descheduled one burns CPU."""
    if "OMP_NUM_THREADS" in os.environ:
        return
    os.environ["OMP_NUM_THREADS"] = str(threads)  # read by torch when it is imported ...
    torch = sys.modules.get("torch")
    if torch is not None:  # ... or imported already: with the main module (``marple``'s), which spawn re-imports
        torch.set_num_threads(threads)


def _score_all(run: int, scorer: Callable[[], Callable[..., Any]], items: list[tuple], in_flight: int) -> None:
    """Score this worker's items of run ``run``, ``in_flight`` at a time, each answer sent as it is found."""
    try:
        for answer in run_in_lockstep(lambda: _unpacking(scorer()), items, in_flight):
            _ANSWERS.put((run, answer))
    except BaseException as error:  # the owner raises it; sent in words if it cannot travel as it is
        _ANSWERS.put((run, _Failed(_travelling(error))))


def _unpacking(score: Callable[..., Any]) -> Callable[[tuple], Any]:
    return lambda item: score(*item)


def _travelling(error: BaseException) -> BaseException:
    """``error``, or a :class:`RuntimeError` in its words where it cannot be pickled (the queue would drop it)."""
    try:
        pickle.dumps(error)
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error
