"""A training run as ``marple train`` asks for it (:class:`TrainingRequest`), checked before anything is written
and run by :func:`run_training`.

When the data directory holds no dataset (or not the split asked for), :func:`run_training` stops with the exact
``marple generate`` command that creates a suitable one: generating data is a separate, explicit step, so training
never writes surprise gigabytes. torch and Lightning are imported only once the checks pass.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from marple_agents.config import TRAINING_SPLITS
from marple_agents.device import check_training_devices
from marple_gym.datasets import MarpleDataset
from marple_gym.datasets.dataset import load_manifest
from marple_gym.errors import MarpleError
from marple_gym.missions.mission import get_mission
from marple_gym.missions.scenarios import get_scenario

if TYPE_CHECKING:
    from marple_agents.training.train import TrainResult


@dataclass(frozen=True)
class TrainingRequest:
    """One agent model to train: a scenario's role (or a single mission's, role A) on a split of ``data``, with a
    model preset, a budget (None: the preset's), ``overrides`` of any model or training setting, and where it runs.
    ``out`` None: ``runs/<unit>-<split>-<role>-<model>``."""

    data: str = "data/marple"
    scenario: str | None = None  # default: laundry
    mission: str | None = None
    role: str = "A"
    split: str = "in"  # "in" or "ood"
    model: str = "vision"
    preset: str = "small"
    out: str | None = None
    seed: int = 0
    max_steps: int | None = None
    max_epochs: int | None = None
    max_minutes: float | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    accelerator: str = "auto"
    devices: int | str = "auto"
    strategy: str = "auto"
    logger: str = "csv"
    progress: bool = True
    allow_incomplete: bool = False


def run_training(request: TrainingRequest) -> TrainResult:
    """Check the data and the devices, then train (:func:`~marple_agents.training.train.train_policy`); a failed
    run leaves no half-written output folder behind."""
    unit, kind = training_unit(request.scenario, request.mission, request.role)
    split = TRAINING_SPLITS[request.split]
    complete = check_training_data(request.data, unit, kind, split, request.role, request.allow_incomplete)
    check_training_devices(request.accelerator, request.devices)
    from marple_agents.training.train import train_policy  # Lightning: once the data and devices are checked

    out = Path(request.out or f"runs/{unit}-{request.split}-{request.role}-{request.model}")
    created = not out.exists()
    try:
        return train_policy(
            request.data,
            unit=unit,
            split=split,
            role=request.role,
            model=request.model,
            preset=request.preset,
            out_dir=out,
            seed=request.seed,
            max_epochs=request.max_epochs,
            max_steps=request.max_steps,
            max_minutes=request.max_minutes,
            accelerator=request.accelerator,
            devices=request.devices,
            strategy=request.strategy,
            progress=request.progress,
            record=None if complete else {"dataset_incomplete": True},
            logger=request.logger,
            **request.overrides,
        )
    except Exception:
        if created and not (out / "policy.pt").exists():
            shutil.rmtree(out, ignore_errors=True)
        raise


def training_unit(scenario: str | None, mission: str | None, role: str) -> tuple[str, str]:
    """The unit's name and kind (``scenario`` or ``mission``); a single mission's dataset has role A only."""
    if mission:
        if role != "A":
            raise MarpleError("a single mission's dataset has role A only")
        return get_mission(mission).name, "mission"
    return get_scenario(scenario or "laundry").name, "scenario"


def check_training_data(data: str, unit: str, kind: str, split: str, role: str, allow_incomplete: bool) -> bool:
    """Whether the dataset at ``data`` is complete, once it is known to hold ``split`` samples of ``unit``'s
    ``role`` (else an error with the ``marple generate`` command that writes them); an incomplete dataset is an
    error unless ``allow_incomplete``."""
    hint = generate_hint(data, unit, kind, split)
    if load_manifest(Path(data)) is None:
        raise MarpleError(f"{data}: no dataset here; create one with\n  {hint}")
    dataset = MarpleDataset(data)
    dataset.check_complete(allow_incomplete)
    if unit not in dataset.units or not dataset.shards(unit, split, role):
        raise MarpleError(f"{data} has no {split} data for {unit!r} role {role}; create it with\n  {hint}")
    return dataset.complete


def generate_hint(data: str, unit: str, kind: str, split: str) -> str:
    """The ``marple generate`` command that writes a dataset this training run can use."""
    sizes = "--test-houses 10 --train-per-house 100" if split == "train-in" else "--train-ood 1000"
    return f"marple generate --{kind} {unit} --splits {split} {sizes} --out {data}"
