"""Worker processes kept across runs: each trial goes to the same worker every run, and what a worker built for a
run serves all of that run's trials there."""

from __future__ import annotations

import functools
import os

import pytest

from marple_eval import workers
from marple_eval.workers import TrialWorkers, deal


class Recorder:
    """A run's scorer: which process scored an item, and how many scorers that process had built before."""

    built = 0

    def __init__(self, run: str) -> None:
        Recorder.built += 1
        self.run, self.number = run, Recorder.built

    def __call__(self, item: int) -> tuple[str, int, int, int]:
        if item < 0:
            raise ValueError(f"no such item {item}")
        return self.run, item, os.getpid(), self.number


def test_items_are_dealt_longest_first_back_and_forth_so_the_work_is_shared():
    costs = [5, 9, 1, 7, 3, 8]
    workers = deal(costs, 2)
    assert workers == [0, 0, 1, 1, 0, 1]  # 9 -> 0, 8 -> 1, 7 -> 1, 5 -> 0, 3 -> 0, 1 -> 1: 17 and 16
    assert deal(costs, 2) == workers and deal(costs, 1) == [0] * 6 and deal([], 3) == []


def test_the_same_workers_score_every_run_each_item_where_it_went_before():
    items, costs = [(k,) for k in range(8)], list(range(8))
    with TrialWorkers(2) as pool:
        first = {r[1]: r for r in pool.score(functools.partial(Recorder, "first"), items, costs)}
        second = {r[1]: r for r in pool.score(functools.partial(Recorder, "second"), items, costs)}
        with pytest.raises(ValueError, match="no such item -1"):  # a worker's error is the run's
            list(pool.score(functools.partial(Recorder, "third"), [(-1,)], [1]))
    assert sorted(first) == sorted(second) == list(range(8))
    assert len({pid for _, _, pid, _ in first.values()}) == 2 and os.getpid() not in {r[2] for r in first.values()}
    assert all(first[k][2] == second[k][2] for k in first)  # the same process, run after run
    # One scorer per run in each worker, built at its first item: the second run's is each worker's second.
    assert {r[3] for r in first.values()} == {1} and {r[3] for r in second.values()} == {2}


def test_a_worker_keeps_to_its_share_of_threads_even_where_torch_came_with_the_main_module(monkeypatch):
    """spawn imports the parent's main module in each worker before the initializer runs; where that imported torch
    (the ``marple`` command does), setting OMP_NUM_THREADS is too late and the threads are set on torch itself."""
    torch = pytest.importorskip("torch")
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        workers._share_threads(1)
        assert torch.get_num_threads() == 1 and os.environ["OMP_NUM_THREADS"] == "1"
        monkeypatch.setenv("OMP_NUM_THREADS", "2")  # a setting of the user's is kept
        torch.set_num_threads(2)
        workers._share_threads(1)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
