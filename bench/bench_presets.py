"""The benchmark presets' work, counted, and their projected hours on one GPU (marple.benchmark.estimate).

    python bench/bench_presets.py                                     # projections from the committed workload
    python bench/bench_presets.py --measure-states DATA               # distinct training states per agent model
    python bench/bench_presets.py --measure-inference RUN [--trials 4] # policy rows and CPU seconds per trial
    python bench/bench_presets.py --measure-data                      # trajectories generated per CPU-second

``--measure-states`` reads a dataset generated at the paper's sizes (``marple
generate --scenario pillow ... --splits train-in,train-ood`` or the data stage
of ``marple benchmark --preset paper``) and counts, for every agent model the
benchmark trains, the distinct states of its training part (the benchmark's
hold-out rule and seed): one epoch draws that many. ``--measure-inference``
scores ``--trials`` trials per scenario of every kind of run with the agent
models of a finished ``marple benchmark`` folder, at m = 100, on one CPU
thread, counting the rows each trial asks of the policies and the CPU time
spent outside them (stepping worlds). Each writes its part of
``marple/benchmark/data/workload.json``.

Without options: the counted work, and the projected hours of the ``paper`` and ``gpu`` presets on one GPU
(``--card``, default the H100) from its newest measured-figure file (``python bench/gpu_check.py``), at the
measured training speed and at 45 % of the bf16 peak, and the candidates the ``gpu`` preset's model is chosen
from.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np

from marple.benchmark.estimate import WORKLOAD, project, workload

MACHINE = f"{os.cpu_count()}-core CPU machine shared with other jobs"
FIT = 1.6
"""Hours the gpu preset's projection may take: two less a fifth (smaller models reach a lower share of a GPU's
peak than the paper's, and rows per trial were counted with the small preset's models)."""


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def update(part: str, value, command: str) -> None:
    data = json.loads(WORKLOAD.read_text()) if WORKLOAD.is_file() else {}
    data[part] = value
    data.setdefault("measured", {})[part] = f"{date.today()}, {MACHINE}: {command}"
    WORKLOAD.parent.mkdir(parents=True, exist_ok=True)
    WORKLOAD.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(json.dumps(value, indent=1))


def measure_states(root: Path) -> dict:
    """Distinct training states of every agent model of the benchmark (model seed 0), by split."""
    from marple.benchmark.pipeline import BenchmarkConfig, model_jobs
    from marple.benchmark.presets import PRESETS
    from marple_agents.training.datamodule import PolicyDataModule
    from marple_gym.datasets import MarpleDataset

    data = MarpleDataset(root)
    cfg = BenchmarkConfig(PRESETS["paper"], root.parent)
    states: dict[str, dict[str, int]] = {}
    for job in model_jobs(cfg):
        samples = data.samples(job.scenario, f"train-{job.split}", role=job.role)
        holdout = "episodes" if job.split == "in" else "houses"
        module = PolicyDataModule(samples, job.kind, seed=job.seed, holdout=holdout)
        module.setup()
        states.setdefault(job.split, {})[f"{job.scenario}/{job.role}-{job.kind}"] = len(module.train)
        print(job.key, len(samples.action), "samples,", len(module.train), "distinct training states", flush=True)
    return states


class Counted:
    """Counts the rows and CPU time of every policy forward pass (one thread: process CPU time is ours). A
    decoder row counts as one: it runs the same encoder as an action row."""

    rows = 0
    seconds = 0.0

    @classmethod
    def install(cls) -> None:
        """Wrap the policy's two forward passes: actions, and (language models) the subgoal decoders."""
        from marple_agents.policy import AgentPolicy

        def counting(forward, rows):
            def counted(self, inputs):
                start = cpu_seconds()
                out = forward(self, inputs)
                cls.rows += sum(rows(item) for item in inputs)
                cls.seconds += cpu_seconds() - start
                return out

            return counted

        AgentPolicy._act = counting(AgentPolicy._act, lambda item: len(item[0]))
        AgentPolicy._decode = counting(AgentPolicy._decode, len)


def measure_inference(run: Path, trials: int) -> dict:
    """Per trial of each kind of run: policy rows asked, and CPU seconds outside the policy, cut and uncut."""
    import torch

    from marple.benchmark.pipeline import BenchmarkConfig, inference_runs, score_run
    from marple.benchmark.presets import PRESETS
    from marple_eval.protocol import dataset_episodes
    from marple_gym.datasets import MarpleDataset

    torch.set_num_threads(1)
    Counted.install()
    out: dict[str, dict] = {}
    for cut in ("cut", "uncut"):
        keys = ("uniform", "distance", "perfect-agent-models", "ideal", "bip", "vision", "language")
        small = replace(PRESETS["small"], rollouts=100, ideal_rollouts=100, trials=trials)
        small = replace(small, uncut=keys if cut == "uncut" else ())
        # audio and all ask for the rows of vision and language: measured as those
        cfg = BenchmarkConfig(small, run.parent / f"measure-{cut}", variants=("vision", "language"), workers=1)
        cfg.progress = False
        cfg.out.mkdir(parents=True, exist_ok=True)
        (cfg.out / "data").unlink(missing_ok=True)
        (cfg.out / "data").symlink_to(run / "data")
        (cfg.out / "models").unlink(missing_ok=True)
        (cfg.out / "models").symlink_to(run / "models")
        episodes = dataset_episodes(MarpleDataset(cfg.data), cfg.scenarios, trials)
        for r in inference_runs(cfg):
            Counted.rows, Counted.seconds = 0, 0.0
            start = cpu_seconds()
            cfg.results(r.name).unlink(missing_ok=True)
            score_run(cfg, r, episodes=episodes)
            total = cpu_seconds() - start
            figures = {"rows": Counted.rows / len(episodes), "cpu_seconds": (total - Counted.seconds) / len(episodes)}
            out.setdefault(r.key, {})[cut] = {k: round(v, 3) for k, v in figures.items()}
            print(r.name, cut, figures, flush=True)
    return out


def measure_data() -> dict:
    """Trajectories per CPU-second of ``marple generate`` (one process), on a laundry sample of every split."""
    import tempfile

    from marple_gym.datasets import DatasetSpec, Sizes, Unit, generate_dataset

    with tempfile.TemporaryDirectory() as tmp:
        spec = DatasetSpec([Unit.scenario("laundry")], Sizes(10, 5, 50, 500), seed=0)
        start = cpu_seconds()
        report = generate_dataset(spec, Path(tmp) / "data", workers=1, progress=False)
        seconds = cpu_seconds() - start
    return {"trajectories_per_cpu_second": round(report.episodes / seconds, 1)}


def projections(card: str) -> None:
    from marple.benchmark.estimate import PROJECTION_CARD
    from marple.benchmark.measured import newest_measured
    from marple.benchmark.presets import PRESETS
    from marple_agents.config import PRESETS as MODELS
    from marple_agents.networks import build_model, count_parameters

    states = workload()["training_states"]
    print(
        f"distinct training states per epoch: {sum(sum(s.values()) for s in states.values()):,} over "
        f"{sum(len(s) for s in states.values())} agent models "
        f"(in {np.sum(list(states['in'].values())):,}, ood {np.sum(list(states['ood'].values())):,})\n"
    )
    figures = newest_measured(card or PROJECTION_CARD)
    if figures is None:
        print(f"no measured figures for {card or PROJECTION_CARD}: run python bench/gpu_check.py on one (docs/gpu.md)")
        return
    for name in ("paper", "gpu"):
        preset = PRESETS[name]
        print(f"{name}: {project(preset, figures).describe()}")
        print(f"{name}, if training reached 45 % of the peak: {project(preset, figures, mfu=0.45).describe()}")
    print(
        f"\ncandidates for the gpu preset's model (projected at the measured training speed; the pick: the "
        f"most parameters within {FIT:g} h, two hours less a fifth for what the projection leaves out)"
    )
    print("| width | depth | heads | parameters (language) | hours |\n| --- | --- | --- | --- | --- |")
    base, found = MODELS["gpu"].model, []
    try:
        for width in (512, 640, 768, 1024):
            for depth in (6, 8):
                model = replace(base, width=width, depth=depth, heads=width // 64, head_hidden=width)
                MODELS["candidate"] = replace(MODELS["gpu"], model=model)
                hours = project(replace(PRESETS["gpu"], model="candidate"), figures).total
                params = count_parameters(build_model(replace(model, conditioning="language")))
                found.append((hours <= FIT, params, width, depth))
                print(f"| {width} | {depth} | {width // 64} | {params / 1e6:.1f} M | {hours:.2f} |")
    finally:
        del MODELS["candidate"]
    fitting = [c for c in found if c[0]]
    if fitting:
        _, params, width, depth = max(fitting)
        print(f"pick: width {width}, depth {depth} ({params / 1e6:.1f} M parameters)")
    else:
        print(f"no candidate fits {FIT:g} h on the {figures.card}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--measure-states", type=Path, metavar="DATA")
    parser.add_argument("--measure-inference", type=Path, metavar="RUN")
    parser.add_argument("--trials", type=int, default=4, help="trials per scenario for --measure-inference")
    parser.add_argument("--measure-data", action="store_true")
    parser.add_argument("--card", default=None, help="project for this card's newest measured figures (default: H100)")
    args = parser.parse_args()
    command = "python bench/bench_presets.py"
    start = time.perf_counter()
    if args.measure_states:
        update("training_states", measure_states(args.measure_states), f"{command} --measure-states")
    if args.measure_inference:
        update(
            "inference",
            measure_inference(args.measure_inference, args.trials),
            f"{command} --measure-inference (small preset's agent models, m = 100, {args.trials} trials per scenario)",
        )
    if args.measure_data:
        update("data", measure_data(), f"{command} --measure-data")
    if not (args.measure_states or args.measure_inference or args.measure_data):
        projections(args.card)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
