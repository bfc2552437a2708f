"""Fitting a training run, learning-rate schedule included, into a wall-clock budget."""

from __future__ import annotations

import time

import lightning as L

from marple_agents.training.module import PolicyModule


class TimeBudget(L.Callback):
    """Stop after ``minutes`` with the learning rate annealed, instead of cutting the run short mid-schedule.

    Every ``every`` optimizer steps the callback measures the steps per second
    so far (validation included) and sets the schedule's total to the steps
    that fit in the time left; training stops when the total is reached. Rank 0
    decides and broadcasts, so every process follows the same schedule. The
    number of steps, and with it the result, then depends on the machine's
    speed: runs meant to be reproduced exactly use ``max_epochs`` alone.
    """

    def __init__(self, minutes: float, every: int = 25) -> None:
        self.seconds = 60.0 * minutes
        self.every = every
        self.start = 0.0
        self.start_step = 0
        self.most = 0

    def on_train_start(self, trainer: L.Trainer, pl_module: PolicyModule) -> None:
        self.start = time.monotonic()
        self.start_step = trainer.global_step
        self.most = int(trainer.estimated_stepping_batches)  # what max_epochs allows

    def on_train_batch_end(self, trainer: L.Trainer, pl_module: PolicyModule, outputs, batch, batch_idx: int) -> None:
        step, schedule = trainer.global_step, pl_module.schedule
        done = step - self.start_step
        if done > 0 and done % self.every == 0:
            elapsed = time.monotonic() - self.start
            planned = step + int(done / elapsed * (self.seconds - elapsed))
            planned = trainer.strategy.broadcast(planned, src=0)
            schedule.total = max(step + 1, min(self.most, planned))
        if step >= schedule.total:
            trainer.should_stop = True
