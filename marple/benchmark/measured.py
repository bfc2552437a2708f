"""Measured figures: one small JSON file per run of the GPU check on one card, and what the projections read.

``python bench/gpu_check.py`` measures a card and writes a file of this format
(``marple-measured``, version 1); committed under ``marple/benchmark/data/measured/`` as
``<card>-<date>.json``, it is what the presets' projections read (:mod:`marple.benchmark.estimate`: the
newest file, by its date, for the card asked about)::

    {"format": "marple-measured", "version": 1, "card": "NVIDIA H100 80GB HBM3", "date": "2026-11-28",
     "machine": {"driver": "580.159.04", "torch": "2.11.0+cu130", "cuda": "13.0", "python": "3.12.3",
                 "numpy": "2.5.2", "cores": 16, "generator": "marple-gym 0.1.0"},
     "command": "python bench/gpu_check.py", "seconds": 401.7,
     "tests": {"command": "...", "passed": 12, "failed": 0, "skipped": 0, "seconds": 41.0},
     "data": {"scenario": "laundry", "shards": 50, "matches_manifest": true, "seconds": 8.1},
     "training": {"model_preset": "paper", "flops_per_sample": 4.6e11, "bf16_peak": 9.89e14,
                  "matmul_flop_per_second": 7.7e14, "timed_steps": [10, 30], "rows_per_step": 128,
                  "runs": {"none": {"samples_per_second": 700.6, "mfu": 0.326, ...}, "fold": {...}, ...,
                           "all": {...}}},
     "inference": {"model_preset": "paper", "precision": "bf16", "trials_in_flight": 16, "rollouts": 100,
                   "cutoff": null, "scenario": "laundry", "agent_models": "...",
                   "forward": {"rows": 1100, "seconds": 0.45},
                   "variants": {"vision": {"trials": 16, "seconds": 80.2, "seconds_per_trial": 5.0}, ...}}}

Every part is optional but the card, date and machine: a check stopped by its time limit writes the parts it
finished, and a projection names the part it lacks. :func:`this_machine` is the machine record the check and the
slices (:mod:`marple.benchmark.slices`) both write.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy

from marple_gym.errors import MarpleError
from marple_gym.files import write_json_atomic
from marple_gym.validation import Fields, message_error, read_json_file
from marple_gym.version import __version__

MEASURED_DIR = Path(__file__).parent / "data" / "measured"
"""Where the measured-figure files the projections read are committed."""
MEASURED_FORMAT = "marple-measured"
MEASURED_VERSION = 1
PARTS = ("tests", "data", "training", "inference")
"""The measured parts a file may hold, in the order the check measures them."""


class MeasuredError(MarpleError, ValueError):
    """A measured-figure file that cannot be read, or a figure a projection needs that was never measured."""


@dataclass(frozen=True)
class Measured:
    """One measured-figure file: the card, the day, and the raw parts (see module docs)."""

    card: str
    date: str
    machine: dict[str, Any]
    parts: dict[str, dict[str, Any]]
    source: str  # the file it was read from

    def part(self, name: str) -> dict[str, Any]:
        """A measured part; :class:`MeasuredError` naming the file when it was not measured."""
        if name not in self.parts:
            raise MeasuredError(f"{self.source}: no {name} figures were measured on the {self.card}")
        return self.parts[name]

    @property
    def train_samples_per_second(self) -> float:
        """Training samples per second with every speed option on (a GPU's defaults)."""
        runs = self.part("training")["runs"]
        if "all" not in runs:
            raise MeasuredError(f"{self.source}: training with every speed option on ('all') was not measured")
        return runs["all"]["samples_per_second"]

    @property
    def forward(self) -> tuple[int, float]:
        """One forward pass of the paper's model under bf16 autocast: (rows, seconds)."""
        forward = self.part("inference").get("forward")
        if forward is None:
            raise MeasuredError(f"{self.source}: no forward pass of the paper's model was timed")
        return forward["rows"], forward["seconds"]

    @property
    def cores(self) -> int:
        return self.machine["cores"]

    def describe(self) -> str:
        """Where the figures come from, in a few words."""
        return f"{self.card}, measured {self.date} ({Path(self.source).name})"


def card_slug(card: str) -> str:
    """A card's name as a file name: ``NVIDIA H100 80GB HBM3`` -> ``nvidia-h100-80gb-hbm3``."""
    return re.sub(r"[^a-z0-9]+", "-", card.lower()).strip("-") or "device"


def read_measured(path: str | Path) -> Measured:
    """Read a measured-figure file strictly; a problem raises :class:`MeasuredError` naming the file and field."""
    error = message_error(MeasuredError)
    top = Fields(read_json_file(path, error, "measured-figure file"), "", error, str(path))
    top.allow(("format", "version", "card", "date", "machine", "command", "seconds", *PARTS))
    if top.get("format") != MEASURED_FORMAT:
        raise top.fail("format", f"not a measured-figure file (expected {MEASURED_FORMAT!r})")
    if top.get("version") != MEASURED_VERSION:
        raise top.fail("version", f"version {top.get('version')!r} is not supported (expected {MEASURED_VERSION})")
    card, day = top.str("card"), top.str("date")
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day):
        raise top.fail("date", f"expected YYYY-MM-DD, got {day!r}")
    machine = top.fields("machine")
    machine.int("cores", low=1)
    parts = {name: top.mapping(name) for name in PARTS if top.has(name)}
    if "training" in parts:
        runs = top.fields("training").fields("runs")
        for label in runs.data:
            runs.fields(label).number("samples_per_second", low=0.0)
    if "inference" in parts and top.fields("inference").has("forward"):
        forward = top.fields("inference").fields("forward")
        forward.int("rows", low=1)
        forward.number("seconds", low=0.0)
    return Measured(card, day, machine.data, parts, str(path))


def measured_files(folder: str | Path | None = None) -> list[Measured]:
    """Every measured-figure file in ``folder`` (default :data:`MEASURED_DIR`), oldest first (by date, then name)."""
    files = [read_measured(p) for p in sorted(Path(folder or MEASURED_DIR).glob("*.json"))]
    return sorted(files, key=lambda m: (m.date, Path(m.source).name))


def newest_measured(card: str | None = None, folder: str | Path | None = None) -> Measured | None:
    """The newest measured-figure file for ``card`` (a name as torch reports it, or part of one: ``H100``), or of
    any card when None; None when there is none."""
    found = [m for m in measured_files(folder) if card is None or card.lower() in m.card.lower()]
    return found[-1] if found else None


def measured_path(folder: str | Path, card: str, day: str) -> Path:
    """Where a new file for ``card`` measured on ``day`` goes: ``<card>-<date>.json``, numbered when one exists."""
    base = Path(folder) / f"{card_slug(card)}-{day}"
    path, n = base.with_suffix(".json"), 2
    while path.exists():
        path, n = Path(f"{base}-{n}.json"), n + 1
    return path


def write_measured(path: str | Path, record: dict[str, Any]) -> Path:
    """Write a measured-figure record atomically (each part as it is measured: a later stop keeps it)."""
    return write_json_atomic(path, {"format": MEASURED_FORMAT, "version": MEASURED_VERSION, **record})


def this_machine(device: Any = None) -> dict[str, Any]:
    """The card (the GPU's name as torch reports it, or ``cpu``), today's date and what a figure depends on: the
    driver, torch, CUDA, Python, numpy (the data a seed makes), the CPU cores and this package's version."""
    import torch  # the card and its versions: only where a figure is measured

    on_gpu = device is not None and str(device).startswith("cuda") and torch.cuda.is_available()
    card = torch.cuda.get_device_name(torch.device(device)) if on_gpu else "cpu"
    return {
        "card": card,
        "date": date.today().isoformat(),
        "machine": {
            "driver": gpu_driver() if on_gpu else None,
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "python": platform.python_version(),
            "numpy": numpy.__version__,
            "cores": os.cpu_count() or 1,
            "generator": f"marple-gym {__version__}",
        },
    }


def gpu_driver() -> str | None:
    """The NVIDIA driver's version as ``nvidia-smi`` reports it (None where it cannot be asked)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    try:
        out = subprocess.run(
            [smi, "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.stdout.split()
    return lines[0] if out.returncode == 0 and lines else None
