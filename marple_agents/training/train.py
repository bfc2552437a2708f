"""``train_policy``: one agent model from a generated dataset, with Lightning, on any accelerator."""

from __future__ import annotations

import json
import logging
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import lightning as L
import torch

from marple_agents import config as settings
from marple_agents.checkpoints import CheckpointError, save_checkpoint
from marple_agents.config import CONDITIONINGS, ModelConfigError
from marple_agents.loggers import make_logger
from marple_agents.threads import use_torch_threads
from marple_agents.training.budget import TimeBudget
from marple_agents.training.datamodule import PolicyDataModule
from marple_agents.training.module import PolicyModule
from marple_agents.training.progress import progress_callbacks
from marple_gym.datasets import MarpleDataset, Samples
from marple_gym.validation import Fields, message_error, read_json_file

log = logging.getLogger(__name__)

SPLITS = ("train-in", "train-ood")


@dataclass
class TrainResult:
    """What a training run produced."""

    checkpoint: Path  # the safe policy checkpoint (see marple_agents.checkpoints)
    val_accuracy: float  # next-action accuracy on the held-out houses' samples
    train_seconds: float  # wall time of the fit (validation between epochs included)
    val_loss: float = float("nan")
    steps: int = 0
    samples_per_second: float = 0.0  # training inputs per second during the fit
    data: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "checkpoint": str(self.checkpoint)}


def read_val_accuracy(path: str | Path) -> float:
    """The held-out accuracy recorded in a training run's ``metrics.json``; :class:`CheckpointError` names the file
    and field of one that is malformed (``val_loss`` may be NaN: an epoch without a validation pass)."""
    error = message_error(CheckpointError)
    metrics = Fields(read_json_file(path, error, "metrics file", allow_nan=True), "", error, str(path))
    return metrics.number("val_accuracy", low=0.0, high=1.0)


def quiet_lightning(verbose: bool) -> None:
    """Silence Lightning's start-up chatter (accelerator lines, tips, deprecation notes) unless ``-v``:
    it buries the progress bars and the results a user is waiting for. (Lightning sets its loggers' levels
    when imported; this module imports it first, so the levels set here stick.)"""
    if verbose:
        return
    for name in ("lightning", "lightning.pytorch", "lightning.fabric"):
        logging.getLogger(name).setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", message=r".*LeafSpec.*")


def budget_label(train: settings.TrainConfig) -> str:
    """How a run's length was bounded, in words: steps and epochs reproduce, minutes do not."""
    parts = [f"{train.max_steps} steps"] if train.max_steps is not None else []
    parts.append(f"{train.max_epochs} epochs")
    if train.max_minutes is not None:
        parts.append(f"{train.max_minutes:g} minutes of wall-clock time (not reproducible)")
    return "at most " + ", ".join(parts)


def _on_gpu(accelerator: str) -> bool:
    return accelerator in ("auto", "gpu", "cuda") and torch.cuda.is_available()


def _precision(precision: str, accelerator: str) -> str:
    if precision != "auto":
        return precision
    return "bf16-mixed" if _on_gpu(accelerator) and torch.cuda.is_bf16_supported() else "32-true"


def train_policy(
    data_root: str | Path | None,
    unit: str = "laundry",
    split: str = "train-in",
    role: str = "A",
    model: str = "vision",
    preset: str = "small",
    out_dir: str | Path = "runs/policy",
    seed: int = 0,
    max_epochs: int | None = None,
    max_steps: int | None = None,
    max_minutes: float | None = None,
    accelerator: str = "auto",
    devices: int | str = "auto",
    strategy: str = "auto",
    progress: bool = True,
    samples: Samples | None = None,
    record: dict[str, Any] | None = None,
    logger: str = "csv",
    callbacks: Sequence[L.Callback] = (),
    **overrides: Any,
) -> TrainResult:
    """Train a vision-only or language-conditioned policy on one role's samples and write ``out_dir/policy.pt``.

    ``samples`` replaces reading ``data_root`` (e.g. synthetic data in tests). ``logger`` is
    ``csv``, ``tensorboard`` or ``wandb`` (see :mod:`marple_agents.loggers`).
    The budget is work, not time: the preset's optimizer steps (``small``: 6,000) or
    epochs (``paper``: 20). ``max_epochs`` alone replaces the preset's step budget,
    ``max_steps`` sets one; with both, whichever ends first. ``max_minutes`` adds a
    wall-clock budget, only when asked for: the weights then depend on the machine's
    speed and load, and the run's config records it. Without it, the same seed, data
    and machine give the same weights. ``overrides`` set any :class:`ModelConfig` or
    :class:`TrainConfig` field.
    ``record`` adds facts about the data to the result's ``data`` (e.g. that the dataset was incomplete).
    ``callbacks`` are Lightning callbacks added to the trainer's own (a step timer, early stopping).
    """
    if model not in CONDITIONINGS:
        raise ModelConfigError(f"model must be one of {CONDITIONINGS}, got {model!r}")
    if split not in SPLITS:
        raise ModelConfigError(f"split must be one of {SPLITS}, got {split!r}")
    model_cfg, train_cfg = settings.preset(preset, model, **overrides)
    if max_epochs is not None:  # an explicit epoch count replaces the preset's step budget...
        train_cfg = replace(train_cfg, max_epochs=max_epochs, max_steps=None)
    if max_steps is not None:  # ...unless a step count is given too
        train_cfg = replace(train_cfg, max_steps=max_steps)
    if max_minutes is not None:
        train_cfg = replace(train_cfg, max_minutes=max_minutes)
    train_cfg = settings.speed_settings(train_cfg, _on_gpu(accelerator))
    batch_size, accumulate = settings.micro_batches(train_cfg)
    out_dir = Path(out_dir)
    experiment_logger = make_logger(logger, out_dir)  # before the data, so a missing package fails fast
    use_torch_threads()  # the process's setting (--threads, OMP_NUM_THREADS, else one): see marple_agents.threads
    L.seed_everything(seed, workers=True, verbose=False)

    started = time.perf_counter()
    if samples is None:
        samples = MarpleDataset(data_root).samples(unit, split, role=role)
    data = PolicyDataModule(
        samples,
        model,
        batch_size,
        train_cfg.val_fraction,
        seed,
        holdout=train_cfg.holdout,
        on_device=train_cfg.data_on_device,
    )
    data.setup()
    log.info("data ready in %.1f s", time.perf_counter() - started)

    batches = -(-len(data.train) // batch_size)  # one epoch; validation runs at epoch ends
    module = PolicyModule(model_cfg.to_dict(), asdict(train_cfg))
    own: list[L.Callback] = [L.pytorch.callbacks.ModelCheckpoint(dirpath=out_dir / "lightning", save_last=True)]
    if train_cfg.max_minutes is not None:
        own.append(TimeBudget(train_cfg.max_minutes))
    trainer = L.Trainer(
        accelerator=accelerator,
        devices=devices,
        strategy=strategy,
        max_epochs=train_cfg.max_epochs,
        max_steps=-1 if train_cfg.max_steps is None else train_cfg.max_steps,
        check_val_every_n_epoch=max(1, round(train_cfg.val_every / batches)),
        max_time=None if train_cfg.max_minutes is None else {"seconds": 60 * train_cfg.max_minutes * 1.1 + 30},
        accumulate_grad_batches=accumulate,
        gradient_clip_val=1.0,
        callbacks=[*own, *callbacks, *progress_callbacks(progress, f"agent model {unit} {role} {model}", callbacks)],
        logger=experiment_logger,
        enable_progress_bar=progress,
        enable_model_summary=False,
        precision=_precision(train_cfg.precision, accelerator),
        num_sanity_val_steps=0,
        log_every_n_steps=max(1, min(10, batches)),
    )
    fit_start = time.perf_counter()
    trainer.fit(module, datamodule=data)
    train_seconds = time.perf_counter() - fit_start
    metrics = trainer.validate(module, datamodule=data, verbose=False)[0]

    summary = data.summary
    steps = trainer.global_step
    result = TrainResult(
        checkpoint=out_dir / "policy.pt",
        val_accuracy=float(metrics["val/acc"]),
        train_seconds=train_seconds,
        val_loss=float(metrics["val/loss"]),
        steps=steps,
        samples_per_second=steps * accumulate * batch_size * trainer.world_size / train_seconds,
        data={"unit": unit, "split": split, "role": role, **asdict(summary), **(record or {})},
        config={
            "model": model_cfg.to_dict(),
            "train": asdict(train_cfg),
            "preset": preset,
            "seed": seed,
            "budget": budget_label(train_cfg),
        },
    )
    if logger == "wandb":  # close the run so its files are complete when train_policy returns
        experiment_logger.experiment.finish()
    if trainer.is_global_zero:
        meta = {k: v for k, v in result.to_json().items() if k != "checkpoint"}
        save_checkpoint(result.checkpoint, module.net, model_cfg, meta=json.loads(json.dumps(meta)))
        (out_dir / "metrics.json").write_text(json.dumps(result.to_json(), indent=1))
    return result
