"""The ``LightningDataModule``: held-out houses (or episodes) for validation, distinct states, whole batches."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, WeightedRandomSampler

from marple_agents.training.states import StateTable, distinct_states, holdout_mask
from marple_gym.datasets import Samples

log = logging.getLogger(__name__)


class TableDataset(Dataset):
    """A :class:`StateTable` as tensors (on ``device``: copied there once, so batches are gathered where the
    model runs). ``__getitems__`` returns a whole batch with one index per tensor, so the ``DataLoader`` does
    no per-sample Python work."""

    def __init__(self, table: StateTable, device: torch.device | str = "cpu") -> None:
        arrays = {"vision": table.vision, "subgoal": table.subgoal, "targets": table.targets, "count": table.count}
        self.tensors = {k: torch.from_numpy(v).to(device) for k, v in arrays.items()}

    def __len__(self) -> int:
        return len(self.tensors["count"])

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        return {k: v[index] for k, v in self.tensors.items()}

    def __getitems__(self, indices: list[int]) -> dict[str, torch.Tensor]:
        index = torch.as_tensor(indices, device=self.tensors["count"].device)
        return {k: v.index_select(0, index) for k, v in self.tensors.items()}


def whole_batch(batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The collate function for batches that ``__getitems__`` already assembled."""
    return batch


@dataclass
class SplitSummary:
    """What the split produced, for logs and reports."""

    train_samples: int
    train_states: int
    val_samples: int
    val_states: int
    val_houses: list[str]
    holdout: str = "houses"  # what was held out: whole "houses" or whole "episodes" of every house


class PolicyDataModule(L.LightningDataModule):
    """Training and validation tables from one role's samples; validation holds out whole houses
    (``holdout="houses"``) or whole episodes of every house (``"episodes"``, for in-distribution models).

    Training draws distinct inputs in proportion to how often they occur, with
    their action distribution as a soft target; validation sees every distinct
    held-out input once, weighted by its count. ``on_device``: the tables live on
    the trainer's device.
    """

    def __init__(
        self,
        samples: Samples,
        conditioning: str,
        batch_size: int = 64,
        val_fraction: float = 0.2,
        seed: int = 0,
        holdout: str = "houses",
        num_workers: int = 0,
        on_device: bool = False,
    ) -> None:
        super().__init__()
        self.samples = samples
        self.with_subgoal = conditioning == "language"
        self.batch_size = batch_size
        self.val_fraction = val_fraction
        self.holdout = holdout
        self.seed = seed
        self.num_workers = num_workers
        self.on_device = on_device
        self.train: StateTable | None = None
        self.val: StateTable | None = None
        self.summary: SplitSummary | None = None

    def setup(self, stage: str | None = None) -> None:
        if self.train is not None:
            return
        held, held_out = holdout_mask(self.samples, self.val_fraction, self.seed, self.holdout)
        self.train = distinct_states(self.samples.select(~held), self.with_subgoal)
        self.val = distinct_states(self.samples.select(held), self.with_subgoal)
        self.summary = SplitSummary(
            self.train.samples,
            len(self.train),
            self.val.samples,
            len(self.val),
            sorted(np.unique(self.samples.house[held]).tolist()),
            held_out,
        )
        log.info("data split: %s", self.summary)

    def _loader(self, table: StateTable, batch_size: int, sampler=None) -> DataLoader:
        device = self.trainer.strategy.root_device if self.on_device and self.trainer else "cpu"
        return DataLoader(
            TableDataset(table, device),
            batch_size=batch_size,
            sampler=sampler,
            shuffle=False,
            collate_fn=whole_batch,
            num_workers=self.num_workers,
            persistent_workers=self.num_workers > 0,
        )

    def train_dataloader(self) -> DataLoader:
        generator = torch.Generator().manual_seed(self.seed)
        # An epoch draws as many inputs as there are distinct ones, each in proportion to its count.
        sampler = WeightedRandomSampler(
            torch.from_numpy(self.train.count).double(), len(self.train), replacement=True, generator=generator
        )
        return self._loader(self.train, self.batch_size, sampler)

    def val_dataloader(self) -> DataLoader:
        return self._loader(self.val, 4 * self.batch_size)
