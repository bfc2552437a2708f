"""Training the learned model on expectation trials and rating surprise with it (the ToMnet-G analogue).

::

    from marple_agents.tomnet import ToMnetConfig, train_tomnet

    rater = train_tomnet(train_trials, ToMnetConfig(epochs=8), device="auto")   # expected tests only
    ratings = rate_trials(rater, test_trials)                                   # marple_eval.expectations
    rater.save("tomnet.pt")

The device is the project's setting (:func:`marple_agents.device.resolve_device`:
``auto``, ``cpu``, ``cuda``, ``cuda:N``, or a ``torch.device``); training is
seeded (``config.seed``) and the same on a CPU run after run.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader

from marple_agents.checkpoints import CheckpointError
from marple_agents.device import kind, lightning_placement, resolve_device
from marple_agents.tomnet.features import stack, trial_features
from marple_agents.tomnet.network import INPUTS, ToMnet, ToMnetConfig, ToMnetModule, surprise
from marple_eval.expectations.methods import ExpectationMethod
from marple_gym.expectations.trial import Trial, TrialView

Item = tuple[list[tuple[np.ndarray, np.ndarray]], list[tuple[np.ndarray, np.ndarray]]]


def items(trials: Iterable[Trial]) -> list[Item]:
    """Each trial's features with its expected test only (what training sees)."""
    return [trial_features(t.view(["expected"])) for t in trials]


def collate(batch: Sequence[Item]) -> dict[str, torch.Tensor]:
    """Trials padded into one batch (each with one test: its first)."""
    most = max(len(fam) for fam, _ in batch)
    longest = max(len(a) for fam, _ in batch for _, a in fam)
    shape = (len(batch), most, longest)
    fam_states = np.zeros(shape + next(iter(batch))[0][0][0].shape[1:], dtype=np.float32)
    fam_actions = np.full(shape, -1, dtype=np.int64)
    fam_mask = np.zeros(shape, dtype=bool)
    for i, (fam, _) in enumerate(batch):
        states, actions, mask = stack(fam)
        fam_states[i, : len(fam), : states.shape[1]] = states
        fam_actions[i, : len(fam), : actions.shape[1]] = actions
        fam_mask[i, : len(fam), : mask.shape[1]] = mask
    test_states, test_actions, test_mask = stack([tests[0] for _, tests in batch])
    return {
        "fam_states": torch.from_numpy(fam_states),
        "fam_actions": torch.from_numpy(fam_actions),
        "fam_mask": torch.from_numpy(fam_mask),
        "test_states": torch.from_numpy(test_states),
        "test_actions": torch.from_numpy(test_actions),
        "test_mask": torch.from_numpy(test_mask),
    }


def train_tomnet(
    trials: Sequence[Trial],
    config: ToMnetConfig | None = None,
    device: str | torch.device = "auto",
    validation: Sequence[Trial] = (),
    progress: bool = False,
) -> ToMnetMethod:
    """A model trained on the expected tests of ``trials`` (see module docs)."""
    if not trials:
        raise ValueError("no trials to train on")
    config = config or ToMnetConfig()
    device = resolve_device(device)
    L.seed_everything(config.seed, workers=True, verbose=False)
    generator = torch.Generator().manual_seed(config.seed)
    train = DataLoader(items(trials), config.batch_size, shuffle=True, collate_fn=collate, generator=generator)
    val = DataLoader(items(validation), config.batch_size, collate_fn=collate) if validation else None
    module = ToMnetModule(config.to_dict())
    accelerator, devices = lightning_placement(device)
    trainer = L.Trainer(
        accelerator=accelerator,
        devices=devices,
        max_epochs=config.epochs,
        deterministic=kind(device) == "cpu",
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=progress,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        log_every_n_steps=max(1, min(10, len(train))),
    )
    trainer.fit(module, train, val)
    return ToMnetMethod(module.net, config, device)


class ToMnetMethod(ExpectationMethod):
    """Rates a test's surprise as the mean negative log-likelihood the trained net gives its visible actions."""

    name = "tomnet"

    def __init__(self, net: ToMnet, config: ToMnetConfig, device: str | torch.device = "cpu") -> None:
        self.device = resolve_device(device)
        self.net = net.to(self.device).eval()
        self.config = config

    def settings(self) -> dict:
        return {**super().settings(), "config": self.config.to_dict(), "device": kind(self.device)}

    @torch.no_grad()
    def rate(self, view: TrialView) -> list[float]:
        fam, tests = trial_features(view)
        batch = collate([(fam, [t]) for t in tests])
        batch = {k: v.to(self.device) for k, v in batch.items()}
        logits = self.net(*(batch[k] for k in INPUTS))
        return surprise(logits.float(), batch["test_actions"]).cpu().tolist()

    def save(self, path: str | os.PathLike) -> Path:
        """Write the weights and the config (a plain dict: loadable with ``weights_only``)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"config": self.config.to_dict(), "state_dict": self.net.state_dict()}, path)
        return path

    @classmethod
    def load(cls, checkpoint: str | os.PathLike, device: str | torch.device = "auto") -> ToMnetMethod:
        """The method of :meth:`save`'s file (:class:`~marple_agents.checkpoints.CheckpointError`, naming the file,
        for one that is not: missing, corrupt, another kind of checkpoint, or code rather than tensors)."""
        if not Path(checkpoint).is_file():
            raise CheckpointError(f"{checkpoint}: no such ToMnet checkpoint")
        try:
            saved = torch.load(checkpoint, map_location="cpu", weights_only=True)
            config = ToMnetConfig(**saved["config"])
            net = ToMnet(config.width, config.character)
            net.load_state_dict(saved["state_dict"])
        except Exception as exc:  # torch's reader and the config fail on foreign files with any error
            raise CheckpointError(
                f"{checkpoint}: not a ToMnet checkpoint written by ToMnetMethod.save ({type(exc).__name__}: {str(exc)[:200]})"
            ) from None
        return cls(net, config, device)
