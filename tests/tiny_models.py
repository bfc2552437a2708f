"""Tiny learned agent models for tests: the size, random valid inputs, a learnable dataset, a short training run,
a sharpened untrained policy, and a benchmark preset of them. Needs torch and lightning: test modules call ``pytest.importorskip`` first."""

from __future__ import annotations

import numpy as np
import torch

from marple.benchmark.presets import BenchmarkPreset
from marple_agents import AgentPolicy, train_policy
from marple_agents.config import ModelConfig
from marple_agents.networks import SUBGOAL_SIZES, build_model
from marple_gym.datasets import Samples, Sizes

TINY = {
    "width": 32,
    "depth": 2,
    "heads": 2,
    "mlp_ratio": 2,
    "head_hidden": 32,
    "decoder_hidden": 16,
    "readout_depth": 1,
    "glimpse": 0,
}
"""A model small enough to train in seconds on the CPU."""


TINY_BENCHMARK = BenchmarkPreset(
    "tiny",
    Sizes(2, 2, 3, 1),
    trials=2,
    model="small",
    rollouts=3,
    splits=("in",),
    train={"max_steps": 4},
    uncut=("uniform", "vision"),
    ideal_rollouts=5,
)
"""A benchmark preset that runs every stage in seconds on the CPU (two houses, two trials, four steps)."""


def tiny_config(conditioning: str = "vision", **changes) -> ModelConfig:
    return ModelConfig(conditioning=conditioning, **{**TINY, **changes})


def random_vision(rng: np.random.Generator, n: int, h: int = 7, w: int = 9) -> np.ndarray:
    """Arrays with valid codes and one agent per array."""
    v = np.zeros((n, h, w, 8), dtype=np.uint8)
    v[..., 0] = rng.integers(0, 7, size=(n, h, w))
    v[..., 1] = rng.integers(0, 25, size=(n, h, w))
    v[..., 3] = rng.integers(0, 83, size=(n, h, w))
    ys, xs = rng.integers(0, h, size=n), rng.integers(0, w, size=n)
    v[np.arange(n), ys, xs, 6] = 1
    v[np.arange(n), ys, xs, 7] = rng.integers(1, 5, size=n)
    return v


def random_subgoal(rng: np.random.Generator, n: int) -> np.ndarray:
    sizes = [SUBGOAL_SIZES[f] for f in ("action", "object", "furniture", "room")]
    return np.stack([rng.integers(0, s, size=n) for s in sizes], axis=1).astype(np.int64)


def synthetic_samples(seed: int = 0, houses: int = 4, per_house: int = 48) -> Samples:
    """The action is the agent's direction (0..3), a function of the agent's own cell: learnable in seconds."""
    rng = np.random.default_rng(seed)
    n = houses * per_house
    vision = random_vision(rng, n, 6, 6)
    direction = vision[..., 7].max(axis=(1, 2)).astype(np.int64) - 1
    return Samples(
        vision=vision,
        action=direction,
        subgoal=np.tile([3, 22, 4, 2], (n, 1)),  # "pick up the clothes on the bed in the Bedroom"
        audio=np.ones(n, dtype=np.int64),
        house=np.repeat([f"h{i}" for i in range(houses)], per_house),
        episode=np.repeat(np.arange(n // 8), 8),
    )


def train_tiny(tmp_path, conditioning="vision", seed=0, epochs=30, **kw):
    """Train a tiny model on :func:`synthetic_samples` (or ``samples=``) on the CPU, into ``tmp_path``."""
    return train_policy(
        None,
        model=conditioning,
        out_dir=tmp_path,
        seed=seed,
        max_epochs=epochs,
        accelerator="cpu",
        devices=1,
        progress=False,
        samples=kw.pop("samples", synthetic_samples()),
        batch_size=32,
        lr=3e-3,
        **{**TINY, **kw},
    )


def sharp_policy(conditioning: str, precision: str = "auto", seed: int = 0, **size) -> AgentPolicy:
    """A small untrained policy with a sharpened head: peaked distributions, as a trained one gives."""
    cfg = tiny_config(conditioning, **{"width": 64, "depth": 3, "heads": 4, **size})
    torch.manual_seed(seed)
    net = build_model(cfg)
    with torch.no_grad():
        net.head[-1].weight.mul_(100)
    return AgentPolicy(net, cfg, precision=precision)
