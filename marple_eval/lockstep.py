"""Many trials in one process, their model calls batched in lockstep: the evaluation executor for accelerators.

On a GPU, one process scores K trials at a time in K threads that share one
copy of each model. The world steps on the CPU in the threads; every call a
thread makes through :func:`batched` (a policy's forward pass) waits until each
other thread of its cohort has made its next call too, and then one thread runs
them all, one call per function (all the rollouts of many trials and evidence
points in one forward pass), and hands the answers back. Threads form two
cohorts, so one cohort steps its worlds while the other's batch is on the
device.

Which calls share a batch depends on the trials alone, never on timing: thread
i scores trials i, i + K, i + 2K, ...; round r of a cohort holds the r-th call
of each of its threads still working, in thread order. So a run is reproducible
on a device whose numbers depend on the batch's size (a GPU; the results record
K), and on the CPU, where a row's answer does not depend on its batch, its
answers equal those of the one-trial-at-a-time path (tested).

Outside this executor :func:`batched` simply calls the function.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

TRIALS_IN_FLIGHT = 16
"""Trials scored at a time by a model on a GPU, unless told otherwise: enough rollouts per forward pass to fill
one. The batches' composition, and so the last bits of a GPU's answers, depend on it: results record it."""
CPU_TRIALS_IN_FLIGHT = 32
"""Trials each process scores at a time on the CPU for a method that rolls out learned agent models. Its forward
passes are small (a dozen new states each, the policy caches answering the rest), so their fixed cost dominates;
sharing them across trials, with the encoder's cheaper readout, brought the small benchmark's learned methods to
about 0.7 of their CPU seconds (against the planner's runs in the same benchmark), with the same answers (a row's
answer does not depend on its batch on the CPU)."""
COHORTS = 2
"""Groups of threads that batch separately, so that stepping worlds and running batches overlap."""

_seat = threading.local()


class Lockstep:
    """Batches the calls of a fixed set of members (threads): a round runs when every member still working has
    made its next call (see module docs)."""

    def __init__(self, members: Sequence[int]) -> None:
        self.live = set(members)
        self.pending: dict[int, tuple[Hashable, Callable[[list], list], Any]] = {}
        self.answers: dict[int, tuple[bool, Any]] = {}
        self.cond = threading.Condition()

    def call(self, member: int, key: Hashable, run: Callable[[list[T]], Sequence[R]], item: T) -> R:
        """``run([item])[0]``, computed in one ``run`` with the other members' calls of the same ``key``."""
        with self.cond:
            self.pending[member] = (key, run, item)
            self._run_if_complete()
            while member not in self.answers:
                self.cond.wait()
            ok, answer = self.answers.pop(member)
        if not ok:
            raise answer
        return answer

    def leave(self, member: int) -> None:
        """``member`` makes no more calls: rounds stop waiting for it."""
        with self.cond:
            self.live.discard(member)
            self._run_if_complete()

    def _run_if_complete(self) -> None:
        if not self.pending or len(self.pending) < len(self.live):
            return
        groups: dict[Hashable, tuple[Callable, list[tuple[int, Any]]]] = {}
        for member in sorted(self.pending):
            key, run, item = self.pending[member]
            groups.setdefault(key, (run, []))[1].append((member, item))
        self.pending = {}
        for run, calls in groups.values():
            try:
                answers = list(run([item for _, item in calls]))
                if len(answers) != len(calls):
                    raise RuntimeError(f"a batched call returned {len(answers)} answers for {len(calls)} inputs")
            except Exception as exc:  # every caller of the batch sees the error
                self.answers.update((member, (False, exc)) for member, _ in calls)
            else:
                self.answers.update((member, (True, a)) for (member, _), a in zip(calls, answers))
        self.cond.notify_all()


def batched(key: Hashable, run: Callable[[list[T]], Sequence[R]], item: T) -> R:
    """``run([item])[0]``; inside :func:`run_in_lockstep`, batched with the other threads' calls of ``key``.

    ``run`` takes a list of inputs and returns one answer per input; calls with
    one ``key`` must be interchangeable (the same function of the same model).
    """
    seat = getattr(_seat, "value", None)
    if seat is None:
        return run([item])[0]
    lockstep, member = seat
    return lockstep.call(member, key, run, item)


_DONE = object()


def run_in_lockstep(
    work: Callable[[], Callable[[T], R]], items: Sequence[T], threads: int, cohorts: int = COHORTS
) -> Iterator[R]:
    """Apply a worker to every item, ``threads`` at a time in threads whose :func:`batched` calls run in lockstep;
    yield the results as they come. ``work()`` builds one worker per thread (e.g. a scorer holding its own
    model, whose policies the threads share); thread i takes items i, i + threads, ..."""
    threads = max(1, min(threads, len(items)))
    members = range(threads)
    steps = [Lockstep([m for m in members if m % cohorts == c]) for c in range(min(cohorts, threads))]
    out: queue.Queue = queue.Queue()
    stop = threading.Event()

    def thread(member: int) -> None:
        lockstep = steps[member % len(steps)]
        _seat.value = (lockstep, member)
        try:
            worker = work()
            for item in items[member::threads]:
                if stop.is_set():
                    break
                out.put((True, worker(item)))
        except BaseException as exc:
            out.put((False, exc))
        finally:
            lockstep.leave(member)
            _seat.value = None
            out.put((True, _DONE))

    pool = [threading.Thread(target=thread, args=(m,), daemon=True, name=f"lockstep-{m}") for m in members]
    for t in pool:
        t.start()
    running = threads
    try:
        while running:
            ok, value = out.get()
            if not ok:
                raise value
            if value is _DONE:
                running -= 1
            else:
                yield value
    finally:
        stop.set()  # on an error or an interrupt, the threads finish their trial and stop
