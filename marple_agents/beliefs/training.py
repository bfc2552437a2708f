"""Training the belief policy: behaviour cloning on searching agents' episodes, with the project's Lightning
module (:class:`~marple_agents.training.module.PolicyModule`: loss, accuracy, AdamW, warm-up then cosine).

Every step of an episode's search is one sample: the policy's inputs (:mod:`marple_agents.beliefs.policy`)
built from the true goal and the agent's true belief at that step, and the action it took. As MMToM-QA's
training set, the episodes carry no question: the policy learns how searchers act, not how questions are
answered. Whole episodes are held out for validation. A few hundred episodes of the training houses train
the small preset on a CPU in a few minutes.
"""

from __future__ import annotations

import json
import logging
import time
import warnings
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from marple_agents import config as settings
from marple_agents.beliefs.policy import BeliefPolicy, BeliefPolicyNet, belief_marks, last_code, policy_vision
from marple_agents.training.module import PolicyModule, soft_cross_entropy
from marple_agents.training.train import quiet_lightning
from marple_gym.beliefs.episodes import SearchEpisode
from marple_gym.world.actions import NUM_ACTIONS

log = logging.getLogger(__name__)
DEFAULT_STEPS = 1500
"""Optimizer steps of a training run by default (the small preset's batches of 32 samples)."""


@dataclass
class BeliefSamples:
    """Search steps as policy inputs and the actions taken (see the module docs)."""

    vision: np.ndarray  # (N, H, W, 8) uint8
    marks: np.ndarray  # (N, H, W) uint8
    goal: np.ndarray  # (N,) int64
    last: np.ndarray  # (N,) int64
    action: np.ndarray  # (N,) int64
    episode: np.ndarray  # (N,) int64: which episode each came from

    def __len__(self) -> int:
        return len(self.action)

    def select(self, mask: np.ndarray) -> BeliefSamples:
        return BeliefSamples(*(getattr(self, f)[mask] for f in self.__dataclass_fields__))


def episode_samples(episode: SearchEpisode, number: int = 0) -> BeliefSamples:
    """The samples of one episode's search (``number`` names the episode in :attr:`BeliefSamples.episode`)."""
    trace = episode.trace()
    house, goal = trace.house, episode.goal_code
    end = episode.found if episode.found >= 0 else episode.length
    steps = range(episode.search_start, end)
    beliefs = trace.beliefs(goal, episode.prior)
    return BeliefSamples(
        np.stack([policy_vision(house, trace.states[t]) for t in steps]).reshape(
            len(steps), house.height, house.width, -1
        ),
        np.stack([belief_marks(house, beliefs[t]) for t in steps]).reshape(len(steps), house.height, house.width),
        np.full(len(steps), goal, dtype=np.int64),
        np.array([last_code(trace.last_outcome(t)) for t in steps], dtype=np.int64),
        episode.actions[episode.search_start : end, episode.searcher].astype(np.int64),
        np.full(len(steps), number, dtype=np.int64),
    )


def collect_samples(episodes: Iterable[SearchEpisode]) -> BeliefSamples:
    """The samples of many episodes (all in houses of one size)."""
    parts = [episode_samples(e, i) for i, e in enumerate(episodes)]
    parts = [p for p in parts if len(p)]
    if not parts:
        raise ValueError("no search steps to learn from")
    return BeliefSamples(*(np.concatenate([getattr(p, f) for p in parts]) for f in BeliefSamples.__dataclass_fields__))


class _Table(Dataset):
    """Samples as tensors, each batch gathered with one index per tensor."""

    def __init__(self, samples: BeliefSamples) -> None:
        targets = np.eye(NUM_ACTIONS, dtype=np.float32)[samples.action]
        arrays = {
            "vision": samples.vision,
            "marks": samples.marks,
            "goal": samples.goal,
            "last": samples.last,
            "targets": targets,
            "count": np.ones(len(samples), dtype=np.int64),
        }
        self.tensors = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items()}

    def __len__(self) -> int:
        return len(self.tensors["count"])

    def __getitems__(self, indices: list[int]) -> dict[str, torch.Tensor]:
        index = torch.as_tensor(indices)
        return {k: v.index_select(0, index) for k, v in self.tensors.items()}


class BeliefPolicyModule(PolicyModule):
    """The project's policy module with the belief policy's network and inputs."""

    def __init__(self, model: dict[str, Any], train: dict[str, Any]) -> None:
        super().__init__(model, train)
        self.net = BeliefPolicyNet(self.model_config)

    def _losses(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        logits = self.net(batch["vision"], batch["marks"], batch["goal"], batch["last"])
        loss = soft_cross_entropy(logits, batch["targets"])
        hit = batch["targets"].gather(1, logits.argmax(dim=1, keepdim=True))[:, 0]
        return loss, hit, loss.new_zeros(())


@dataclass
class BeliefTrainResult:
    """What a training run of the belief policy produced."""

    checkpoint: Path
    val_accuracy: float
    train_seconds: float
    steps: int
    train_samples: int
    val_samples: int
    config: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "checkpoint": str(self.checkpoint)}


def train_belief_policy(
    episodes: Iterable[SearchEpisode],
    out_dir: str | Path,
    *,
    preset: str = "small",
    max_steps: int = DEFAULT_STEPS,
    val_fraction: float = 0.1,
    seed: int = 0,
    progress: bool = False,
    accelerator: str = "cpu",
    threads: int | None = 1,
    **overrides: Any,
) -> BeliefTrainResult:
    """Train a belief policy on ``episodes`` and write ``out_dir/belief-policy.pt`` (and ``metrics.json``).

    The budget is ``max_steps`` optimizer steps of the preset's batch size: the same seed, episodes and
    machine give the same weights. ``threads``: torch's CPU threads (one by default: the small network's
    batches gain nothing from more, and threads that wait on a busy core spin; None leaves torch's setting).
    ``overrides`` set any :class:`~marple_agents.config.ModelConfig` or :class:`~marple_agents.config.TrainConfig`
    field."""
    if threads is not None:
        torch.set_num_threads(threads)
    quiet_lightning(progress)
    warnings.filterwarnings("ignore", message=r".*`validation_step` but have no `val_dataloader`.*")
    model_cfg, train_cfg = settings.preset(preset, "vision", **overrides)
    train_cfg = replace(train_cfg, max_steps=max_steps, val_fraction=val_fraction)
    L.seed_everything(seed, workers=True, verbose=False)
    samples = collect_samples(episodes)
    rng = np.random.default_rng(seed)
    numbers = np.unique(samples.episode)
    held = rng.permutation(numbers)[: max(1, round(val_fraction * len(numbers)))]
    val_mask = np.isin(samples.episode, held)
    train, val = samples.select(~val_mask), samples.select(val_mask)
    # Batches drawn with replacement for as long as the step budget lasts (one endless epoch).
    sampler = torch.utils.data.RandomSampler(
        range(len(train)),
        replacement=True,
        num_samples=train_cfg.max_steps * train_cfg.batch_size,
        generator=torch.Generator().manual_seed(seed),
    )
    loader = DataLoader(_Table(train), batch_size=train_cfg.batch_size, sampler=sampler, collate_fn=_whole)
    module = BeliefPolicyModule(model_cfg.to_dict(), asdict(train_cfg))
    trainer = L.Trainer(
        accelerator=accelerator,
        devices=1,
        max_epochs=-1,
        max_steps=train_cfg.max_steps,
        val_check_interval=None,
        check_val_every_n_epoch=None,
        limit_val_batches=0,
        gradient_clip_val=1.0,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=progress,
        enable_model_summary=False,
        num_sanity_val_steps=0,
    )
    started = time.perf_counter()
    trainer.fit(module, train_dataloaders=loader)
    seconds = time.perf_counter() - started
    accuracy = _accuracy(module.net, val)
    out = Path(out_dir)
    result = BeliefTrainResult(
        out / "belief-policy.pt",
        accuracy,
        seconds,
        trainer.global_step,
        len(train),
        len(val),
        {"model": model_cfg.to_dict(), "train": asdict(train_cfg), "preset": preset, "seed": seed},
    )
    meta = json.loads(json.dumps({k: v for k, v in result.to_json().items() if k != "checkpoint"}))
    BeliefPolicy(module.net.cpu(), model_cfg, meta).save(result.checkpoint)
    (out / "metrics.json").write_text(json.dumps(result.to_json(), indent=1))
    log.info("belief policy: held-out accuracy %.3f after %d steps (%.0f s)", accuracy, result.steps, seconds)
    return result


def _whole(batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The collate function for batches the dataset already assembled."""
    return batch


@torch.no_grad()
def _accuracy(net: BeliefPolicyNet, samples: BeliefSamples) -> float:
    """The share of held-out steps whose action is the network's most likely one."""
    if not len(samples):
        return float("nan")
    net.eval()
    policy = BeliefPolicy(net, settings.ModelConfig(), {})
    p = policy.probabilities(samples.vision, samples.marks, samples.goal, samples.last)
    net.train()
    return float((p.argmax(axis=1) == samples.action).mean())
