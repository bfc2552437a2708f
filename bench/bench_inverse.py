"""Inverse-planning speed: wall time per trial of the ideal observer on the five scenarios, and the small evaluation.

    python bench/bench_inverse.py                       # 30 trials per scenario (150 in all), 2 workers
    python bench/bench_inverse.py --trials 10 --rollouts 100
    python bench/bench_inverse.py --data runs/benchmark-small/data \
        --bip-models 'runs/benchmark-small/models/seed-0/{scenario}/in/{role}-language/policy.pt'

Steps: generate the five scenarios' test split (10 houses x 3 pairs) and a
train-in split in the same houses (the agents' mission priors come from it;
skipped when present), or use ``--data`` (a benchmark's data, so that its
in-distribution models are rolled out in the houses they learnt in); time
the ideal observer trial by trial in one process
on ``--sample-trials`` trials per scenario; then time the whole evaluation
(``--trials`` per scenario, every evidence point, ``--workers`` processes)
and print its accuracy per evidence point. With ``--bip-models`` (a
language-conditioned checkpoint template), time ``bip`` per trial as well.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

import numpy as np

from marple.runner import method_factory
from marple_agents.device import resolve_device
from marple_eval import ProtocolSettings, dataset_episodes, evaluate
from marple_eval.inverse import TrainingPriors
from marple_eval.metrics import evidence_needed
from marple_eval.protocol import Identities, score_trial
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset
from marple_gym.missions.scenarios import SCENARIOS

NAMES = Identities("bench")


def prepare(args: argparse.Namespace) -> MarpleDataset:
    if args.data is not None:
        data = MarpleDataset(args.data)
        data.check_complete(False)
        return data
    root = args.out / "data"
    units = [Unit.scenario(s) for s in SCENARIOS]
    spec = DatasetSpec(units, Sizes(10, 3, args.train_per_house, 1), seed=0, splits=("test", "train-in"))
    generate_dataset(spec, root, workers=args.workers, progress=not args.no_progress)
    return MarpleDataset(root)


def cpu_seconds() -> float:
    """CPU time of this process and its finished children: what the work costs on a machine shared with others."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def per_trial(data: MarpleDataset, factory, resources, args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """Mean wall and CPU seconds per trial (11 evidence points) per scenario, in this process."""
    model = factory()
    out = {}
    for scenario in SCENARIOS:
        episodes = dataset_episodes(data, [scenario], args.sample_trials)
        start, cpu = time.perf_counter(), cpu_seconds()
        model.setup({NAMES(scenario, role): resources(scenario, role) for role in "AB"})
        for episode in episodes:
            score_trial(model, episode, ProtocolSettings(seed=0), NAMES)
        n = len(episodes)
        out[scenario] = {"wall": (time.perf_counter() - start) / n, "cpu": (cpu_seconds() - cpu) / n}
    return out


def full_evaluation(data: MarpleDataset, args: argparse.Namespace) -> dict:
    episodes = dataset_episodes(data, list(SCENARIOS), args.trials)
    start, cpu = time.perf_counter(), cpu_seconds()
    run = evaluate(
        method_factory("ideal", rollouts=args.rollouts),
        episodes,
        ProtocolSettings(seed=0),
        resources=TrainingPriors(str(data.root)),
        workers=args.workers,
        progress=not args.no_progress,
    )
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    accuracy = run.matrix().mean(axis=0)
    return {
        "trials": len(run.trials),
        "workers": args.workers,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "load_average": os.getloadavg()[0],
        "seconds_per_trial": seconds / len(run.trials),
        "accuracy_per_tau": np.round(accuracy, 3).tolist(),
        "evidence_needed_for_0.8": evidence_needed(accuracy),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=30, help="trials per scenario (default: 30, 150 in all)")
    parser.add_argument("--rollouts", type=int, default=100, help="ideal: planner rollouts per mission (default: 100)")
    parser.add_argument("--sample-trials", type=int, default=5, help="trials per scenario timed one by one")
    parser.add_argument("--train-per-house", type=int, default=20, help="train-in episodes per house (default: 20)")
    parser.add_argument(
        "--data", type=Path, default=None, help="an existing dataset with test and train-in splits (default: generate)"
    )
    parser.add_argument("--bip-models", default=None, help="language-conditioned checkpoints, {scenario} and {role}")
    parser.add_argument("--bip-rollouts", type=int, default=20, help="bip: policy rollouts per mission (default: 20)")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1), help="processes (default: 2)")
    parser.add_argument("--out", type=Path, default=Path("runs/bench-inverse"))
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args()

    data = prepare(args)
    priors = TrainingPriors(str(data.root))
    results = {"rollouts": args.rollouts, "cores": os.cpu_count()}
    results["ideal_seconds_per_trial"] = per_trial(data, method_factory("ideal", rollouts=args.rollouts), priors, args)
    if args.bip_models:
        from marple_agents.bip import BipResources

        bip = method_factory("bip", rollouts=args.bip_rollouts, device=resolve_device("auto"))
        results["bip_seconds_per_trial"] = per_trial(data, bip, BipResources(args.bip_models, str(data.root)), args)
    results["ideal_evaluation"] = full = full_evaluation(data, args)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(results, indent=1))
    for key in ("ideal_seconds_per_trial", "bip_seconds_per_trial"):
        if key in results:
            times = ", ".join(f"{s} {t['wall']:.2f} ({t['cpu']:.2f} CPU)" for s, t in results[key].items())
            print(f"{key.split('_')[0]}: wall (CPU) seconds per trial, one process: {times}")
    print(
        f"ideal, full evaluation: {full['trials']} trials x 11 evidence points in {full['seconds']:.0f} s on "
        f"{args.workers} workers ({full['seconds_per_trial']:.2f} s per trial), {full['cpu_seconds']:.0f} CPU s, "
        f"m = {args.rollouts}, load average {full['load_average']:.1f} on {os.cpu_count()} cores"
    )
    print(f"accuracy per tau: {full['accuracy_per_tau']}; evidence for 0.8: {full['evidence_needed_for_0.8']}")


if __name__ == "__main__":
    main()
