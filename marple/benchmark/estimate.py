"""How long a preset takes on one GPU: projected from measured speeds and the preset's counted work.

Nothing here is hand arithmetic, and no speed is typed in. The work is counted: the distinct training states of
each agent model at the paper's data sizes (one epoch draws that many), the policy rows a trial asks for and the
CPU time its world steps take, and the trajectories to generate (``workload.json``, written by
``python bench/bench_presets.py --measure-...``); the models' FLOPs are counted by torch
(:mod:`marple_agents.flops`). The speeds are read from the newest measured-figure file for the card
(:mod:`marple.benchmark.measured`, written by ``python bench/gpu_check.py``): training samples per second with
every speed option on, one forward pass of the paper's model under bf16, the machine's cores. A projection divides
the one by the other, stage by stage:

* data: trajectories / (trajectories per CPU-second x the GPU machine's cores);
* models: sum over agent models of the samples they train on (epochs x distinct states, or optimizer steps x
  batch) x training FLOPs per sample / the measured training FLOP rate (or a chosen share of the GPU's bf16 peak,
  ``mfu``);
* inference: sum over runs of trials x (rows x forward FLOPs per row / the measured forward FLOP rate + the world's
  CPU seconds per trial); runs with no learned model (the planner, the ideal observer, the references) on the cores.

The rows and CPU seconds per trial were counted with the small preset's agent models at m = 100: a paper-size model
is assumed to visit as many distinct states. Every figure this module gives is a projection, and says so; where no
card has been measured it says that instead.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from marple.benchmark.config import BenchmarkConfig
from marple.benchmark.measured import Measured, MeasuredError, newest_measured
from marple.benchmark.presets import BenchmarkPreset
from marple_agents.config import preset as model_preset
from marple_agents.flops import forward_flops, training_flops
from marple_agents.simulation.inference import POLICY_OF_VARIANT
from marple_gym.datasets.spec import PAPER_SIZES, Sizes
from marple_gym.errors import MarpleError
from marple_gym.missions.scenarios import SCENARIOS, get_scenario
from marple_gym.validation import message_error, read_json_file

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


PROJECTION_CARD = "NVIDIA H100 80GB HBM3"
"""The card projections are for unless another is named: the one the paper-scale figures are sized for."""


def peak_bf16(device_name: str) -> float | None:
    """The bf16 peak of the GPU whose name torch reports, or None (a CPU, or a GPU not in the table)."""
    return next((peak for key, peak in PEAK_BF16 if key in device_name), None)


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
    """Hours per stage of one preset on one GPU (projected), and the measured figures they come from."""

    preset: str
    source: str  # the card and the measured-figure file
    data: float
    models: float
    inference: float
    train_mfu: float | None  # the share of the card's bf16 peak training runs at (None: no peak known)

    @property
    def total(self) -> float:
        return self.data + self.models + self.inference

    def describe(self) -> str:
        share = "" if self.train_mfu is None else f" at {100 * self.train_mfu:.0f} % of its bf16 peak"
        return (
            f"projected {self.total:.1f} h on one {self.source} (data {self.data:.1f} h, agent models "
            f"{self.models:.1f} h{share}, inference {self.inference:.1f} h)"
        )


def project(
    preset: BenchmarkPreset,
    figures: Measured | None = None,
    mfu: float | None = None,
    scenarios: tuple[str, ...] = tuple(SCENARIOS),
    variants: tuple[str, ...] = tuple(POLICY_OF_VARIANT),
    card: str = PROJECTION_CARD,
) -> Projection:
    """Project ``preset`` on one GPU from ``figures`` (default: the newest measured file for ``card``; see module
    docs); ``mfu``: train at this share of the card's bf16 peak instead of its measured rate. Raises
    :class:`~marple.benchmark.measured.MeasuredError` when nothing was measured on the card."""
    if figures is None:
        figures = newest_measured(card)
        if figures is None:
            raise MeasuredError(
                f"no measured figures for the {card} yet: run python bench/gpu_check.py on one (docs/gpu.md)"
            )
    check_paper_sizes(preset)
    work = workload()
    peak = peak_bf16(figures.card)
    paper_language, _ = model_preset("paper", "language")
    if mfu is not None and peak is None:
        raise MeasuredError(f"no bf16 peak is known for the {figures.card}: cannot train at a share of it")
    train_rate = figures.train_samples_per_second * training_flops(paper_language) if mfu is None else mfu * peak
    rows, seconds = figures.forward
    forward_rate = rows * forward_flops(paper_language) / seconds
    data = trajectories(preset.sizes, scenarios) / work["data"]["trajectories_per_cpu_second"] / figures.cores
    models = models_hours(preset, train_rate, scenarios, variants) * 3600
    inference = 0.0
    trials = preset.trials * len(scenarios)
    kinds = sorted({POLICY_OF_VARIANT[v] for v in variants})
    learned = [(v, POLICY_OF_VARIANT[v]) for v in variants] + ([("bip", "bip")] if "language" in kinds else [])
    for key, measured in learned:  # audio and all ask for the rows of vision and language (measured as those)
        cost = work["inference"][measured]["uncut" if key in preset.uncut else "cut"]
        cfg, _ = model_preset(preset.model, "language" if measured == "bip" else measured)
        per_trial = cost["rows"] * forward_flops(cfg) / forward_rate + cost["cpu_seconds"]
        inference += len(preset.splits) * trials * per_trial
    for key in ("uniform", "distance", "perfect-agent-models", "ideal"):  # no learned model: over the cores
        cost = work["inference"][key]["uncut" if key in preset.uncut else "cut"]
        inference += trials * cost["cpu_seconds"] / figures.cores
    share = None if peak is None else train_rate / peak
    return Projection(preset.name, figures.describe(), data / 3600, models / 3600, inference / 3600, share)


def check_paper_sizes(preset: BenchmarkPreset) -> None:
    if preset.sizes != PAPER_SIZES:
        raise ValueError(f"preset {preset.name!r}: training states are counted at the paper's data sizes only")


def models_hours(
    preset: BenchmarkPreset,
    train_rate: float,
    scenarios: tuple[str, ...] = tuple(SCENARIOS),
    variants: tuple[str, ...] = tuple(POLICY_OF_VARIANT),
) -> float:
    """Hours of the agent-models stage of ``preset`` at ``train_rate`` model FLOP/s (e.g. measured by
    bench/bench_train.py): every agent model's training samples x its training FLOPs per sample."""
    check_paper_sizes(preset)
    states = workload()["training_states"]
    kinds = sorted({POLICY_OF_VARIANT[v] for v in variants})
    seconds = 0.0
    for split in preset.splits:
        for scenario in scenarios:
            for role in get_scenario(scenario).roles:
                for kind in kinds:
                    cfg, _ = model_preset(preset.model, kind)
                    counted = states[split][f"{scenario}/{role}-{kind}"]
                    seconds += training_samples(preset, counted) * training_flops(cfg) / train_rate
    return seconds / 3600


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
    projection from the newest measured figures of any card and counted work (at the paper's data sizes), else that
    it is not known."""
    measured = cfg.preset.measured
    if measured is not None:
        said = f"{measured.time} measured for `{measured.command(cfg.preset.name)}` {measured.conditions}"
        ran = _measured_run(cfg, measured.options)
        if _key(cfg) == _key(ran):
            return said
        if _part_of(cfg, ran):
            return f"less than the {said}, of which this run is a part"
    other = (
        "" if measured is None else f" (the {measured.time} measured were for `{measured.command(cfg.preset.name)}`)"
    )
    if cfg.preset.sizes != PAPER_SIZES:
        return f"not measured for this run{other}; no projection for these sizes (docs/gpu.md)"
    figures = newest_measured(card=None)
    if figures is None:
        return (
            f"not measured for this run{other}; no projection: no GPU has been measured yet (python "
            "bench/gpu_check.py; docs/gpu.md)"
        )
    try:
        now = project(cfg.preset, figures, scenarios=cfg.scenarios, variants=cfg.variants)
    except (KeyError, ValueError):
        return f"not measured for this run{other}; no projection for these scenarios (docs/gpu.md)"
    return now.describe()


def _measured_run(cfg: BenchmarkConfig, options: dict[str, Any]) -> BenchmarkConfig:
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
