"""The inference interface of a trained agent model: batches of states in, action distributions out.

::

    policy = load_policy("runs/laundry-A-vision/policy.pt", device="cpu")
    probs = policy.action_probs(vision)              # (B, 10) float32
    probs = policy.action_probs(vision, subgoal)     # language-conditioned policies
    heads = policy.subgoal_probs(vision)             # their subgoal decoders, else None

Calls are batched and run under ``torch.inference_mode`` on the policy's
device; inputs and outputs are numpy arrays. Monte Carlo rollouts call this
thousands of times with 20-100 states, so each call does one host-to-device
copy, one forward pass and one copy back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import torch

from marple_agents.checkpoints import load_checkpoint
from marple_agents.config import ModelConfig
from marple_agents.inputs import SUBGOAL_FIELDS
from marple_agents.models import SUBGOAL_SIZES, PolicyNet
from marple_agents.models.encoder import EMBEDDED_CHANNELS
from marple_gym.evidence import channel_sizes
from marple_gym.world.state import NUM_CHANNELS

_CHANNEL_LIMITS = np.array([channel_sizes()[c] if c in EMBEDDED_CHANNELS else 256 for c in range(NUM_CHANNELS)])
_SUBGOAL_LIMITS = np.array([SUBGOAL_SIZES[f] for f in SUBGOAL_FIELDS])


def resolve_device(device: str | torch.device) -> torch.device:
    """``"auto"`` picks CUDA when available, else the CPU; anything else is passed to ``torch.device``."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


class Policy:
    """A trained policy network, ready for inference on one device."""

    def __init__(
        self,
        net: PolicyNet,
        config: ModelConfig,
        device: str | torch.device = "cpu",
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.device = resolve_device(device)
        self.net = net.to(self.device).eval()
        self.config = config
        self.meta = dict(meta or {})

    @property
    def conditioning(self) -> str:
        """``"vision"`` or ``"language"``."""
        return self.config.conditioning

    def _vision(self, vision: np.ndarray) -> torch.Tensor:
        vision = np.asarray(vision)
        if vision.ndim != 4 or vision.shape[-1] != NUM_CHANNELS:
            raise ValueError(f"vision must be (B, H, W, {NUM_CHANNELS}), got {vision.shape}")
        if vision.dtype != np.uint8:
            if len(vision) and (vision.min() < 0 or (vision.reshape(-1, NUM_CHANNELS).max(0) >= 256).any()):
                raise ValueError("vision codes must be in 0..255")
            vision = vision.astype(np.uint8)
        if len(vision) and (vision.reshape(-1, NUM_CHANNELS).max(0) >= _CHANNEL_LIMITS).any():
            raise ValueError(f"vision codes out of range: channel maxima must stay below {_CHANNEL_LIMITS.tolist()}")
        return torch.from_numpy(np.ascontiguousarray(vision)).to(self.device, non_blocking=True)

    def _subgoal(self, subgoal: np.ndarray | None, batch: int) -> torch.Tensor:
        if subgoal is None:
            raise ValueError("a language-conditioned policy needs the current subgoal codes (B, 4)")
        subgoal = np.asarray(subgoal, dtype=np.int64)
        if subgoal.shape != (batch, len(SUBGOAL_FIELDS)):
            raise ValueError(f"subgoal must be ({batch}, {len(SUBGOAL_FIELDS)}), got {subgoal.shape}")
        if batch and ((subgoal < -1).any() or (subgoal >= _SUBGOAL_LIMITS).any()):
            raise ValueError(f"subgoal codes must be -1 (none) or below {_SUBGOAL_LIMITS.tolist()} per field")
        return torch.from_numpy(subgoal).to(self.device, non_blocking=True)

    @torch.inference_mode()
    def action_probs(self, vision: np.ndarray, subgoal: np.ndarray | None = None) -> np.ndarray:
        """P(next action | vision[, subgoal]): (B, H, W, 8) uint8 and (B, 4) int64 codes -> (B, 10) float32."""
        v = self._vision(vision)
        s = self._subgoal(subgoal, len(v)) if self.conditioning == "language" else None
        # ``act`` alone: rollouts call this every step and have no use for the language net's decoders.
        return self.net.act(v, s).float().softmax(dim=-1).cpu().numpy()

    @torch.inference_mode()
    def subgoal_probs(self, vision: np.ndarray) -> dict[str, np.ndarray] | None:
        """The language policy's decoders, P(current subgoal field | vision): ``{"action": (B, 10),
        "object": (B, 83), "furniture": (B, 25), "room": (B, 7)}``; None for a vision-only policy."""
        if self.conditioning != "language":
            return None
        decoded = self.net.decode(self._vision(vision))
        return {f: logits.float().softmax(dim=-1).cpu().numpy() for f, logits in decoded.items()}

    def __repr__(self) -> str:
        return (
            f"Policy({self.conditioning}, width={self.config.width}, depth={self.config.depth}, device={self.device})"
        )


def load_policy(path: str | Path | BinaryIO, device: str | torch.device = "cpu") -> Policy:
    """A policy from a checkpoint written by ``train_policy``, or its content (loaded safely, weights only)."""
    net, config, meta = load_checkpoint(path)
    return Policy(net, config, device, meta)
