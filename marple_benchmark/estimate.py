"""How long a preset takes on one GPU: projected from measured speeds and the preset's counted work.

Nothing here is hand arithmetic. The work is counted: the distinct training
states of each agent model at the paper's data sizes (one epoch draws that
many), the policy rows a trial asks for and the CPU time its world steps take,
and the trajectories to generate (``workload.json``, written by
``python bench/bench_presets.py --measure``); the models' FLOPs are counted by
torch (:mod:`marple_agents.flops`). The speeds are measured (:data:`MEASURED`:
training samples per second and forward passes on a named GPU, this machine's
generation rate). A projection divides the one by the other, stage by stage:

* data: trajectories / (trajectories per CPU-second x the GPU machine's cores);
* models: sum over agent models of the samples they train on (epochs x distinct
  states, or optimizer steps x batch) x training FLOPs per sample / the measured
  training FLOP rate (or a chosen fraction of the GPU's bf16 peak, ``mfu``);
* inference: sum over runs of trials x (rows x forward FLOPs per row / the
  measured forward FLOP rate + the world's CPU seconds per trial); runs with no
  learned model (the planner, the ideal observer, the references) on the cores.

The rows and CPU seconds per trial were measured with the small preset's agent
models at m = 100: a paper-size model is assumed to visit as many distinct
states. Every figure this module gives is a projection, and says so.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from marple_agents.config import preset as model_preset
from marple_agents.flops import forward_flops, training_flops
from marple_agents.simulation.inference import POLICY_OF_VARIANT
from marple_benchmark.presets import BenchmarkPreset
from marple_gym.datasets.generate import PAPER_SIZES, Sizes
from marple_gym.errors import MarpleError
from marple_gym.missions.scenarios import SCENARIOS, get_scenario
from marple_gym.validation import message_error, read_json_file

if TYPE_CHECKING:
    from marple_benchmark.config import BenchmarkConfig

WORKLOAD = Path(__file__).parent / "data" / "workload.json"

PEAK_BF16 = (
    ("H100 PCIe", 756e12),
    ("H100 NVL", 835e12),
    ("H100", 989e12),  # SXM (HBM3), dense
    ("H200", 989e12),
    ("GH200", 989e12),
    ("A100", 312e12),
    ("L40S", 362e12),
    ("L4", 121e12),
)
"""Dense bf16 tensor-core peaks (FLOP/s) from the vendor's data sheets, matched in order against a GPU's name."""


def peak_bf16(device_name: str) -> float | None:
    """The bf16 peak of the GPU whose name torch reports, or None (a CPU, or a GPU not in the table)."""
    return next((peak for key, peak in PEAK_BF16 if key in device_name), None)


@dataclass(frozen=True)
class Measured:
    """Speeds measured on one machine, with where they come from."""

    device: str  # the GPU's name as torch reports it
    cores: int  # the machine's CPU cores (data generation and the runs with no learned model)
    train_samples_per_second: float  # training the paper preset's language model in bf16-mixed
    forward_rows: int  # one forward pass of the paper preset's model: this many rows...
    forward_seconds: float  # ...in this many seconds (bf16 autocast)
    source: str


MEASURED = {
    "h100": Measured(
        device="NVIDIA H100 80GB HBM3",
        cores=16,
        train_samples_per_second=559.0,
        forward_rows=1100,
        forward_seconds=0.455,
        source=(
            "issue 26 (2026-11-25, this code from a built wheel): train_policy(preset='paper', model='language', "
            "accelerator='gpu') on a full-size laundry train-in split, 554-564 samples/s in bf16-mixed; one "
            "forward pass of 1,100 states 0.455 s under bf16 autocast (3.76 s in fp32)"
        ),
    ),
}
"""Measured speeds by machine. Training was measured before the speed options (compile, fused AdamW, folded
micro-batches, data on the device): their effect on a GPU is not measured yet."""


@functools.cache
def workload() -> dict[str, Any]:
    """The counted work (``workload.json``)."""
    return read_json_file(WORKLOAD, message_error(MarpleError), "workload file")


def trajectories(sizes: Sizes, scenarios: tuple[str, ...]) -> int:
    """Trajectories a dataset of these sizes holds: test pairs and both training splits, for every role."""
    per_role = sizes.test_houses * (sizes.test_per_house + sizes.train_per_house) + sizes.train_ood
    return sum(per_role * len(get_scenario(s).roles) for s in scenarios)


@dataclass(frozen=True)
class Projection:
    """Hours per stage of one preset on one machine (projected)."""

    preset: str
    device: str
    data: float
    models: float
    inference: float
    train_mfu: float  # the share of the GPU's bf16 peak training runs at in this projection

    @property
    def total(self) -> float:
        return self.data + self.models + self.inference

    def describe(self) -> str:
        return (
            f"projected {self.total:.1f} h on one {self.device} (data {self.data:.1f} h, agent models "
            f"{self.models:.1f} h at {100 * self.train_mfu:.0f} % of its bf16 peak, inference {self.inference:.1f} h)"
        )


def project(
    preset: BenchmarkPreset,
    machine: str = "h100",
    mfu: float | None = None,
    scenarios: tuple[str, ...] = tuple(SCENARIOS),
    variants: tuple[str, ...] = tuple(POLICY_OF_VARIANT),
    train_rate: float | None = None,
) -> Projection:
    """Project ``preset`` on ``machine`` (see module docs); ``mfu``: train at this share of the bf16 peak instead
    of the measured rate; ``train_rate``: at this many model FLOP/s (e.g. measured by bench/bench_train.py)."""
    if preset.sizes != PAPER_SIZES:
        raise ValueError(f"preset {preset.name!r}: training states are counted at the paper's data sizes only")
    speed, work = MEASURED[machine], workload()
    peak = peak_bf16(speed.device)
    paper_language, _ = model_preset("paper", "language")
    if train_rate is None:
        train_rate = speed.train_samples_per_second * training_flops(paper_language) if mfu is None else mfu * peak
    forward_rate = speed.forward_rows * forward_flops(paper_language) / speed.forward_seconds
    data = trajectories(preset.sizes, scenarios) / work["data"]["trajectories_per_cpu_second"] / speed.cores
    kinds = sorted({POLICY_OF_VARIANT[v] for v in variants})
    models = 0.0
    for split in preset.splits:
        for scenario in scenarios:
            for role in get_scenario(scenario).roles:
                for kind in kinds:
                    cfg, _ = model_preset(preset.model, kind)
                    states = work["training_states"][split][f"{scenario}/{role}-{kind}"]
                    models += training_samples(preset, states) * training_flops(cfg) / train_rate
    inference = 0.0
    trials = preset.trials * len(scenarios)
    learned = [(v, POLICY_OF_VARIANT[v]) for v in variants] + ([("bip", "bip")] if "language" in kinds else [])
    for key, measured in learned:  # audio and all ask for the rows of vision and language (measured as those)
        cost = work["inference"][measured]["uncut" if key in preset.uncut else "cut"]
        cfg, _ = model_preset(preset.model, "language" if measured == "bip" else measured)
        per_trial = cost["rows"] * forward_flops(cfg) / forward_rate + cost["cpu_seconds"]
        inference += len(preset.splits) * trials * per_trial
    for key in ("uniform", "distance", "perfect-agent-models", "ideal"):  # no learned model: over the cores
        cost = work["inference"][key]["uncut" if key in preset.uncut else "cut"]
        inference += trials * cost["cpu_seconds"] / speed.cores
    return Projection(preset.name, speed.device, data / 3600, models / 3600, inference / 3600, train_rate / peak)


def training_samples(preset: BenchmarkPreset, states: int) -> int:
    """Samples one agent model trains on: its epochs of ``states`` distinct states each, or its optimizer steps'
    worth of batches, whichever ends first (as ``train_policy`` stops)."""
    _, train = model_preset(preset.model, **preset.train)
    samples = train.max_epochs * states
    if train.max_steps is not None:
        samples = min(samples, train.max_steps * train.batch_size * train.accumulate)
    return samples


def expected_time(cfg: BenchmarkConfig) -> str:
    """What ``marple benchmark`` says the run ``cfg`` takes: its preset's measured time where this is the measured
    run (or an upper bound where it is a part of it: fewer scenarios or variants, nothing else changed), else a
    projection from measured speeds and counted work (at the paper's data sizes), else that it is not known."""
    measured = cfg.preset.measured
    if measured is not None:
        said = f"{measured.time} measured for `{measured.command(cfg.preset.name)}` {measured.conditions}"
        ran = _measured_run(cfg, measured.options)
        if _key(cfg) == _key(ran):
            return said
        if _part_of(cfg, ran):
            return f"less than the {said}, of which this run is a part"
    try:
        now = project(cfg.preset, scenarios=cfg.scenarios, variants=cfg.variants)
        target = project(cfg.preset, mfu=0.45, scenarios=cfg.scenarios, variants=cfg.variants)
    except (KeyError, ValueError):
        other = (
            ""
            if measured is None
            else f" (the {measured.time} measured were for `{measured.command(cfg.preset.name)}`)"
        )
        return f"not measured for this run{other}; no projection for these sizes and scenarios (docs/gpu.md)"
    return f"{now.describe()}; {target.total:.1f} h if training reaches 45 % of the peak (not measured yet)"


def _measured_run(cfg: BenchmarkConfig, options: dict[str, Any]) -> BenchmarkConfig:
    from marple_benchmark.config import BenchmarkConfig

    return BenchmarkConfig.from_options(cfg.preset.name, out=str(cfg.out), **options)


def _key(cfg: BenchmarkConfig) -> tuple:
    """What a run's time depends on besides the machine."""
    return (cfg.preset, cfg.scenarios, cfg.variants, cfg.houses, cfg.seeds)


def _part_of(cfg: BenchmarkConfig, ran: BenchmarkConfig) -> bool:
    """Whether ``cfg`` does a part of ``ran``'s work and nothing else: some of its scenarios and variants."""
    return (
        (cfg.preset, cfg.houses, cfg.seeds) == (ran.preset, ran.houses, ran.seeds)
        and set(cfg.scenarios) <= set(ran.scenarios)
        and set(cfg.variants) <= set(ran.variants)
    )
