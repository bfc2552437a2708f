"""The slices that have landed, and Table 2 at paper scale as far as they reach.

Each benchmark series (a preset and a seed) has a folder under ``marple/benchmark/data/slices/`` (``paper-seed0``)
holding the reference manifest its slices check their data against (``manifest.json``), the slice files that have
come back (``<scenario>-<role>-<kind>.json``, :mod:`marple.benchmark.slices`) and the ledger (``ledger.json``)::

    {"format": "marple-slice-ledger", "version": 1, "preset": "paper", "seed": 0,
     "slices": [{"slice": "laundry/A-vision", "file": "laundry-A-vision.json", "sha256": "...",
                 "card": "NVIDIA H100 80GB HBM3", "date": "2026-11-28", "val_accuracy": 0.87,
                 "seconds": {"data": 9.8, "model": 231.0, "scores": 95.2}, "weights_sha256": "..."}, ...]}

:func:`add_slice` checks a slice file and enters it; :func:`ledger_table` lists every slice of the paper's
in-distribution benchmark, landed or missing; :func:`table2` shows Table 2 from the landed slices
(:mod:`marple.benchmark.merge`), every cell that lacks a slice marked with the slices it lacks.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

from marple.benchmark.merge import Assembled, assemble
from marple.benchmark.slices import SliceError, SliceFile, every_slice, read_slice
from marple.benchmark.summary import can_cut
from marple_agents.simulation.inference import VARIANT_LABELS, VARIANTS
from marple_eval.metrics import threshold_key
from marple_eval.report import fmt_interval, paper_table2
from marple_gym.files import write_json_atomic
from marple_gym.missions.scenarios import SCENARIOS
from marple_gym.validation import Fields, message_error, read_json_file

SLICES_DIR = Path(__file__).parent / "data" / "slices"
"""Where the series folders of landed slices are committed."""
LEDGER = "ledger.json"
REFERENCE = "manifest.json"
LEDGER_FORMAT = "marple-slice-ledger"
LEDGER_VERSION = 1
PAPER_CUTOFF = 40
"""The cutoff of the original code, under which the paper's Table 2 was computed."""


def series_dir(preset: str = "paper", seed: int = 0, root: str | Path = SLICES_DIR) -> Path:
    """The folder of the slices of ``preset`` with ``seed``."""
    return Path(root) / f"{preset}-seed{seed}"


def read_ledger(folder: str | Path) -> list[dict[str, Any]]:
    """The ledger's entries (none when there is no ledger yet); :class:`SliceError` names a malformed one."""
    path = Path(folder) / LEDGER
    if not path.is_file():
        return []
    error = message_error(SliceError)
    top = Fields(read_json_file(path, error, "slice ledger"), "", error, str(path))
    top.allow(("format", "version", "preset", "seed", "slices"))
    if top.get("format") != LEDGER_FORMAT or top.get("version") != LEDGER_VERSION:
        raise top.fail("format", f"not a slice ledger of version {LEDGER_VERSION} (expected {LEDGER_FORMAT!r})")
    entries = top.entries("slices")
    for entry in entries:
        entry.require("slice", "file", "sha256")
        entry.str("file")
    return [entry.data for entry in entries]


def landed(folder: str | Path) -> list[SliceFile]:
    """The slice files the ledger lists, each read and checked against the hash the ledger recorded."""
    out = []
    for entry in read_ledger(folder):
        path = Path(folder) / entry["file"]
        if not path.is_file():
            raise SliceError(f"{Path(folder) / LEDGER}: lists {entry['file']}, which is not there")
        if hashlib.sha256(path.read_bytes()).hexdigest() != entry["sha256"]:
            raise SliceError(f"{path}: not the file {LEDGER} entered (its sha256 differs)")
        out.append(read_slice(path))
    return out


def add_slice(folder: str | Path, path: str | Path, replace: bool = False) -> dict[str, Any]:
    """Check slice file ``path`` against the series (its preset, seed and data manifest), copy it into ``folder``
    and enter it in the ledger; returns the entry. A slice already there is replaced only when asked."""
    folder = Path(folder)
    piece = read_slice(path)
    preset, seed = piece.preset["name"], piece.seed
    if folder.name != series_dir(preset, seed).name:
        raise SliceError(f"{path}: a slice of preset {preset!r} with seed {seed}, not of the series {folder.name}")
    reference = folder / REFERENCE
    if not reference.is_file() or piece.data.get("manifest_sha256") != _sha256(reference):
        raise SliceError(f"{path}: its data was not checked against {reference}")
    entries = read_ledger(folder)
    if any(e["slice"] == piece.key.name for e in entries) and not replace:
        raise SliceError(f"{folder} already holds slice {piece.key.name} (replace it with --replace)")
    entries = [e for e in entries if e["slice"] != piece.key.name]
    if entries and read_slice(folder / entries[0]["file"]).preset != piece.preset:
        raise SliceError(f"{path}: run at other preset sizes than the slices in {folder}")
    target = folder / piece.key.file_name
    if Path(path).resolve() != target.resolve():
        shutil.copyfile(path, target)
    entry = {
        "slice": piece.key.name,
        "file": target.name,
        "sha256": _sha256(target),
        "card": piece.card,
        "date": piece.date,
        "val_accuracy": piece.model.get("val_accuracy"),
        "seconds": piece.seconds,
        "weights_sha256": piece.model["weights_sha256"],
    }
    order = {key.name: k for k, key in enumerate(every_slice())}
    entries = sorted([*entries, entry], key=lambda e: order.get(e["slice"], len(order)))
    record = {"format": LEDGER_FORMAT, "version": LEDGER_VERSION, "preset": preset, "seed": seed, "slices": entries}
    write_json_atomic(folder / LEDGER, record)
    return entry


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def ledger_table(folder: str | Path) -> str:
    """Every slice of the paper's in-distribution benchmark: where and when it ran and what it took, or missing."""
    entries = {e["slice"]: e for e in read_ledger(folder)}
    lines = [
        "| slice | card | date | held-out accuracy | seconds: data / model / scores |",
        "| --- | --- | --- | --- | --- |",
    ]
    for key in every_slice():
        e = entries.get(key.name)
        if e is None:
            lines.append(f"| {key.name} | missing | | | |")
            continue
        s = e["seconds"]
        seconds = " / ".join(f"{s[part]:.0f}" for part in ("data", "model", "scores"))
        lines.append(f"| {key.name} | {e['card']} | {e['date']} | {e['val_accuracy']:.3f} | {seconds} |")
    return "\n".join(lines)


def table2(slices: list[SliceFile], threshold: float = 0.8) -> str:
    """Table 2 at paper scale from the slices, in distribution: for each variant the evidence needed for
    ``threshold`` accuracy pooled over the five scenarios and per scenario, with 95 % bootstrap intervals, beside
    the paper's figure; under the paper's cutoff and without one. A cell without all its slices says which it
    lacks; the pooled figure needs all five scenarios."""
    assembled = {variant: assemble(slices, variant, "slices") for variant in VARIANTS}
    first = slices[0] if slices else None
    where = (
        f"preset {first.preset['name']}, seed {first.seed}; "
        f"{len({s.key for s in slices})} of {len(every_slice())} slices"
        if first
        else f"no slices yet (0 of {len(every_slice())})"
    )
    lines = [
        f"Table 2 at paper scale, in distribution ({where}): evidence needed for {threshold:g} accuracy (lower is "
        "better), 95 % bootstrap intervals over the trials. Out of distribution is not run in slices: one model's "
        "training outlasts a slice.",
    ]
    for view in (f"cutoff {PAPER_CUTOFF}", "no cutoff"):
        lines += ["", f"## {view}", "", *_view_rows(assembled, view, threshold)]
    return "\n".join(lines)


def _view_rows(assembled: dict[str, Assembled], view: str, threshold: float) -> list[str]:
    key = threshold_key(threshold)
    paper = paper_table2()
    header = ["variant", "paper (in)", "five scenarios pooled", *SCENARIOS]
    rows = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    for variant, found in assembled.items():
        label = VARIANT_LABELS[variant]
        run = found.run
        if run is not None and view != "no cutoff":
            run = run.with_cutoff(PAPER_CUTOFF) if can_cut(run, PAPER_CUTOFF) else None
        summary = run.summary(thresholds=(threshold,)) if run is not None else None
        pooled = (
            fmt_interval(summary["overall"]["evidence"][key])
            if summary is not None and not found.missing
            else f"{len(found.scenarios)} of {len(SCENARIOS)} scenarios"
        )
        cells = []
        for scenario in SCENARIOS:
            if scenario in found.missing:
                cells.append("missing: " + ", ".join(k.name for k in found.missing[scenario]))
            elif summary is None:
                cells.append(f"not scored under {view}")
            else:
                cells.append(fmt_interval(summary["scenarios"][scenario]["evidence"][key]))
        paper_figure = f"{paper[label]['in']:.2f}" if label in paper and view != "no cutoff" else "-"
        rows.append("| " + " | ".join([label, paper_figure, pooled, *cells]) + " |")
    return rows
