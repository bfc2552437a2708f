"""Training progress a reader can follow as it goes, on a terminal or in a log: one choice for every trainer.

Lightning's own bar (tqdm on stdout) redraws itself in place with carriage returns: on a terminal that is a bar,
but written to a file or a pipe (a batch job's log, a command run beside others) it shows nothing until the run
ends or the process is stopped. :func:`progress_callbacks` therefore gives Lightning's bar where both stdout and
stderr are terminals, and elsewhere :class:`ProgressLines`: one plain line on stderr at most every
:data:`LINE_INTERVAL` seconds, and one when training ends. Every trainer of the project (the agent models, the
belief policy, ToMnet) takes its callbacks from here.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

import lightning as L

LINE_INTERVAL = 10.0
"""Seconds between two progress lines (a line per step would flood a log; one per epoch may come hours apart)."""


class ProgressLines(L.pytorch.callbacks.ProgressBar):
    """Lightning's progress as plain lines: ``<label>: step 120/500 (24 %), epoch 2, train/loss 1.23, ...,
    4.1 steps/s``, at most every ``interval`` seconds and when training ends, each flushed as it is written."""

    def __init__(self, label: str = "training", interval: float = LINE_INTERVAL, stream: TextIO | None = None):
        super().__init__()
        self.label = label
        self.interval = interval
        self.stream = stream
        self.enabled = True
        self._started = self._written = 0.0

    def disable(self) -> None:
        self.enabled = False

    def enable(self) -> None:
        self.enabled = True

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._started = self._written = time.monotonic()

    def on_train_batch_end(self, trainer: L.Trainer, pl_module: L.LightningModule, *args: Any) -> None:
        if self.enabled and time.monotonic() - self._written >= self.interval:
            self.write(trainer, pl_module)

    def on_train_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if self.enabled:
            self.write(trainer, pl_module)

    def write(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        """One line: the step out of the run's steps, the epoch, the bar's metrics and the rate so far."""
        self._written = now = time.monotonic()
        step, total = trainer.global_step, trainer.estimated_stepping_batches
        share = f" ({100 * step / total:.0f} %)" if 0 < total < float("inf") else ""
        of = f"/{int(total)}" if total < float("inf") else ""
        metrics = [f"{k} {_number(v)}" for k, v in self.get_metrics(trainer, pl_module).items() if k != "v_num"]
        rate = f"{step / (now - self._started):.1f} steps/s" if now > self._started else ""
        parts = [f"step {step}{of}{share}", f"epoch {trainer.current_epoch}", *metrics, rate]
        print(f"{self.label}: " + ", ".join(p for p in parts if p), file=self.stream or sys.stderr, flush=True)


def _number(value: Any) -> str:
    try:
        return f"{float(value):.4g}"
    except (TypeError, ValueError):
        return str(value)


def progress_callbacks(progress: bool, label: str = "training", given: Sequence[L.Callback] = ()) -> list[L.Callback]:
    """The progress callbacks of a trainer built with ``enable_progress_bar=progress`` and the callbacks ``given``:
    none (Lightning's own bar) on a terminal, without progress or where ``given`` has a progress bar of its own,
    else :class:`ProgressLines` named ``label`` (see module docs)."""
    own_bar = any(isinstance(c, L.pytorch.callbacks.ProgressBar) for c in given)
    if not progress or own_bar or (sys.stdout.isatty() and sys.stderr.isatty()):
        return []
    return [ProgressLines(label)]
