"""Agent models: held-out-house accuracy, training time and speed of the small preset; training throughput.

    python bench/bench_train.py                                  # laundry, agent A: vision and language (~20 min)
    python bench/bench_train.py --scenario shower --role B
    python bench/bench_train.py --minutes 4                      # a shorter time budget per model
    python bench/bench_train.py --paper-epoch --accelerator gpu  # one paper-preset epoch (needs a GPU)
    python bench/bench_train.py --throughput --model-preset paper --accelerator gpu   # samples/s, MFU, hours
    python bench/bench_train.py --throughput --model-preset gpu --steps 4,8           # the same on this CPU

``--throughput`` trains the model preset's language-conditioned policy on
random 20 x 20 states with each set of speed options (``--options``: none,
then each alone, then all; see ``TrainConfig``) for the second of the two step
counts of ``--steps``, and times the optimizer steps between the first count
and the second inside that one run (the device synchronised at both ends), so
start-up, compilation and the first steps do not count. It prints samples per second,
model FLOPs per second, the model FLOPs utilisation against the device's bf16
peak (a table of data-sheet peaks by GPU name, or ``--peak-tflops``; a CPU has
no known peak), the rate as a share of the matmul rate measured in the same
run (the peer where no peak is known), and the agent-models stage of the
``paper`` and ``gpu`` benchmark presets projected from that rate and the
presets' counted training states (``marple.benchmark.estimate``).

Steps: generate a ``train-in`` dataset (``--houses`` houses x ``--episodes``
episodes per house and agent; skipped when it exists), estimate how well any
policy of the same inputs could do, train the vision-only and the
language-conditioned policy of the ``small`` preset with the default time
budget (validation on held-out houses), and time ``AgentPolicy.action_probs`` on
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
from dataclasses import replace
from pathlib import Path

import lightning as L
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
    """States per second through ``AgentPolicy.action_probs`` in batches of ``batch``."""
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


OPTION_SETS = {
    "none": {"compile": False, "fused_optimizer": False, "data_on_device": False, "fold_accumulation": False},
    "fold": {"compile": False, "fused_optimizer": False, "data_on_device": False, "fold_accumulation": True},
    "fused": {"compile": False, "fused_optimizer": True, "data_on_device": False, "fold_accumulation": False},
    "device": {"compile": False, "fused_optimizer": False, "data_on_device": True, "fold_accumulation": False},
    "compile": {"compile": True, "fused_optimizer": False, "data_on_device": False, "fold_accumulation": False},
    "all": {"compile": True, "fused_optimizer": True, "data_on_device": True, "fold_accumulation": True},
}
"""The speed options ``--throughput`` compares: none, each alone, all (the defaults on a GPU)."""


def random_samples(n: int, seed: int = 0) -> Samples:
    """``n`` random 20 x 20 states with one agent each (throughput does not depend on what they show)."""
    from marple_gym.evidence import channel_sizes

    rng = np.random.default_rng(seed)
    sizes = channel_sizes()
    vision = np.zeros((n, 20, 20, 8), dtype=np.uint8)
    for channel in (0, 1, 3):
        vision[..., channel] = rng.integers(0, sizes[channel], size=(n, 20, 20))
    ys, xs = rng.integers(0, 20, size=n), rng.integers(0, 20, size=n)
    vision[np.arange(n), ys, xs, 6] = 1
    vision[np.arange(n), ys, xs, 7] = rng.integers(1, 5, size=n)
    houses = np.arange(n) % 10
    subgoal = np.stack([rng.integers(0, 10, n), rng.integers(0, 83, n), rng.integers(0, 25, n), rng.integers(1, 7, n)])
    return Samples(
        vision,
        rng.integers(0, 10, n),
        subgoal.T.copy(),
        np.ones(n, dtype=np.int64),
        np.array([f"h{h}" for h in houses]),
        np.arange(n) // 20,
    )


class StepTimer(L.Callback):
    """The wall-clock time at the end of optimizer steps ``first`` and ``last`` of a run (device synchronised)."""

    def __init__(self, first: int, last: int) -> None:
        self.marks = {first: None, last: None}

    def on_train_batch_end(self, trainer: L.Trainer, *args: object) -> None:
        step = trainer.global_step
        if step in self.marks and self.marks[step] is None:
            if trainer.strategy.root_device.type == "cuda":  # the steps' kernels done, not only launched
                torch.cuda.synchronize()
            self.marks[step] = time.perf_counter()

    def seconds(self) -> float:
        first, last = self.marks.values()
        return last - first


def step_counts(text: str) -> tuple[int, int]:
    """``--steps``: two optimizer step counts, ``FIRST,LAST`` with 1 <= FIRST < LAST."""
    try:
        first, last = (int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected two step counts FIRST,LAST such as 10,30, got {text!r}") from None
    if not 1 <= first < last:
        raise argparse.ArgumentTypeError(f"expected 1 <= FIRST < LAST, got {first},{last}")
    return first, last


def matmul_rate(on_gpu: bool, repeats: int = 10) -> float:
    """FLOP/s of square matrix products on the training device (8192 on a GPU, 1024 on a CPU), in its training
    precision, measured in the same run: a peer for the training rate where no peak is known (a CPU)."""
    size = 8192 if on_gpu else 1024
    dtype = torch.bfloat16 if on_gpu and torch.cuda.is_bf16_supported() else torch.float32
    device = "cuda" if on_gpu else "cpu"
    a, b = (torch.randn(size, size, dtype=dtype, device=device) for _ in range(2))
    a @ b
    if on_gpu:
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    if on_gpu:
        torch.cuda.synchronize()
    return 2 * size**3 * repeats / (time.perf_counter() - start)


def throughput(args: argparse.Namespace) -> dict:
    """Samples/s, FLOP/s, MFU and projected hours of the models stage, for each set of speed options."""
    from marple.benchmark.estimate import models_hours, peak_bf16
    from marple.benchmark.presets import PRESETS
    from marple_agents.config import micro_batches, preset
    from marple_agents.flops import training_flops

    model, train = preset(args.model_preset, "language")
    rows = train.batch_size * train.accumulate
    first, last = args.steps
    samples = random_samples(max(4_000, 2 * rows * last))  # more than the steps draw: no epoch ends
    gpu = args.accelerator in ("gpu", "cuda") or (args.accelerator == "auto" and torch.cuda.is_available())
    name = torch.cuda.get_device_name() if gpu else f"cpu ({torch.get_num_threads()} threads)"
    peak = args.peak_tflops * 1e12 if args.peak_tflops else (peak_bf16(name) if gpu else None)
    flops = training_flops(model)
    results = {
        "device": name,
        "model_preset": args.model_preset,
        "train_flops_per_sample": flops,
        "peak": peak,
        "peak_source": "--peak-tflops" if args.peak_tflops else ("bf16 data-sheet peak" if peak else None),
        "matmul_flop_per_second": matmul_rate(gpu),
        "runs": {},
    }
    for label in args.options.split(","):
        timer = StepTimer(first, last)
        train_policy(
            None,
            samples=samples,
            model="language",
            preset=args.model_preset,
            out_dir=args.out / f"tp-{label}",
            max_steps=last,
            accelerator=args.accelerator,
            devices=1,
            progress=False,
            val_every=10**9,
            callbacks=[timer],
            **OPTION_SETS[label],
        )
        per_step, _ = micro_batches(replace(train, **OPTION_SETS[label]))
        rate = (last - first) * rows / timer.seconds()
        run = {
            "samples_per_second": rate,
            "flop_per_second": rate * flops,
            "mfu": None if peak is None else rate * flops / peak,
            "of_matmul_rate": rate * flops / results["matmul_flop_per_second"],
            "rows_per_pass": per_step,
        }
        run["projected_models_hours"] = {p: models_hours(PRESETS[p], rate * flops) for p in ("paper", "gpu")}
        results["runs"][label] = run
        print(label, json.dumps(run), flush=True)
    return results


def throughput_table(results: dict) -> str:
    peak = results["peak"]
    against = (
        f"MFU against {peak / 1e12:,.0f} TFLOP/s ({results['peak_source']})"
        if peak
        else "MFU: no bf16 peak known for this device (give one with --peak-tflops)"
    )
    lines = [
        f"{results['device']}, {results['model_preset']} model (language), "
        f"{results['train_flops_per_sample'] / 1e9:.3g} GFLOP per training sample; {against}; "
        f"matmul rate measured in this run {results['matmul_flop_per_second'] / 1e12:.3g} TFLOP/s",
        "",
        "| options | samples/s | model TFLOP/s | MFU | of the matmul rate | "
        "models stage of paper / gpu preset at this rate (h, projected) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for label, run in results["runs"].items():
        mfu = "-" if run["mfu"] is None else f"{100 * run['mfu']:.1f} %"
        hours = run["projected_models_hours"]
        lines.append(
            f"| {label} | {run['samples_per_second']:.1f} | {run['flop_per_second'] / 1e12:.3g} | {mfu} | "
            f"{100 * run['of_matmul_rate']:.2g} % | {hours['paper']:,.0f} / {hours['gpu']:,.1f} |"
        )
    return "\n".join(lines)


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
    parser.add_argument("--throughput", action="store_true", help="samples/s, MFU and projected hours instead")
    parser.add_argument("--model-preset", default="paper", help="--throughput: the model preset (default: paper)")
    parser.add_argument(
        "--steps",
        type=step_counts,
        default="10,30",
        help="--throughput: two step counts FIRST,LAST; the steps between them are timed (default: 10,30)",
    )
    parser.add_argument("--peak-tflops", type=float, help="--throughput: the device's bf16 peak (default: by GPU name)")
    parser.add_argument(
        "--options", default=",".join(OPTION_SETS), help=f"--throughput: option sets, from {', '.join(OPTION_SETS)}"
    )
    parser.add_argument("--accelerator", default="auto")
    parser.add_argument("--devices", default="auto")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    quiet_lightning(verbose=False)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.throughput:
        results = throughput(args)
        (args.out / "throughput.json").write_text(json.dumps(results, indent=1))
        print(throughput_table(results))
        return
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
