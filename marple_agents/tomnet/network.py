"""The network: a character net that embeds the familiarisation, and a prediction net for the test's actions.

As ToMnet (and AGENT's ToMnet-G): a state encoder (two small convolutions over
the step's masks, the second at half the resolution, then a linear layer) shared by both nets; the character net
runs a GRU over each familiarisation episode's encoded states and actions and
averages the episodes' last hidden states into the character vector e_char;
the prediction net reads each test step's encoded state with e_char and gives
the logits of the agent's next action. Without the familiarisation (the
shortcut panel's learned rule, which sees the test alone) there is no character
net, and the prediction net reads each test step alone. Trained by cross-entropy on the visible
actions of expected tests (the training split holds no other); a test's
surprise is the mean negative log-likelihood of its visible actions.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import lightning as L
import torch
import torch.nn.functional as F
from torch import nn

from marple_agents.tomnet.features import ACTIONS, CHANNELS, SIZE, UNSEEN


@dataclass(frozen=True)
class ToMnetConfig:
    """The network's sizes and the training recipe (small enough to train on a CPU in a few minutes)."""

    width: int = 64
    character: int = 16
    epochs: int = 8
    batch_size: int = 16
    """Small batches: more steps for the same work (the trials are few, and each step costs what its trials do)."""
    lr: float = 6e-3
    weight_decay: float = 1e-4
    seed: int = 0
    familiarisation: bool = True
    """False: the test-only model of the shortcut panel (no character net)."""

    def to_dict(self) -> dict:
        return asdict(self)


class ToMnet(nn.Module):
    """e_char from the familiarisation, then action logits for every test step (see module docs)."""

    def __init__(self, width: int = 64, character: int = 16, familiarisation: bool = True) -> None:
        super().__init__()
        self.familiarisation = familiarisation
        self.encoder = nn.Sequential(
            nn.Conv2d(CHANNELS, 16, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 16, 3, stride=2, padding=1),  # half the resolution: a quarter of the work after it
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(16 * (SIZE // 2) ** 2, width),
            nn.ReLU(),
        )
        if familiarisation:
            self.rnn = nn.GRU(width + len(ACTIONS) + 1, width, batch_first=True)
            self.to_character = nn.Linear(width, character)
        reads = width + (character if familiarisation else 0)
        self.head = nn.Sequential(nn.Linear(reads, width), nn.ReLU(), nn.Linear(width, len(ACTIONS)))

    def encode(self, states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """(..., C, S, S) -> (..., width), encoding only the real steps of ``mask`` (...) (padding stays 0)."""
        encoded = self.encoder(states[mask])
        out = encoded.new_zeros(*mask.shape, encoded.shape[-1])
        out[mask] = encoded
        return out

    def character(self, states: torch.Tensor, actions: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """e_char of each trial: states (B, F, T, C, S, S), actions and mask (B, F, T) -> (B, character)."""
        b, f, t = actions.shape
        taken = F.one_hot(torch.where(actions == UNSEEN, len(ACTIONS), actions), len(ACTIONS) + 1).to(states.dtype)
        steps = torch.cat([self.encode(states, mask), taken], dim=-1).reshape(b * f, t, -1)
        out, _ = self.rnn(steps)
        lengths = mask.reshape(b * f, t).sum(-1)
        last = out[torch.arange(b * f, device=out.device), (lengths - 1).clamp(min=0)]
        present = (lengths > 0).reshape(b, f, 1).to(out.dtype)
        per_episode = self.to_character(last).reshape(b, f, -1) * present
        return per_episode.sum(1) / present.sum(1).clamp(min=1.0)

    def forward(
        self,
        fam_states: torch.Tensor,
        fam_actions: torch.Tensor,
        fam_mask: torch.Tensor,
        test_states: torch.Tensor,
        test_mask: torch.Tensor,
    ) -> torch.Tensor:
        """Action logits (B, T, actions) for test states (B, T, C, S, S) after the familiarisation (padding
        steps, outside ``test_mask``, get logits too: leave them out; a test-only model reads no familiarisation)."""
        encoded = self.encode(test_states, test_mask)
        if not self.familiarisation:
            return self.head(encoded)
        e_char = self.character(fam_states, fam_actions, fam_mask)
        return self.head(torch.cat([encoded, e_char[:, None].expand(-1, encoded.shape[1], -1)], dim=-1))


def network_of(config: ToMnetConfig) -> ToMnet:
    """A fresh network of ``config``'s sizes."""
    return ToMnet(config.width, config.character, config.familiarisation)


def surprise(logits: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """Mean negative log-likelihood of each row's visible actions (B,); 0 for a row with none."""
    valid = actions != UNSEEN
    nll = F.cross_entropy(logits.transpose(1, 2), actions.clamp(min=0), reduction="none") * valid
    return nll.sum(1) / valid.sum(1).clamp(min=1)


INPUTS = ("fam_states", "fam_actions", "fam_mask", "test_states", "test_mask")
"""The batch entries :class:`ToMnet` reads, in the order of its ``forward``."""


class ToMnetModule(L.LightningModule):
    """Trains :class:`ToMnet` on expected tests: cross-entropy of their visible actions."""

    def __init__(self, config: dict) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.config = ToMnetConfig(**config)
        self.net = network_of(self.config)

    def _loss(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        logits = self.net(*(batch[k] for k in INPUTS))
        actions = batch["test_actions"]
        valid = actions != UNSEEN
        return F.cross_entropy(logits[valid], actions[valid])

    def training_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> torch.Tensor:
        loss = self._loss(batch)
        self.log("train/loss", loss, prog_bar=True, batch_size=len(batch["test_actions"]))
        return loss

    def validation_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> None:
        self.log("val/loss", self._loss(batch), prog_bar=True, batch_size=len(batch["test_actions"]))

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.config.lr, weight_decay=self.config.weight_decay)
