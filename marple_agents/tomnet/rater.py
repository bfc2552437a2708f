"""Training the learned model on expectation trials and rating surprise with it (the ToMnet-G analogue).

::

    from marple_agents.tomnet import ToMnetConfig, train_tomnet

    rater = train_tomnet(train_trials, ToMnetConfig(epochs=8), device="auto")   # expected tests only
    ratings = rate_trials(rater, test_trials)                                   # marple_eval.expectations
    rater.save("tomnet.pt")

The device is the project's setting (:func:`marple_agents.device.resolve_device`:
``auto``, ``cpu``, ``cuda``, ``cuda:N``, or a ``torch.device``); training is
seeded (``config.seed``) and the same on a CPU run after run, on ``threads``
CPU threads (1 by default: its small batches gain nothing from more, measured
on the default set). With ``ToMnetConfig(familiarisation=False)`` the model
sees the test alone: :class:`TestOnlyToMnetMethod`, the shortcut panel's
learned rule.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import lightning as L
import numpy as np
import torch
from lightning.pytorch.callbacks import TQDMProgressBar
from torch.utils.data import DataLoader

from marple_agents.checkpoints import CheckpointError
from marple_agents.device import kind, lightning_placement, resolve_device
from marple_agents.tomnet.features import stack, trial_features
from marple_agents.tomnet.network import INPUTS, ToMnet, ToMnetConfig, ToMnetModule, network_of, surprise
from marple_eval.expectations.methods import ExpectationMethod
from marple_gym.expectations.trial import Trial, TrialView

Item = tuple[list[tuple[np.ndarray, np.ndarray]], list[tuple[np.ndarray, np.ndarray]]]


def items(trials: Iterable[Trial], familiarisation: bool = True) -> list[Item]:
    """Each trial's features with its expected test only (what training sees)."""
    return [trial_features(t.view(["expected"]), familiarisation) for t in trials]


def collate(batch: Sequence[Item]) -> dict[str, torch.Tensor]:
    """Trials padded into one batch (each with one test: its first; no familiarisation: an empty one)."""
    most = max(len(fam) for fam, _ in batch)
    longest = max((len(a) for fam, _ in batch for _, a in fam), default=0)
    shape = (len(batch), most, longest)
    fam_states = np.zeros(shape + batch[0][1][0][0].shape[1:], dtype=np.float32)
    fam_actions = np.full(shape, -1, dtype=np.int64)
    fam_mask = np.zeros(shape, dtype=bool)
    for i, (fam, _) in enumerate(batch):
        if not fam:
            continue
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
    threads: int = 1,
) -> ToMnetMethod:
    """A model trained on the expected tests of ``trials`` on ``threads`` CPU threads (see module docs)."""
    if not trials:
        raise ValueError("no trials to train on")
    config = config or ToMnetConfig()
    with torch_threads(threads):
        return _trained(trials, config, resolve_device(device), validation, progress)


@contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """torch on ``threads`` CPU threads within the block, as it was after it. Its small batches gain nothing from
    more threads; on a busy machine more spin and cost many times the CPU seconds (rating 130 trials: 1.7 CPU s on
    one thread, 22 on the default two)."""
    before = torch.get_num_threads()
    if before != threads:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        if before != threads:
            torch.set_num_threads(before)


def _trained(trials, config: ToMnetConfig, device: torch.device, validation, progress: bool) -> ToMnetMethod:
    L.seed_everything(config.seed, workers=True, verbose=False)
    generator = torch.Generator().manual_seed(config.seed)
    seen = config.familiarisation
    train = DataLoader(items(trials, seen), config.batch_size, shuffle=True, collate_fn=collate, generator=generator)
    val = DataLoader(items(validation, seen), config.batch_size, collate_fn=collate) if validation else None
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
        # tqdm's bar: it is written as training goes to a file or pipe too (Rich's draws only on a terminal).
        callbacks=[TQDMProgressBar()] if progress else None,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        log_every_n_steps=max(1, min(10, len(train))),
    )
    trainer.fit(module, train, val)
    return method_of(module.net, config, device)


def method_of(net: ToMnet, config: ToMnetConfig, device: str | torch.device = "cpu") -> ToMnetMethod:
    """The method of a trained ``net``: a :class:`TestOnlyToMnetMethod` where it reads no familiarisation."""
    return (ToMnetMethod if config.familiarisation else TestOnlyToMnetMethod)(net, config, device)


class ToMnetMethod(ExpectationMethod):
    """Rates a test's surprise as the mean negative log-likelihood the trained net gives its visible actions."""

    name = "tomnet"
    role = "method"
    reads = frozenset({"familiarisation", "test"})

    def __init__(self, net: ToMnet, config: ToMnetConfig, device: str | torch.device = "cpu") -> None:
        self.device = resolve_device(device)
        self.net = net.to(self.device).eval()
        self.config = config

    def settings(self) -> dict:
        return {**super().settings(), "config": self.config.to_dict(), "device": kind(self.device)}

    @torch.no_grad()
    def rate(self, view: TrialView) -> list[float]:
        fam, tests = trial_features(view, self.config.familiarisation)
        batch = collate([(fam, [t]) for t in tests])
        batch = {k: v.to(self.device) for k, v in batch.items()}
        with torch_threads(1):
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
            net = network_of(config)
            net.load_state_dict(saved["state_dict"])
        except Exception as exc:  # torch's reader and the config fail on foreign files with any error
            raise CheckpointError(
                f"{checkpoint}: not a ToMnet checkpoint written by ToMnetMethod.save ({type(exc).__name__}: {str(exc)[:200]})"
            ) from None
        method = method_of(net, config, device)
        if not isinstance(method, cls):
            raise CheckpointError(f"{checkpoint}: a ToMnet checkpoint of {method.name}, not of {cls.name}")
        return method


class TestOnlyToMnetMethod(ToMnetMethod):
    """The shortcut panel's learned rule: the same network and training, without the familiarisation."""

    __test__ = False  # not a pytest test class
    name = "tomnet-test-only"
    role = "shortcut"
    reads = frozenset({"test"})
