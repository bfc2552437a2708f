"""Training agent models with Lightning: data module, module, time budget and ``train_policy``."""

from marple_agents.training.datamodule import PolicyDataModule
from marple_agents.training.module import PolicyModule
from marple_agents.training.train import TrainResult, train_policy

__all__ = ["PolicyDataModule", "PolicyModule", "TrainResult", "train_policy"]
