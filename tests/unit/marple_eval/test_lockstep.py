"""The lockstep executor: trials side by side in one process, their policy calls batched, answers unchanged."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from marple_eval.lockstep import Lockstep, batched, run_in_lockstep


def test_a_round_batches_every_members_next_call_in_member_order():
    batches = []

    def double(items):
        batches.append(list(items))
        return [2 * x for x in items]

    def work():
        return lambda item: [batched("double", double, item * 10 + k) for k in range(item % 3 + 1)]

    results = list(run_in_lockstep(work, [0, 1, 2, 3, 4], threads=3, cohorts=1))
    assert sorted(results) == sorted([[2 * (i * 10 + k) for k in range(i % 3 + 1)] for i in range(5)])
    # Thread i scores items i, i + 3: thread 0 calls 0 then 30; thread 1: 10, 11, 40, 41; thread 2: 20, 21, 22.
    # Round r holds each working thread's r-th call, in thread order.
    assert batches == [[0, 10, 20], [30, 11, 21], [40, 22], [41]]


def test_calls_of_different_keys_run_apart_and_errors_reach_every_caller_of_the_batch():
    lockstep = Lockstep([0, 1, 2])
    seen, out = [], {}

    def echo(items):
        seen.append(tuple(items))
        return items

    def fail(items):
        raise RuntimeError("forward pass failed")

    def member(m, key, run):
        try:
            out[m] = lockstep.call(m, key, run, m)
        except RuntimeError as exc:
            out[m] = str(exc)
        lockstep.leave(m)

    threads = [threading.Thread(target=member, args=args) for args in ((0, "a", echo), (1, "b", fail), (2, "a", echo))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert out == {0: 0, 1: "forward pass failed", 2: 2} and seen == [(0, 2)]


def test_a_failing_worker_stops_the_run_with_its_error():
    def work():
        def score(item):
            if item == 3:
                raise ValueError("trial 3 is broken")
            return batched("id", lambda items: items, item)

        return score

    with pytest.raises(ValueError, match="trial 3 is broken"):
        list(run_in_lockstep(work, list(range(6)), threads=2))


def test_outside_the_executor_a_batched_call_is_a_plain_call():
    assert batched("k", lambda items: [x + 1 for x in items], 41) == 42


# ---- the executor with real policies, on the CPU -------------------------------------------------------------

torch = pytest.importorskip("torch")

from light_room import TOGGLE_ON, evidence_for, light_world  # noqa: E402
from tiny_models import sharp_policy  # noqa: E402

from marple_agents.simulation import PolicyAgent, query_probability  # noqa: E402


def test_rollouts_batched_across_threads_reach_the_query_as_often_as_alone():
    """Answers strictly between 0 and 1, from a policy whose every row goes through one shared forward pass."""
    policy = sharp_policy("vision", "fp32", seed=2, width=32, depth=1, glimpse=2)
    world = light_world()
    points = [(seed, steps) for seed in range(3) for steps in (3, 6)]

    def answer(agent, point):
        seed, steps = point
        rng = np.random.default_rng(seed)
        return query_probability(world, agent, evidence_for(world), TOGGLE_ON, steps, 300, rng)

    alone = [answer(PolicyAgent(policy), point) for point in points]

    def work():
        agent = PolicyAgent(policy)  # one per thread: an agent model holds its rollouts' state
        return lambda point: (point, answer(agent, point))

    together = dict(run_in_lockstep(work, points, threads=3))
    assert [together[p] for p in points] == alone
    assert len(set(alone)) > 3 and min(alone) > 0 and max(alone) < 1
