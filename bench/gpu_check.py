"""The GPU check: what a card does with this code, measured in one short run, written as one small JSON file.

    python bench/gpu_check.py                          # on a GPU machine: marple/benchmark/data/measured/<card>-<date>.json
    python bench/gpu_check.py --out $OUT               # the file into $OUT instead
    python bench/gpu_check.py --tiny --out /tmp/check  # every step on the CPU with tiny sizes (what the tests run)

Sized for at most 7 minutes of one H100 (``--budget``, seconds). The parts, in this order; each is written to the
file as soon as it is measured, so a check stopped by a time limit keeps what it finished, and a part that would
start after the budget is spent is left out (the file then lacks it, and projections say so):

1. **tests**: ``python -m pytest -m gpu`` on the test files that hold GPU-marked tests: passed, failed, skipped;
2. **data**: one scenario's in-distribution data regenerated from the seed and checked against the paper series'
   reference manifest, as a slice does first (``marple slice run``): whether slices can run on this machine;
3. **training**: ``bench/bench_train.py``'s throughput at the paper preset (samples/s, model FLOP/s, MFU against
   the card's bf16 data-sheet peak, share of an 8192-cube bf16 matmul measured in the run) with the speed options
   off, each alone and all on, the steps from ``--steps`` FIRST to LAST of one run timed;
4. **inference**: one forward pass of 1,100 states of the paper's model under bf16 autocast, and simulation
   inference with paper-size agent models (bf16, lockstep, m = 100, no cutoff: the paper preset's scoring) on
   ``--trials`` test trials of the scenario, in seconds per trial for the vision and the language variant. The
   agent models are untrained networks: their rollouts wander until their step budget ends more often than a
   trained model's, so these are upper figures for the scoring a slice does.

The file's format is :mod:`marple.benchmark.measured`'s; committed under ``marple/benchmark/data/measured/``, it is
what the presets' projections read (``python bench/bench_presets.py``). Each part also prints its figures, and the
end the projections computed from them.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import torch

from marple.benchmark.config import BenchmarkConfig
from marple.benchmark.estimate import project
from marple.benchmark.ledger import REFERENCE, series_dir
from marple.benchmark.measured import (
    MEASURED_DIR,
    MeasuredError,
    measured_path,
    read_measured,
    this_machine,
    write_measured,
)
from marple.benchmark.presets import PRESETS
from marple.benchmark.slices import SLICE_SPLITS, SliceKey, regenerate, slice_config
from marple.runner import MethodRun, run_method
from marple_agents.checkpoints import save_checkpoint
from marple_agents.config import preset as model_preset
from marple_agents.networks import build_model
from marple_agents.policy import load_policy
from marple_agents.training.train import quiet_lightning
from marple_eval.lockstep import TRIALS_IN_FLIGHT
from marple_eval.protocol import dataset_episodes
from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.datasets.generate import generate_dataset
from marple_gym.datasets.manifest import MANIFEST
from marple_gym.datasets.spec import DatasetSpec, Sizes, Unit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_train, beside this file

import bench_train  # noqa: E402

COMMAND = "python bench/gpu_check.py"
OPTION_ORDER = ("none", "all", "fold", "fused", "device", "compile")
"""Option sets in the order they are timed: off and all on first, so a short budget still gets the two ends."""
FORWARD_ROWS = 1100
"""States in the forward pass timed: the rollouts of all evidence points of one trial."""


class Check:
    """The measured record, written after each part."""

    def __init__(self, args: argparse.Namespace, device: str) -> None:
        self.args = args
        self.started = time.perf_counter()
        self.record = {**this_machine(device), "command": COMMAND + (" --tiny" if args.tiny else "")}
        folder = Path(args.out) if args.out else MEASURED_DIR
        folder.mkdir(parents=True, exist_ok=True)
        self.path = measured_path(folder, self.record["card"], self.record["date"])

    def left(self) -> float:
        return self.args.budget - (time.perf_counter() - self.started)

    def save(self, part: str | None = None, value: dict | None = None, shown: object = None) -> None:
        """Write the record, ``part`` set to ``value`` (printed, or ``shown`` instead: what is new in it)."""
        if part is not None:
            self.record[part] = value
            print(f"{part}: {json.dumps(value if shown is None else shown)}", flush=True)
        self.record["seconds"] = round(time.perf_counter() - self.started, 1)
        write_measured(self.path, self.record)


# ---- the parts ------------------------------------------------------------------------------------------------


def gpu_test_files() -> list[str]:
    """The test files that hold GPU-marked tests."""
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py") if "mark.gpu" in p.read_text())


def tests(check: Check) -> dict:
    files = gpu_test_files()
    command = [sys.executable, "-m", "pytest", "-m", "gpu", "-o", "addopts=", "--import-mode=importlib", "-q", *files]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=max(30, check.left()))
    tail = done.stdout.strip().splitlines()[-1:] or [""]
    counts = {kind: int(n) for n, kind in re.findall(r"(\d+) (passed|failed|skipped|deselected|error)", tail[0])}
    if done.returncode not in (0, 5):  # 5: nothing collected
        print(done.stdout[-4000:], done.stderr[-2000:], sep="\n", flush=True)
    return {
        "command": "python -m pytest -m gpu " + " ".join(files),
        "exit_status": done.returncode,
        **{kind: counts.get(kind, 0) for kind in ("passed", "failed", "skipped", "error")},
        "seconds": round(time.perf_counter() - start, 1),
    }


def data(check: Check, work: Path, device: str) -> dict:
    """The slice's data step on one scenario (tiny: against a reference generated here first)."""
    preset = check_preset(check.args)
    key = SliceKey(check.args.scenario, "A", "vision")
    cores = {"workers": 1} if check.args.tiny else {}  # tiny: no pool to start
    cfg = slice_config(key, preset, work / "slice", device=device, progress=False, **cores)
    reference = series_dir("paper", 0) / REFERENCE
    if check.args.tiny:
        spec = DatasetSpec([Unit.scenario(key.scenario)], preset.sizes, cfg.seed, splits=SLICE_SPLITS)
        generate_dataset(spec, work / "reference", workers=1, progress=False)
        reference = work / "reference" / MANIFEST
    start = time.perf_counter()
    found = regenerate(cfg, key.scenario, reference)
    return {
        "scenario": key.scenario,
        "shards": found["shards"],
        "trajectories": found["trajectories"],
        "matches_manifest": True,
        "seconds": round(time.perf_counter() - start, 1),
    }


def training(check: Check, work: Path) -> None:
    """bench_train's throughput, one option set at a time (so the budget is checked between them)."""
    args = check.args
    part: dict = {}
    for label in args.options.split(","):
        if check.left() <= 0:
            print(f"training: budget spent before {label!r}; left out", flush=True)
            break
        found = bench_train.throughput(
            argparse.Namespace(
                model_preset=args.model_preset,
                steps=args.steps,
                accelerator="cpu" if args.tiny else "gpu",
                peak_tflops=None,
                options=label,
                out=work / "throughput",
            )
        )
        run = {k: v for k, v in found["runs"][label].items() if k != "projected_models_hours"}  # measured only
        part = {
            "model_preset": args.model_preset,
            "flops_per_sample": found["train_flops_per_sample"],
            "bf16_peak": found["peak"],
            "peak_source": found["peak_source"],
            "matmul_flop_per_second": found["matmul_flop_per_second"],
            "timed_steps": list(args.steps),
            "runs": {**part.get("runs", {}), label: run},
        }
        check.save("training", part, {label: run})


def inference(check: Check, work: Path, device: str) -> dict:
    """A forward pass of FORWARD_ROWS states, then seconds per trial of simulation inference (see module docs)."""
    args = check.args
    preset = check_preset(args)
    cfg = BenchmarkConfig(preset, work / "slice", scenarios=(args.scenario,))
    checkpoints = {}
    for kind in ("vision", "language"):
        config, _ = model_preset(args.model_preset, kind)
        torch.manual_seed(0)
        checkpoints[kind] = save_checkpoint(work / f"untrained-{kind}.pt", build_model(config), config)
    policy = load_policy(checkpoints["language"], device)  # bf16 autocast on a GPU (fp32 on the CPU)
    samples = bench_train.random_samples(FORWARD_ROWS)
    rows = args.forward_rows
    policy.action_probs(samples.vision[:rows], samples.subgoal[:rows])  # warm-up
    start = time.perf_counter()
    for _ in range(args.forward_repeats):
        policy.action_probs(samples.vision[:rows], samples.subgoal[:rows])  # returns on the CPU: synchronised
    part = {
        "model_preset": args.model_preset,
        "precision": policy.precision,
        "forward": {"rows": rows, "seconds": (time.perf_counter() - start) / args.forward_repeats},
    }
    episodes = dataset_episodes(MarpleDataset(cfg.data), [args.scenario], args.trials)
    in_flight = TRIALS_IN_FLIGHT if device.startswith("cuda") else None
    part.update(
        trials_in_flight=in_flight,
        rollouts=args.rollouts,
        cutoff=cfg.scoring("vision").cutoff,
        scenario=args.scenario,
        agent_models=f"untrained {args.model_preset}-preset networks (rollouts end later than a trained model's)",
        variants={},
    )
    for variant in ("vision", "language"):
        if check.left() <= 0:
            print(f"inference: budget spent before {variant!r}; left out", flush=True)
            break
        agents = dict.fromkeys(("A", "B"), str(checkpoints[variant]))
        kwargs = {"variant": variant, "rollouts": args.rollouts}
        method = MethodRun("simulation", kwargs, agents, cfg.data, "in", (args.scenario,), device)
        start = time.perf_counter()
        run_method(method, episodes, cfg.scoring(variant), processes=1, progress=not args.no_progress)
        seconds = time.perf_counter() - start
        part["variants"][variant] = {
            "trials": len(episodes),
            "seconds": round(seconds, 2),
            "seconds_per_trial": seconds / len(episodes),
        }
        check.save("inference", part, {variant: part["variants"][variant]})
    return part


def check_preset(args: argparse.Namespace):
    """The benchmark preset whose data the check regenerates and scores: the paper's, or a tiny one (scored with
    the protocol's cutoff, so that untrained rollouts from early evidence points do not run on)."""
    paper = PRESETS["paper"]
    return replace(paper, name="tiny", sizes=Sizes(2, 2, 3, 1), uncut=()) if args.tiny else paper


def projections(path: Path) -> None:
    """The presets' projections from the file just written."""
    figures = read_measured(path)
    for name in ("paper", "gpu"):
        try:
            print(f"{name}: {project(PRESETS[name], figures).describe()}")
        except MeasuredError as exc:
            print(f"{name}: no projection ({exc})")


# ---- the check ------------------------------------------------------------------------------------------------

PARTS = ("tests", "data", "training", "inference")


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=None, help=f"folder for the file (default: {MEASURED_DIR.relative_to(ROOT)})")
    parser.add_argument("--tiny", action="store_true", help="on the CPU with tiny sizes (the tests' mode)")
    parser.add_argument("--parts", default=",".join(PARTS), help=f"which parts, from {', '.join(PARTS)}")
    parser.add_argument("--budget", type=float, default=420.0, help="seconds; no part starts after (default: 420)")
    parser.add_argument("--scenario", default="laundry", help="the scenario of the data and inference parts")
    parser.add_argument("--model-preset", default=None, help="model preset (default: paper; tiny: small)")
    parser.add_argument("--steps", type=bench_train.step_counts, default=None, help="timed steps (default: 10,30)")
    parser.add_argument("--options", default=",".join(OPTION_ORDER), help="training option sets, in order")
    parser.add_argument("--trials", type=int, default=None, help="inference trials (default: 16; tiny: 2)")
    parser.add_argument("--rollouts", type=int, default=None, help="rollouts per agent and point (default: 100)")
    parser.add_argument("--work", default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    tiny = args.tiny
    args.model_preset = args.model_preset or ("small" if tiny else "paper")
    args.steps = args.steps or ((1, 2) if tiny else (10, 30))
    args.trials = args.trials or (1 if tiny else 16)
    args.rollouts = args.rollouts or (2 if tiny else 100)
    args.forward_rows = 16 if tiny else FORWARD_ROWS
    args.forward_repeats = 1 if tiny else 5
    parts = [p for p in args.parts.split(",") if p]
    if set(parts) - set(PARTS):
        parser.error(f"--parts: choose from {', '.join(PARTS)}")
    if "inference" in parts and "data" not in parts:
        parser.error("--parts: inference scores the trials the data part regenerates; name data too")
    if not tiny and not torch.cuda.is_available():
        parser.error("no CUDA device: this check measures a GPU (--tiny runs its steps on the CPU)")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    quiet_lightning(verbose=False)
    device = "cpu" if tiny else "cuda:0"
    check = Check(args, device)
    print(f"GPU check on {check.record['card']} -> {check.path}", flush=True)
    check.save()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(args.work or scratch)
        for part in parts:
            if check.left() <= 0:
                print(f"{part}: budget spent; left out", flush=True)
                continue
            if part == "tests":
                check.save("tests", tests(check))
            elif part == "data":
                check.save("data", data(check, work, device))
            elif part == "training":
                training(check, work)
            else:
                inference(check, work, device)
    check.save()
    print(f"written: {check.path} ({check.record['seconds']:.0f} s)")
    if not tiny:
        projections(check.path)
    return check.path


if __name__ == "__main__":
    main()
