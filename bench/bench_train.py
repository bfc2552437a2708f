"""Agent models: held-out-house accuracy, training time and speed of the small preset; paper-preset throughput.

    python bench/bench_train.py                                  # laundry, agent A: vision and language (~20 min)
    python bench/bench_train.py --scenario shower --role B
    python bench/bench_train.py --minutes 4                      # a shorter time budget per model
    python bench/bench_train.py --paper-epoch --accelerator gpu  # one paper-preset epoch (needs a GPU)

Steps: generate a ``train-in`` dataset (``--houses`` houses x ``--episodes``
episodes per house and agent; skipped when it exists), estimate how well any
policy of the same inputs could do, train the vision-only and the
language-conditioned policy of the ``small`` preset with the default time
budget (validation on held-out houses), and time ``Policy.action_probs`` on
batches of 100 states. Results go to ``OUT/results.json`` and a Markdown
table is printed.

Best possible accuracy: the planner draws uniformly among shortest paths and a
few states recur at different points of a mission, so the next action is not a
function of the input. The estimate is the leave-one-out accuracy of the
majority action of each distinct input, over inputs seen at least three times,
in a dense split (``--ceiling-episodes`` per house in the first 10 houses).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import time
from pathlib import Path

import numpy as np
import torch

from marple_agents import load_policy, train_policy
from marple_agents.inputs import distinct_inputs
from marple_agents.training.train import quiet_lightning
from marple_gym.datasets import DatasetSpec, MarpleDataset, Samples, Sizes, Unit, generate_dataset


def dataset(root: Path, scenario: str, houses: int, episodes: int) -> MarpleDataset:
    spec = DatasetSpec([Unit.scenario(scenario)], Sizes(houses, 1, episodes, 1), seed=0, splits=("train-in",))
    generate_dataset(spec, root, workers=os.cpu_count(), progress=True)
    return MarpleDataset(root)


def best_possible(samples: Samples, with_subgoal: bool) -> float:
    """Leave-one-out accuracy of the majority action per distinct input (inputs seen at least 3 times)."""
    _, inverse = distinct_inputs(samples.vision, samples.subgoal if with_subgoal else None)
    counts = np.zeros((inverse.max() + 1, 10), dtype=np.int64)
    np.add.at(counts, (inverse, samples.action), 1)
    hits, total = 0, 0
    for key, action in zip(inverse, samples.action):
        row = counts[key].copy()
        if row.sum() < 3:
            continue
        row[action] -= 1
        hits += int(row.argmax() == action)
        total += 1
    return hits / max(1, total)


def train(args: argparse.Namespace, data: Path, model: str, preset: str, out: Path, **settings):
    """One model of ``args.scenario``'s agent ``args.role`` (see ``marple_agents.train_policy``)."""
    return train_policy(
        data,
        unit=args.scenario,
        role=args.role,
        model=model,
        preset=preset,
        out_dir=out,
        progress=not args.no_progress,
        **settings,
    )


def inference_speed(checkpoint: Path, samples: Samples, batch: int = 100, calls: int = 30) -> float:
    """States per second through ``Policy.action_probs`` in batches of ``batch``."""
    policy = load_policy(checkpoint)
    vision, subgoal = samples.vision[:batch], samples.subgoal[:batch]
    language = subgoal if policy.conditioning == "language" else None
    policy.action_probs(vision, language)
    start = time.perf_counter()
    for _ in range(calls):
        policy.action_probs(vision, language)
    return batch * calls / (time.perf_counter() - start)


def small_models(args: argparse.Namespace) -> dict:
    data = dataset(args.out / "data", args.scenario, args.houses, args.episodes)
    dense = dataset(args.out / "dense", args.scenario, 10, args.ceiling_episodes)
    dense_samples = dense.samples(args.scenario, "train-in", role=args.role)
    results: dict = {
        "scenario": args.scenario,
        "role": args.role,
        "houses": args.houses,
        "episodes_per_house": args.episodes,
        "threads": torch.get_num_threads(),
        "load_average_before": os.getloadavg()[0],
        "models": {},
    }
    samples = data.samples(args.scenario, "train-in", role=args.role)
    for model in ("vision", "language"):
        start = time.perf_counter()
        out = args.out / f"{args.scenario}-{args.role}-{model}"
        result = train(args, args.out / "data", model, "small", out, seed=args.seed, max_minutes=args.minutes)
        total = time.perf_counter() - start
        results["models"][model] = {
            "val_accuracy": result.val_accuracy,
            "best_possible": best_possible(dense_samples, model == "language"),
            "train_seconds": result.train_seconds,
            "total_seconds": total,
            "steps": result.steps,
            "train_samples_per_second": result.samples_per_second,
            "inference_states_per_second": inference_speed(result.checkpoint, samples),
            "val_houses": result.data["val_houses"],
            "checkpoint": str(result.checkpoint),
        }
    results["load_average_after"] = os.getloadavg()[0]
    return results


def paper_epoch(args: argparse.Namespace) -> dict:
    """One epoch of the paper preset on a full-size train-in split (the paper's 10 houses x 500 episodes)."""
    dataset(args.out / "paper-data", args.scenario, 10, 500)
    out = {}
    for model in ("vision", "language"):
        result = train(
            args,
            args.out / "paper-data",
            model,
            "paper",
            args.out / f"paper-{model}",
            max_epochs=1,
            accelerator=args.accelerator,
            devices=args.devices,
        )
        out[model] = {
            "train_seconds": result.train_seconds,
            "steps": result.steps,
            "samples_per_second": result.samples_per_second,
            "val_accuracy_after_one_epoch": result.val_accuracy,
            "device": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu",
        }
    return out


def table(results: dict) -> str:
    lines = [
        f"{results['scenario']} agent {results['role']}, {results['houses']} houses x {results['episodes_per_house']} "
        f"episodes (20% of the houses held out), small preset",
        "",
        "| model | held-out accuracy | best possible | train s | total s | steps | train samples/s | inference states/s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, m in results["models"].items():
        lines.append(
            f"| {name} | {m['val_accuracy']:.3f} | {m['best_possible']:.3f} | {m['train_seconds']:.0f} | "
            f"{m['total_seconds']:.0f} | {m['steps']} | {m['train_samples_per_second']:.0f} | "
            f"{m['inference_states_per_second']:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", default="laundry")
    parser.add_argument("--role", default="A", choices=("A", "B"))
    parser.add_argument("--houses", type=int, default=100, help="train-in houses (default: 100)")
    parser.add_argument("--episodes", type=int, default=20, help="episodes per house (default: 20)")
    parser.add_argument("--ceiling-episodes", type=int, default=200, help="episodes per house for the estimate")
    parser.add_argument("--minutes", type=float, default=None, help="time budget per model (preset default: 8)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/bench-train"))
    parser.add_argument("--paper-epoch", action="store_true", help="time one paper-preset epoch instead")
    parser.add_argument("--accelerator", default="auto")
    parser.add_argument("--devices", default="auto")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    quiet_lightning(verbose=False)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.paper_epoch:
        results = paper_epoch(args)
        (args.out / "paper_epoch.json").write_text(json.dumps(results, indent=1))
        print(json.dumps(results, indent=1))
        return
    results = small_models(args)
    (args.out / "results.json").write_text(json.dumps(results, indent=1, default=str))
    print(table(results))


if __name__ == "__main__":
    main()
