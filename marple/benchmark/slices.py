"""The in-distribution benchmark one agent model at a time: slices, each sized for a short loan of one GPU.

A slice (``marple slice run laundry/A-vision``) is one agent model of the benchmark's in-distribution split and
what it serves, in one command:

1. **data**: the scenario's test and train-in splits regenerated from the seed, every shard checked against the
   checksum a reference manifest records (the manifest travels with the code; the data is made again wherever
   the slice runs, in seconds on a GPU machine's cores);
2. **model**: the agent model trained exactly as ``marple benchmark`` trains it (the preset's budget; the paper's
   20 epochs);
3. **scores**: that agent's query probabilities on every test trial of the scenario the preset scores, by
   simulation inference, for each variant the model serves (a vision-only model: vision and vision+audio; a
   language-conditioned one: language and all).

It writes one small slice file (format ``marple-slice``, version 1; :func:`read_slice`)::

    {"format": "marple-slice", "version": 1, "slice": "laundry/A-vision", "split": "in", "seed": 0,
     "preset": {"name": "paper", "sizes": {...}, "trials": 10, "model": "paper", "rollouts": 100,
                "splits": ["in", "ood"], "train": {}, "uncut": [...]},
     "card": "NVIDIA H100 80GB HBM3", "date": "2026-11-28", "machine": {"driver": ..., "torch": ..., ...},
     "data": {"manifest_sha256": "...", "shards": 50, "trajectories": 11000},
     "model": {"weights_sha256": "...", "val_accuracy": 0.87, "steps": 2760, "samples_per_second": 812.4, ...},
     "seconds": {"data": 9.8, "model": 231.0, "scores": 95.2},
     "runs": {"vision": {"method": "simulation-vision", "model_settings": {...}, "protocol": {...},
                         "trials_in_flight": 16, "created": "...",
                         "trials": [{"episode_id": "laundry/h00/000", "scenario": "laundry", "horizon": 51,
                                     "suspects": 2, "culprit": 0, "q": [1.0, 0.93, ..., null]}, ...]},
              "audio": {...}}}

``q`` is the agent's P(query | agent) at the protocol's query points (null where the cutoff spares them).
Simulation's rollouts are seeded by what an agent was seen doing, never by which agent is scored or by the other
suspects, so the slices of a scenario's agents assemble into the benchmark's results files exactly
(:mod:`marple.benchmark.merge`; on the CPU byte for byte, on a GPU up to the last bits that batches of other
sizes give). The trained weights stay where they were trained; their hash comes back.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from marple.benchmark.config import BenchmarkConfig
from marple.benchmark.measured import this_machine
from marple.benchmark.pipeline import InferenceRun, ModelJob, inference_runs, job_device, train_job
from marple.benchmark.presets import BenchmarkPreset
from marple.runner import MethodRun, run_suspect
from marple_agents.device import resolve_device
from marple_agents.simulation.inference import POLICY_OF_VARIANT, VARIANTS
from marple_eval.protocol import dataset_episodes
from marple_eval.results import creation_time
from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.datasets.generate import generate_dataset
from marple_gym.datasets.manifest import SIZE_KEYS, DatasetError, check_manifest
from marple_gym.datasets.spec import DatasetSpec, Sizes, Unit
from marple_gym.errors import MarpleError
from marple_gym.files import write_json_atomic
from marple_gym.missions.scenarios import SCENARIOS, get_scenario
from marple_gym.validation import Fields, message_error, read_json_file

log = logging.getLogger(__name__)

SLICE_FORMAT = "marple-slice"
SLICE_VERSION = 1
SPLIT = "in"
"""Slices train in distribution only: out of distribution one model's training alone outlasts a short loan."""
SLICE_SPLITS = ("test", "train-in")
"""The dataset splits a slice regenerates."""
KINDS = ("vision", "language")


class SliceError(MarpleError, ValueError):
    """A slice that cannot run as asked, or a slice file that cannot be read or assembled."""


@dataclass(frozen=True, order=True)
class SliceKey:
    """Which agent model a slice trains: ``laundry/A-vision``."""

    scenario: str
    role: str
    kind: str  # "vision" or "language"

    @classmethod
    def parse(cls, text: str) -> SliceKey:
        """``SCENARIO/ROLE-KIND`` (``laundry/A-vision``); :class:`SliceError` saying what is wrong."""
        scenario, _, rest = text.strip().partition("/")
        role, _, kind = rest.partition("-")
        if scenario not in SCENARIOS:
            raise SliceError(f"slice {text!r}: choose a scenario from {', '.join(SCENARIOS)} (SCENARIO/ROLE-KIND)")
        roles = tuple(get_scenario(scenario).roles)
        if role not in roles or kind not in KINDS:
            raise SliceError(
                f"slice {text!r}: expected {scenario}/ROLE-KIND with ROLE one of {', '.join(roles)} and KIND one of "
                f"{', '.join(KINDS)}, e.g. {scenario}/{roles[0]}-vision"
            )
        return cls(scenario, role, kind)

    @property
    def name(self) -> str:
        return f"{self.scenario}/{self.role}-{self.kind}"

    @property
    def file_name(self) -> str:
        return f"{self.scenario}-{self.role}-{self.kind}.json"

    @property
    def variants(self) -> tuple[str, ...]:
        """The variants whose rollouts use this model."""
        return tuple(v for v in VARIANTS if POLICY_OF_VARIANT[v] == self.kind)


def every_slice() -> list[SliceKey]:
    """The 20 slices of the paper's in-distribution benchmark: each agent model of each scenario."""
    return [SliceKey(s, r, k) for s in SCENARIOS for r in get_scenario(s).roles for k in KINDS]


PRESET_FIELDS = ("name", "sizes", "trials", "model", "rollouts", "splits", "train", "uncut")
"""What a slice's figures depend on of its benchmark preset: what its file records and its halves must share."""


def preset_record(preset: BenchmarkPreset) -> dict[str, Any]:
    """The fields of ``preset`` a slice file records (:data:`PRESET_FIELDS`)."""
    record = asdict(preset)
    return {key: record[key] for key in PRESET_FIELDS}


def slice_config(key: SliceKey, preset: BenchmarkPreset, work: str | Path, **settings: Any) -> BenchmarkConfig:
    """The benchmark configuration a slice runs as: one scenario, the variants its model serves, its working
    folder (data and model; not what comes back); ``settings`` as :class:`BenchmarkConfig` takes them."""
    if SPLIT not in preset.splits:
        raise SliceError(f"preset {preset.name!r} trains no in-distribution models: slices have nothing to do")
    return BenchmarkConfig(preset, Path(work), scenarios=(key.scenario,), variants=key.variants, **settings)


# ---- the data -----------------------------------------------------------------------------------------------


def read_reference(path: str | Path) -> dict[str, Any]:
    """A reference dataset manifest (a dataset's ``manifest.json``), checked."""
    error = message_error(DatasetError)
    return check_manifest(read_json_file(path, error, "reference manifest"), str(path))


def regenerate(cfg: BenchmarkConfig, scenario: str, reference: str | Path) -> dict[str, Any]:
    """Generate ``scenario``'s test and train-in splits into ``cfg.data`` from the seed and check every shard
    against the reference manifest's checksum; returns what the slice records of it."""
    manifest = read_reference(reference)
    spec = DatasetSpec([Unit.scenario(scenario, cfg.houses)], cfg.preset.sizes, cfg.seed, splits=SLICE_SPLITS)
    theirs, mine = manifest["spec"], spec.to_json()
    for key in ("sizes", "seed", "config", "shard_size"):
        if theirs.get(key) != mine[key]:
            raise SliceError(
                f"{reference}: its data has {key} {theirs.get(key)}, this slice's {mine[key]}: another preset or "
                "seed than the manifest's (give the manifest of this preset and seed with --manifest)"
            )
    unit = next((u for u in theirs["units"] if u["name"] == scenario), None)
    if unit != mine["units"][0] or not set(SLICE_SPLITS) <= set(theirs["splits"]):
        raise SliceError(f"{reference}: it holds no {scenario} data of splits {', '.join(SLICE_SPLITS)} like this one")
    report = generate_dataset(spec, cfg.data, workers=cfg.workers, progress=cfg.progress)
    shards = report.manifest["shards"]
    differ = sorted(p for p, e in shards.items() if manifest["shards"].get(p, {}).get("sha256") != e["sha256"])
    if differ:
        raise SliceError(
            f"{len(differ)} of the {len(shards)} shards generated here differ from {reference}'s checksums (first: "
            f"{differ[0]}): this code or machine makes other data than the manifest records, so its figures would "
            "not join the other slices'"
        )
    digest = hashlib.sha256(Path(reference).read_bytes()).hexdigest()
    return {"manifest_sha256": digest, "shards": len(shards), "trajectories": report.episodes}


# ---- the slice ----------------------------------------------------------------------------------------------


def variant_run(cfg: BenchmarkConfig, variant: str) -> InferenceRun:
    """The benchmark's inference run of ``variant`` with the in-distribution models of the first model seed."""
    return next(r for r in inference_runs(cfg) if r.key == variant and r.split == SPLIT and r.model_seed == cfg.seed)


def run_slice(cfg: BenchmarkConfig, key: SliceKey, reference: str | Path, out: str | Path) -> Path:
    """Regenerate and check the data, train the model, score its agent for each variant it serves; write the slice
    file into folder ``out`` and return it (see module docs)."""
    from marple_agents.checkpoints import read_checkpoint  # torch: only once a slice runs

    device = str(resolve_device(cfg.device))
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    data = regenerate(cfg, key.scenario, reference)
    seconds["data"] = time.perf_counter() - start
    log.info("slice %s: %d shards regenerated and checked in %.0f s", key.name, data["shards"], seconds["data"])

    start = time.perf_counter()
    job = ModelJob(key.scenario, SPLIT, key.role, key.kind, cfg.seed)
    trained = train_job(cfg, job, device)
    seconds["model"] = time.perf_counter() - start
    model = {
        "weights_sha256": read_checkpoint(trained.checkpoint)["weights_sha256"],
        "val_accuracy": trained.val_accuracy,
        "steps": trained.steps,
        "samples_per_second": trained.samples_per_second,
        "train_seconds": trained.train_seconds,
        "budget": trained.config["budget"],
    }

    start = time.perf_counter()
    episodes = dataset_episodes(MarpleDataset(cfg.data), [key.scenario], cfg.preset.trials)
    runs = {variant: score_variant(cfg, key, variant, episodes, device) for variant in key.variants}
    seconds["scores"] = time.perf_counter() - start
    machine = this_machine(device)
    record = {
        "format": SLICE_FORMAT,
        "version": SLICE_VERSION,
        "slice": key.name,
        "split": SPLIT,
        "seed": cfg.seed,
        "preset": preset_record(cfg.preset),
        **machine,
        "data": data,
        "model": model,
        "seconds": seconds,
        "runs": runs,
    }
    path = write_json_atomic(Path(out) / key.file_name, record)
    log.info("slice %s: %s", key.name, path)
    return path


def score_variant(cfg: BenchmarkConfig, key: SliceKey, variant: str, episodes: list, device: str) -> dict[str, Any]:
    """The slice's agent's query probabilities on every trial under ``variant``, as the slice file records them."""
    run = variant_run(cfg, variant)
    method = MethodRun(
        run.model, run.kwargs, run.agents, cfg.data, run.split, (key.scenario,), job_device(device), cfg.precision
    )
    start = time.perf_counter()
    found = run_suspect(method, key.role, episodes, cfg.scoring(variant), processes=cfg.workers, progress=cfg.progress)
    return {
        "method": found.method,
        "model_settings": found.model_settings,
        "protocol": cfg.scoring(variant).record(),
        "trials_in_flight": found.trials_in_flight,
        "created": creation_time(),
        "seconds": time.perf_counter() - start,
        "trials": [
            {
                "episode_id": e.episode_id,
                "scenario": e.scenario,
                "horizon": e.horizon,
                "suspects": e.suspects,
                "culprit": e.culprit,
                "q": found.answers[e.episode_id],
            }
            for e in episodes
        ],
    }


# ---- slice files --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SliceFile:
    """A slice file as read (see module docs): the slice, where and when it ran, and its runs by variant."""

    key: SliceKey
    seed: int
    preset: dict[str, Any]
    card: str
    date: str
    machine: dict[str, Any]
    data: dict[str, Any]
    model: dict[str, Any]
    seconds: dict[str, float]
    runs: dict[str, dict[str, Any]]
    path: Path

    @property
    def benchmark_preset(self) -> BenchmarkPreset:
        """The benchmark preset the slice ran at, as a :class:`BenchmarkPreset` (what a slice's figures depend
        on; the rest at its defaults)."""
        p = self.preset
        return BenchmarkPreset(
            **{**p, "sizes": Sizes(**p["sizes"]), "splits": tuple(p["splits"]), "uncut": tuple(p["uncut"])}
        )


def read_slice(path: str | Path) -> SliceFile:
    """Read a slice file strictly; any problem raises :class:`SliceError` naming the file and field."""
    error = message_error(SliceError)
    top = Fields(read_json_file(path, error, "slice file"), "", error, str(path))
    top.allow(
        ("format", "version", "slice", "split", "seed", "preset", "card", "date", "machine")
        + ("data", "model", "seconds", "runs")
    )
    if top.get("format") != SLICE_FORMAT:
        raise top.fail("format", f"not a slice file (expected {SLICE_FORMAT!r})")
    if top.get("version") != SLICE_VERSION:
        raise top.fail("version", f"slice version {top.get('version')!r} is not supported (expected {SLICE_VERSION})")
    try:
        key = SliceKey.parse(top.str("slice"))
    except SliceError as exc:
        raise top.fail("slice", str(exc)) from None
    top.str("split", choices=(SPLIT,))
    preset = top.fields("preset").allow(PRESET_FIELDS).require(*PRESET_FIELDS)
    preset.fields("sizes").allow(SIZE_KEYS).require(*SIZE_KEYS)
    model = top.fields("model")
    model.str("weights_sha256")
    runs = top.fields("runs")
    if set(runs.data) != set(key.variants):
        raise runs.fail("", f"expected the runs of {', '.join(key.variants)}, found {', '.join(runs.data) or 'none'}")
    for variant in key.variants:
        _check_run(runs.fields(variant))
    return SliceFile(
        key,
        top.int("seed", low=0),
        top.mapping("preset"),
        top.str("card"),
        top.str("date"),
        top.mapping("machine"),
        top.mapping("data"),
        model.data,
        top.mapping("seconds"),
        runs.data,
        Path(path),
    )


def _check_run(run: Fields) -> None:
    run.require("method", "model_settings", "protocol", "created", "trials")
    run.str("method")
    run.mapping("model_settings")
    run.mapping("protocol")
    run.int("trials_in_flight", None, low=1)
    run.str("created")
    for trial in run.entries("trials"):
        trial.require("episode_id", "scenario", "horizon", "suspects", "culprit", "q")
        trial.str("episode_id")
        trial.str("scenario")
        trial.int("horizon", low=0)
        suspects = trial.int("suspects", low=2)
        trial.int("culprit", low=0, high=suspects - 1)
        for i, q in enumerate(trial.list("q")):
            if q is not None:
                trial.check_number(f"q[{i}]", q, low=0.0, high=1.0)
