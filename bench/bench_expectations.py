"""Expectation trials: how fast trials are made, and how fast the exact observer rates one, per type.

    python bench/bench_expectations.py                 # 40 test trials of each type
    python bench/bench_expectations.py --per-type 100 --seed 3

Everything runs in this one process on one core. Figures are CPU seconds
(``time.process_time``), so a machine busy with other work does not inflate
them; wall seconds are printed beside. The targets: at least 50 trials a
second per core, and the exact observer under one second per trial on one
core; each figure is printed with its ratio to its target.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from marple_eval.expectations import ExpectationObserver, accuracy_table, rate_trial
from marple_gym.expectations import all_types, make_trial, trial_keys
from marple_gym.expectations.scenarios import scenario_of
from marple_gym.expectations.trial import _replayed
from marple_gym.generation.stage import _build

TRIALS_PER_SECOND = 50.0
OBSERVER_SECONDS = 1.0


def forget() -> None:
    """Empty the caches of built stages and replayed episodes."""
    _replayed.cache_clear()
    _build.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-type", type=int, default=40, help="test trials of each type (default 40)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.per_type < 1:
        parser.error("--per-type must be at least 1")

    make_trial(trial_keys("test", 1)[0], seed=args.seed + 1)  # imports and first-use caches, outside the timing
    print(f"{args.per_type} test trials of each of {len(all_types())} types, seed {args.seed}, one process\n")
    print("| type | trials/CPU-s | x target | observer CPU-s/trial (mean, max) | x target (max) | accuracy |")
    print("| --- | --- | --- | --- | --- | --- |")
    observer = ExpectationObserver()
    total_make = total_rate = 0.0
    n = 0
    wall = time.perf_counter()
    for kind in all_types():
        keys = trial_keys("test", args.per_type, [kind])
        start = time.process_time()
        trials = [make_trial(k, args.seed) for k in keys]
        made = time.process_time() - start
        times, ratings = [], []
        forget()  # the observer replays every episode from its stage, as it would in a fresh process
        for trial in trials:
            start = time.process_time()
            ratings.append(rate_trial(observer, trial, args.seed))
            times.append(time.process_time() - start)
        rate = len(trials) / made
        accuracy = accuracy_table(ratings)[kind].accuracy
        print(
            f"| {kind} ({scenario_of(kind).title}) | {rate:.0f} | {rate / TRIALS_PER_SECOND:.1f} | "
            f"{np.mean(times):.3f}, {np.max(times):.3f} | {OBSERVER_SECONDS / np.max(times):.1f} | {accuracy:.2f} |"
        )
        total_make += made
        total_rate += sum(times)
        n += len(trials)
    print(
        f"\nall types: {n / total_make:.0f} trials per CPU second ({n / total_make / TRIALS_PER_SECOND:.1f} x the "
        f"target of {TRIALS_PER_SECOND:.0f}); the exact observer {total_rate / n:.3f} CPU s per trial "
        f"({OBSERVER_SECONDS / (total_rate / n):.0f} x under the {OBSERVER_SECONDS:.0f} s target); "
        f"{time.perf_counter() - wall:.1f} s wall in all"
    )


if __name__ == "__main__":
    main()
