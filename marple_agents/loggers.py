"""Experiment loggers for ``marple train``: CSV, TensorBoard or Weights & Biases, the same metrics in each.

Every metric the Lightning module logs (``train/loss``, ``train/acc``,
``val/loss``, ``val/acc``, and the subgoal losses of language models) and the
run's hyperparameters go to whichever logger is chosen. TensorBoard needs the
``logging`` extra, W&B the ``wandb`` extra; W&B runs offline when
``WANDB_MODE=offline`` is set (sync later with ``wandb sync``).
"""

from __future__ import annotations

from pathlib import Path

from marple_gym.errors import MarpleError

LOGGERS = ("csv", "tensorboard", "wandb")


class LoggerError(MarpleError, ValueError):
    """An unknown logger, or one whose package is not installed."""


def make_logger(kind: str, out_dir: str | Path, run_name: str = "logs"):
    """The Lightning logger ``kind`` (one of :data:`LOGGERS`) writing under ``out_dir``."""
    from lightning.pytorch import loggers  # Lightning: loaded when training starts

    out_dir = Path(out_dir)
    if kind == "csv":
        return loggers.CSVLogger(out_dir, name=run_name)
    if kind == "tensorboard":
        try:
            import tensorboard  # noqa: F401
        except ImportError as exc:
            raise LoggerError('--logger tensorboard needs tensorboard: pip install "marple-gym[logging]"') from exc
        return loggers.TensorBoardLogger(out_dir, name=run_name, default_hp_metric=False)
    if kind == "wandb":
        try:
            import wandb  # noqa: F401
        except ImportError as exc:
            raise LoggerError('--logger wandb needs wandb: pip install "marple-gym[wandb]"') from exc
        out_dir.mkdir(parents=True, exist_ok=True)
        return loggers.WandbLogger(name=out_dir.name, save_dir=str(out_dir), project="marple-gym")
    raise LoggerError(f"unknown logger {kind!r}; choose one of {', '.join(LOGGERS)}")
