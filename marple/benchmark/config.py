"""One benchmark run's configuration: :class:`BenchmarkConfig` (a preset, where it writes, what it covers) and the
agent models' budget in words; :meth:`BenchmarkConfig.from_options` builds it from ``marple benchmark``'s options.

The stages (:mod:`marple.benchmark.pipeline`) and the report (:mod:`marple.benchmark.summary`) both read it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from marple.benchmark.presets import EVERY_RUN, PRESETS, BenchmarkPreset
from marple_agents.simulation.inference import VARIANTS
from marple_eval.settings import DEFAULT_PROTOCOL, PROTOCOLS, ProtocolSettings
from marple_gym.datasets.units import suspect_units
from marple_gym.missions.scenarios import SCENARIOS, get_scenario
from marple_gym.missions.suspects import DEFAULT_SUSPECTS


@dataclass
class BenchmarkConfig:
    """One benchmark run: a preset, where it writes, and what it covers."""

    preset: BenchmarkPreset
    out: Path
    scenarios: tuple[str, ...] = tuple(SCENARIOS)
    variants: tuple[str, ...] = tuple(VARIANTS)
    houses: str = "random"  # the scenarios' test and train-in houses: random, or the original benchmark's
    seed: int = 0  # data, inference and the first model seed
    seeds: int = 1  # agent models trained with seeds seed, seed + 1, ...
    protocol: ProtocolSettings = ProtocolSettings()  # the headline view; runs are scored without a cutoff
    thresholds: tuple[float, ...] = (0.8, 0.6)
    train_minutes: float | None = None  # an explicit wall-clock budget per model (not reproducible)
    workers: int = max(1, os.cpu_count() or 1)
    accelerator: str = "auto"  # training: "cpu" trains on the CPU whatever ``device`` says
    devices: int | str = "auto"  # training: N > 1 trains each model on N GPUs with DDP, one model at a time
    device: str = "auto"  # where jobs run: auto, cpu, cuda, cuda:N (one job per GPU)
    precision: str = "auto"  # of the learned models' forward passes at inference: auto, fp32, bf16
    executor: str = "local"  # "local" (this machine) or "ray" (a Ray cluster)
    progress: bool = True
    verbose: bool = False

    @classmethod
    def from_options(
        cls,
        preset: str = "small",
        *,
        out: str | None = None,
        scenarios: list[str] | tuple[str, ...] = (),
        suspects: int | None = None,
        shared: bool = False,
        houses: str = "random",
        variants: str = ",".join(VARIANTS),
        splits: str | None = None,
        trials: int | None = None,
        rollouts: int | None = None,
        mcts: int | None = None,
        train_steps: int | None = None,
        uncut: str | None = None,
        workers: int | None = None,
        **settings,
    ) -> BenchmarkConfig:
        """The run ``marple benchmark`` asks for: the named preset with the sizes given (None: the preset's),
        ``variants``, ``splits`` and ``uncut`` as comma-separated text, the scenarios (with ``suspects`` or
        ``shared``: the N-suspect ones), the default output directory named for them; ``settings`` are fields
        taken as they are (seed, protocol, device, ...). Raises ValueError naming the option that is wrong."""
        chosen = preset_with(
            PRESETS[preset],
            trials=trials,
            rollouts=rollouts,
            mcts=mcts,
            train_steps=train_steps,
            splits=splits,
            uncut=uncut,
        )
        names = comma_separated(variants)
        bad = [v for v in names if v not in VARIANTS]
        if bad or not names:
            raise ValueError(f"--variants: unknown {bad}; choose from {', '.join(VARIANTS)}")
        chosen_scenarios, default_out = scenarios_and_out(chosen.name, list(scenarios), suspects, shared, houses)
        if workers is not None:
            settings["workers"] = workers
        return cls(
            preset=chosen,
            out=Path(out or default_out),
            scenarios=chosen_scenarios,
            houses=houses,
            variants=names,
            **settings,
        )

    @property
    def data(self) -> Path:
        return self.out / "data"

    @property
    def report_dir(self) -> Path:
        """Where the inference stage's results and the report go: ``out`` under the default protocol, else
        ``out/protocol-<name>``, so every protocol's runs share one directory's data and agent models."""
        if self.protocol.bundle == PROTOCOLS[DEFAULT_PROTOCOL]:
            return self.out
        return self.out / f"protocol-{self.protocol.name}"

    @property
    def roles(self) -> list[str]:
        """Every agent role of the scenarios: A and B, and C, D, ... with N suspects."""
        return list(dict.fromkeys(r for s in self.scenarios for r in get_scenario(s).roles))

    @property
    def model_seeds(self) -> list[int]:
        return list(range(self.seed, self.seed + self.seeds))

    def scoring(self, run_key: str) -> ProtocolSettings:
        """The settings a run is scored under: the protocol's, without the cutoff for the preset's ``uncut``
        runs (the summary then shows them both ways)."""
        cutoff = None if run_key in self.preset.uncut else self.protocol.cutoff
        return replace(self.protocol, seed=self.seed, cutoff=cutoff)

    def checkpoint(self, scenario: str, split: str, role: str, kind: str, model_seed: int) -> Path:
        return self.out / "models" / f"seed-{model_seed}" / scenario / split / f"{role}-{kind}" / "policy.pt"

    def results(self, name: str) -> Path:
        return self.report_dir / "results" / f"{name}.json"


def preset_with(
    preset: BenchmarkPreset,
    *,
    trials: int | None = None,
    rollouts: int | None = None,
    mcts: int | None = None,
    train_steps: int | None = None,
    splits: str | None = None,
    uncut: str | None = None,
) -> BenchmarkPreset:
    """``preset`` with the sizes given (None: the preset's); ``splits`` and ``uncut`` are comma-separated text."""
    if trials is not None:
        preset = replace(preset, trials=trials)
    if rollouts is not None:
        preset = replace(preset, rollouts=rollouts)
    if mcts is not None:
        preset = replace(preset, mcts=mcts)
    if train_steps is not None:
        preset = replace(preset, train={**preset.train, "max_steps": train_steps})
    if splits is not None:
        chosen = tuple(dict.fromkeys(comma_separated(splits)))
        if not chosen or set(chosen) - {"in", "ood"}:
            raise ValueError(f"--splits: choose from in, ood (comma-separated), got {splits!r}")
        preset = replace(preset, splits=chosen)
    if uncut is not None:
        runs = comma_separated(uncut)
        if set(runs) - set(EVERY_RUN):
            unknown = sorted(set(runs) - set(EVERY_RUN))
            raise ValueError(f"--uncut: unknown {unknown}; choose from {', '.join(EVERY_RUN)}")
        preset = replace(preset, uncut=runs)
    return preset


def scenarios_and_out(
    preset: str, scenarios: list[str], suspects: int | None, shared: bool, houses: str
) -> tuple[tuple[str, ...], str]:
    """The run's scenarios (default: the five; with ``suspects`` or ``shared``: the N-suspect ones) and its default
    output directory, named for the preset, the suspects and the houses."""
    if suspects is not None or shared:
        if houses != "random":
            raise ValueError(f"--houses {houses}: the original benchmark published houses for its five scenarios only")
        names = tuple(unit.name for unit in suspect_units(scenarios, suspects, shared))
        return names, f"runs/benchmark-{preset}-{suspects or DEFAULT_SUSPECTS}-suspects{'-shared' if shared else ''}"
    names = tuple(get_scenario(s).name for s in scenarios) or tuple(SCENARIOS)
    return names, f"runs/benchmark-{preset}" + ("-original-houses" if houses == "original" else "")


def comma_separated(text: str) -> tuple[str, ...]:
    """The non-empty, stripped items of comma-separated option text."""
    return tuple(x.strip() for x in text.split(",") if x.strip())


def training_budget(cfg: BenchmarkConfig) -> str:
    """The agent models' budget in words, as recorded in results files and the summary."""
    budget = ", ".join(f"{k.removeprefix('max_')} {v}" for k, v in cfg.preset.train.items()) or "the model preset's"
    if cfg.train_minutes is not None:
        budget += f", and {cfg.train_minutes:g} minutes of wall-clock time (not reproducible)"
    return budget
