"""The ``LightningModule``: losses, accuracy, AdamW with warm-up then cosine decay."""

from __future__ import annotations

import math
from typing import Any

import lightning as L
import torch
import torch.nn.functional as F

from marple_agents.config import ModelConfig, TrainConfig
from marple_agents.networks import SUBGOAL_FIELDS, build_model


class WarmupCosine:
    """Learning-rate factor: linear warm-up over the first ``warmup`` of ``total`` steps, then cosine to zero.

    ``total`` may shrink while training runs (a time budget, see
    :class:`~marple_agents.training.budget.TimeBudget`); the factor follows.
    """

    def __init__(self, total: int, warmup_fraction: float) -> None:
        self.total = max(1, total)
        self.warmup_fraction = warmup_fraction

    def __call__(self, step: int) -> float:
        warmup = self.warmup_fraction * self.total
        if step < warmup:
            return (step + 1) / (warmup + 1)
        progress = min(1.0, (step - warmup) / max(1.0, self.total - warmup))
        return 0.5 * (1.0 + math.cos(math.pi * progress))


def soft_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Per-row cross-entropy against a target distribution."""
    return -(targets * F.log_softmax(logits, dim=-1)).sum(dim=-1)


def decoder_loss(logits: dict[str, torch.Tensor], subgoal: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of the subgoal decoders over rows with a subgoal (code -1: the mission is done)."""
    losses = []
    for i, field in enumerate(SUBGOAL_FIELDS):
        target = subgoal[:, i]
        valid = target >= 0
        if valid.any():
            losses.append(F.cross_entropy(logits[field][valid], target[valid]))
    return torch.stack(losses).mean() if losses else logits["action"].sum() * 0.0


class PolicyModule(L.LightningModule):
    """Behaviour cloning of one agent's next action (and, for language models, its current subgoal)."""

    def __init__(self, model: dict[str, Any], train: dict[str, Any]) -> None:
        super().__init__()
        self.save_hyperparameters()  # plain dicts: Lightning checkpoints stay loadable with weights_only
        self.model_config = ModelConfig.from_dict(model)
        self.train_config = TrainConfig(**train)
        self.net = build_model(self.model_config)
        self.schedule: WarmupCosine | None = None
        self._val_sums: torch.Tensor | None = None

    def setup(self, stage: str) -> None:
        if self.train_config.compile and stage == "fit":
            self.net.compile()  # in place: the weights keep their names in checkpoints

    def forward(self, vision: torch.Tensor, subgoal: torch.Tensor | None = None):
        return self.net(vision, subgoal)

    def _losses(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Per-row action loss, per-row expected accuracy (target mass on the argmax), and the decoder loss."""
        logits, decoded = self.net(batch["vision"], batch["subgoal"])
        action_loss = soft_cross_entropy(logits, batch["targets"])
        hit = batch["targets"].gather(1, logits.argmax(dim=1, keepdim=True))[:, 0]
        extra = decoder_loss(decoded, batch["subgoal"]) if decoded is not None else action_loss.new_zeros(())
        return action_loss, hit, extra

    def training_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> torch.Tensor:
        action_loss, hit, extra = self._losses(batch)
        loss = action_loss.mean() + self.train_config.decoder_weight * extra
        if self.logs_this_step():
            n = len(hit)
            self.log("train/loss", action_loss.mean(), prog_bar=True, batch_size=n)
            self.log("train/acc", hit.mean(), prog_bar=True, batch_size=n)
            if self.model_config.conditioning == "language":
                self.log("train/subgoal_loss", extra, batch_size=n)
        return loss

    def logs_this_step(self) -> bool:
        """Whether this step's metrics are logged: on the steps the trainer writes (every ``log_every_n_steps``),
        which keeps only those steps' values of a per-step metric anyway. Each ``self.log`` costs a small model
        on a CPU about a tenth of its step."""
        return (self.global_step + 1) % self.trainer.log_every_n_steps == 0

    def on_validation_epoch_start(self) -> None:
        self._val_sums = torch.zeros(4, device=self.device, dtype=torch.float64)

    def validation_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> None:
        # Each distinct input stands for `count` raw samples: weighting by it gives the raw samples' figures.
        action_loss, hit, extra = self._losses(batch)
        w = batch["count"].to(action_loss.dtype)
        self._val_sums += torch.stack([w.sum(), (w * action_loss).sum(), (w * hit).sum(), extra * w.sum()]).double()

    def on_validation_epoch_end(self) -> None:
        total, loss, hit, extra = self.trainer.strategy.reduce(self._val_sums, reduce_op="sum").tolist()
        total = max(total, 1.0)
        self.log("val/loss", loss / total, sync_dist=False)
        self.log("val/acc", hit / total, prog_bar=True, sync_dist=False)
        if self.model_config.conditioning == "language":
            self.log("val/subgoal_loss", extra / total, sync_dist=False)

    def configure_gradient_clipping(
        self,
        optimizer: torch.optim.Optimizer,
        gradient_clip_val: float | None = None,
        gradient_clip_algorithm: str | None = None,
    ) -> None:
        """Clip as Lightning does, also for the fused AdamW under bf16 autocast.

        Lightning's mixed-precision plugin refuses to clip for an optimizer that unscales inside its own step (the
        fused AdamW), since with fp16's gradient scaler the gradients would still be scaled here. bf16 and fp32
        have no scaler: the gradients are the true ones, so their norm is clipped here as Lightning would (the
        optimizer's parameters, by norm). With a scaler, Lightning's own check still speaks.
        """
        handles_unscaling = getattr(optimizer, "_step_supports_amp_scaling", False)
        unscaled = getattr(self.trainer.precision_plugin, "scaler", None) is None
        if gradient_clip_val and handles_unscaling and unscaled and gradient_clip_algorithm in (None, "norm"):
            params = [p for group in optimizer.param_groups for p in group["params"]]
            torch.nn.utils.clip_grad_norm_(params, gradient_clip_val)
            return
        self.clip_gradients(optimizer, gradient_clip_val, gradient_clip_algorithm)

    def configure_optimizers(self):
        cfg = self.train_config
        # No weight decay on biases, norms and embedding tables (the usual transformer recipe).
        decay = [p for n, p in self.named_parameters() if p.ndim >= 2 and "table" not in n]
        rest = [p for n, p in self.named_parameters() if not (p.ndim >= 2 and "table" not in n)]
        groups = [{"params": decay, "weight_decay": cfg.weight_decay}, {"params": rest, "weight_decay": 0.0}]
        optimizer = torch.optim.AdamW(groups, lr=cfg.lr, fused=cfg.fused_optimizer or None)
        self.schedule = WarmupCosine(int(self.trainer.estimated_stepping_batches), cfg.warmup_fraction)
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, self.schedule)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}
