"""The sizes of a benchmark run: data, agent-model training budgets, trials and rollouts.

Every budget is work (optimizer steps, epochs, trials, rollouts), never time,
so a preset with a seed gives the same models and figures on a busy machine as
on a quiet one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from marple_gym.datasets.spec import PAPER_SIZES, Sizes


@dataclass(frozen=True)
class MeasuredTime:
    """How long one run of a preset took: ``marple benchmark --preset NAME`` with ``options`` (the keyword arguments
    of ``BenchmarkConfig.from_options``; none: the preset's defaults), on the machine ``conditions`` describes. It
    describes that run only (:func:`marple.benchmark.estimate.expected_time` says when another run may quote it)."""

    time: str
    conditions: str
    options: dict[str, Any] = field(default_factory=dict)

    def command(self, preset: str) -> str:
        """The measured run's command line."""
        flags = [
            f"--{key.replace('_', '-')}" + ("" if value is True else f" {value}") for key, value in self.options.items()
        ]
        return " ".join(["marple benchmark", f"--preset {preset}", *flags])


@dataclass(frozen=True)
class BenchmarkPreset:
    """Sizes of one benchmark run."""

    name: str
    sizes: Sizes
    trials: int  # test trials per scenario, spread over the test houses (the paper: 10, 50 in all)
    model: str  # the policy preset: "small" or "paper"
    rollouts: int  # Monte Carlo rollouts per agent and evidence point
    splits: tuple[str, ...]  # training splits of the agent models: "in", "ood"
    train: dict[str, Any] = field(default_factory=dict)  # extra train_policy arguments (the budget)
    uncut: tuple[str, ...] = ()  # runs scored without the cutoff too (reference models, variants)
    # The ideal observer's planner rollouts per mission and evidence point: enough that its intervals are
    # dominated by the trials, not the rollouts (docs/evaluation.md).
    ideal_rollouts: int = 100
    # K of the simulation row whose agent models are the vision-only policies improved by K steps of tree search
    # (our extension, docs/agents.md); 0: no such row.
    mcts: int = 0
    measured: MeasuredTime | None = None  # None: projected from measured speeds (marple.benchmark.estimate)
    gpu: bool = False  # sized for GPUs: started where its jobs would run on the CPU, the command asks first


EVERY_RUN = (
    "uniform",
    "distance",
    "perfect-agent-models",
    "ideal",
    "bip",
    "mcts",
    "vision",
    "audio",
    "language",
    "all",
)
"""What ``uncut`` may name: the reference rows, the planner row, the ideal observer, ``bip``, the MCTS row and the
variants."""

PRESETS: dict[str, BenchmarkPreset] = {
    "small": BenchmarkPreset(
        "small",
        # 10 test houses x 3 pairs: 30 trials per scenario, 150 in all (three times the paper's 50)
        Sizes(test_houses=10, test_per_house=3, train_per_house=60, train_ood=300),
        trials=30,
        model="small",
        rollouts=20,
        splits=("in",),
        train={"max_steps": 500},  # per model; two models at a time on 2 cores (one thread each)
        # Sized for a first run on 2 shared cores (the goal: 10 minutes, install included). The reference rows and
        # the ceiling are also scored without the cutoff, so the summary shows them both ways; the learned rows (the
        # variants, bip) with the cutoff only, which spares the rollouts from early evidence points (to T + margin)
        # and costs about 60 % as much (--uncut adds them). No MCTS row (our extension, about 330 CPU s): --mcts 16
        # adds it.
        uncut=("uniform", "distance", "perfect-agent-models", "ideal"),
        measured=MeasuredTime(
            "about 640 CPU seconds",
            "from a fresh clone on 2 cores of an Intel Xeon beside other jobs (619 to 671 CPU seconds in three runs: 11 "
            "min 15 s of wall clock at load 2 to 9, 20 to 28 min at load 7 to 19; MiniGrid DoorKey-16x16 4,400 to "
            "6,900 steps a CPU second, `python bench/reference_rate.py`), the install included (about 70 CPU seconds)",
        ),
    ),
    "quick": BenchmarkPreset(
        "quick",
        # 10 test houses x 1 group: 10 trials per scenario (the paper's number); 20 training episodes per house
        Sizes(test_houses=10, test_per_house=1, train_per_house=20, train_ood=20),
        trials=10,
        model="small",
        rollouts=10,
        splits=("in",),
        train={"max_steps": 250},
        uncut=("uniform", "distance"),
        measured=MeasuredTime(
            "about 40 minutes",
            "with --workers 2 on 2 CPU cores shared with other jobs",
            {"suspects": 3, "shared": True},
        ),
    ),
    "paper": BenchmarkPreset(
        "paper",
        PAPER_SIZES,
        trials=10,  # 50 trials in all, as the paper (supplement D.2: 75 hours per variant at 1.5 h a trial)
        model="paper",
        rollouts=100,
        splits=("in", "ood"),
        uncut=EVERY_RUN,
        gpu=True,
    ),
    "gpu": BenchmarkPreset(
        "gpu",
        PAPER_SIZES,  # the paper's data: 10 x 50 test pairs, 500 train-in episodes per house, 5,000 train-ood
        trials=10,  # the paper's 50 in all
        model="gpu",  # the largest ViT whose projected run fits 2 hours on one H100 (docs/gpu.md)
        rollouts=100,
        splits=("in", "ood"),
        train={"max_steps": 4000},
        uncut=EVERY_RUN,
        gpu=True,
    ),
}
