"""The inference interface of a trained agent model: batches of states in, action distributions out.

::

    policy = load_policy("runs/laundry-A-vision/policy.pt", device="cpu")
    probs = policy.action_probs(vision)              # (B, 10) float32
    probs = policy.action_probs(vision, subgoal)     # language-conditioned policies
    heads = policy.subgoal_probs(vision)             # their subgoal decoders, else None

Calls are batched and run under ``torch.inference_mode`` on the policy's
device, in its precision (bf16 autocast on a GPU by default, fp32 on the CPU);
inputs and outputs are numpy arrays. Monte Carlo rollouts call this thousands
of times with 20-1,100 states, so each call does one host-to-device copy, one
forward pass and one copy back; under the lockstep executor
(:mod:`marple_eval.lockstep`) the calls of many trials share that pass.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import torch

from marple_agents.checkpoints import load_checkpoint
from marple_agents.config import ModelConfig
from marple_agents.device import resolve_precision, use_tensor_cores
from marple_agents.inputs import SUBGOAL_FIELDS
from marple_agents.networks import SUBGOAL_SIZES, PolicyNet
from marple_agents.networks.encoder import EMBEDDED_CHANNELS
from marple_eval.lockstep import batched
from marple_eval.protocol import ModelFile
from marple_gym.evidence import channel_sizes
from marple_gym.world.state import NUM_CHANNELS

_CHANNEL_LIMITS = np.array([channel_sizes()[c] if c in EMBEDDED_CHANNELS else 256 for c in range(NUM_CHANNELS)])
_SUBGOAL_LIMITS = np.array([SUBGOAL_SIZES[f] for f in SUBGOAL_FIELDS])


class AgentPolicy:
    """A trained policy network, ready for inference on one device.

    ``precision`` is the number format of its forward passes (``auto``: bf16
    autocast with TF32 matmuls on CUDA devices that support it, fp32 elsewhere;
    see :mod:`marple_agents.device`). ``key`` names the weights (their digest when
    loaded by :func:`shared_policy`, then also ``digest``): calls of policies with
    one key may share a forward pass (:func:`marple_eval.lockstep.batched`), and
    policies with one digest share their answers (:func:`marple_agents.cache.policy_cache`).
    """

    def __init__(
        self,
        net: PolicyNet,
        config: ModelConfig,
        device: str | torch.device = "cpu",
        meta: dict[str, Any] | None = None,
        precision: str = "auto",
        key: str | None = None,
    ) -> None:
        self.device = torch.device(device)
        self.precision = resolve_precision(str(self.device), precision)
        if self.precision == "bf16":
            use_tensor_cores(str(self.device))
        self.net = net.to(self.device).eval()
        self.config = config
        self.meta = dict(meta or {})
        self.digest = key
        self.key = key or f"policy-{id(self)}"

    @property
    def conditioning(self) -> str:
        """``"vision"`` or ``"language"``."""
        return self.config.conditioning

    def _vision(self, vision: np.ndarray) -> np.ndarray:
        vision = np.asarray(vision)
        if vision.ndim != 4 or vision.shape[-1] != NUM_CHANNELS:
            raise ValueError(f"vision must be (B, H, W, {NUM_CHANNELS}), got {vision.shape}")
        if vision.dtype != np.uint8:
            if len(vision) and (vision.min() < 0 or (vision.reshape(-1, NUM_CHANNELS).max(0) >= 256).any()):
                raise ValueError("vision codes must be in 0..255")
            vision = vision.astype(np.uint8)
        if len(vision) and (vision.reshape(-1, NUM_CHANNELS).max(0) >= _CHANNEL_LIMITS).any():
            raise ValueError(f"vision codes out of range: channel maxima must stay below {_CHANNEL_LIMITS.tolist()}")
        return vision

    def _subgoal(self, subgoal: np.ndarray | None, batch: int) -> np.ndarray | None:
        if self.conditioning != "language":
            return None
        if subgoal is None:
            raise ValueError("a language-conditioned policy needs the current subgoal codes (B, 4)")
        subgoal = np.asarray(subgoal, dtype=np.int64)
        if subgoal.shape != (batch, len(SUBGOAL_FIELDS)):
            raise ValueError(f"subgoal must be ({batch}, {len(SUBGOAL_FIELDS)}), got {subgoal.shape}")
        if batch and ((subgoal < -1).any() or (subgoal >= _SUBGOAL_LIMITS).any()):
            raise ValueError(f"subgoal codes must be -1 (none) or below {_SUBGOAL_LIMITS.tolist()} per field")
        return subgoal

    def _tensor(self, arrays: list[np.ndarray]) -> torch.Tensor:
        joined = arrays[0] if len(arrays) == 1 else np.concatenate(arrays)
        return torch.from_numpy(np.ascontiguousarray(joined)).to(self.device, non_blocking=True)

    def _autocast(self):
        return torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.precision == "bf16")

    def action_probs(self, vision: np.ndarray, subgoal: np.ndarray | None = None) -> np.ndarray:
        """P(next action | vision[, subgoal]): (B, H, W, 8) uint8 and (B, 4) int64 codes -> (B, 10) float32."""
        vision = self._vision(vision)
        return batched(("act", self.key), self._act, (vision, self._subgoal(subgoal, len(vision))))

    def subgoal_probs(self, vision: np.ndarray) -> dict[str, np.ndarray] | None:
        """The language policy's decoders, P(current subgoal field | vision): ``{"action": (B, 10),
        "object": (B, 83), "furniture": (B, 25), "room": (B, 7)}``; None for a vision-only policy."""
        if self.conditioning != "language":
            return None
        return batched(("decode", self.key), self._decode, self._vision(vision))

    @torch.inference_mode()
    def _act(self, inputs: list[tuple[np.ndarray, np.ndarray | None]]) -> list[np.ndarray]:
        """Action distributions of several callers' inputs in one forward pass (``act`` alone: rollouts call
        this every step and have no use for the language net's decoders)."""
        v = self._tensor([vision for vision, _ in inputs])
        s = self._tensor([subgoal for _, subgoal in inputs]) if self.conditioning == "language" else None
        with self._autocast():
            logits = [self.net.act(v[k], None if s is None else s[k]) for k in _chunks(len(v))]
        probs = torch.cat(logits).float().softmax(dim=-1).cpu().numpy()
        return np.split(probs, np.cumsum([len(vision) for vision, _ in inputs])[:-1])

    @torch.inference_mode()
    def _decode(self, inputs: list[np.ndarray]) -> list[dict[str, np.ndarray]]:
        v = self._tensor(inputs)
        with self._autocast():
            parts = [self.net.decode(v[k]) for k in _chunks(len(v))]
        cuts = np.cumsum([len(vision) for vision in inputs])[:-1]
        fields = {
            f: np.split(torch.cat([p[f] for p in parts]).float().softmax(dim=-1).cpu().numpy(), cuts) for f in parts[0]
        }
        return [{f: split[k] for f, split in fields.items()} for k in range(len(inputs))]

    def __repr__(self) -> str:
        return (
            f"AgentPolicy({self.conditioning}, width={self.config.width}, depth={self.config.depth}, "
            f"device={self.device}, precision={self.precision})"
        )


FORWARD_ROWS = 2048
"""The most rows one forward pass takes: a lockstep round may gather tens of thousands, and a paper-size model's
activations for them would not fit a GPU."""


def _chunks(rows: int) -> list[slice]:
    return [slice(start, start + FORWARD_ROWS) for start in range(0, max(rows, 1), FORWARD_ROWS)]


def load_policy(
    path: str | Path | BinaryIO, device: str | torch.device = "cpu", precision: str = "auto"
) -> AgentPolicy:
    """A policy from a checkpoint written by ``train_policy``, or its content (loaded safely, weights only)."""
    net, config, meta = load_checkpoint(path)
    return AgentPolicy(net, config, device, meta, precision)


SHARED_POLICIES = 8
"""How many loaded policies a process keeps for :func:`shared_policy` (a trial needs one per suspect)."""
_shared: OrderedDict[tuple[str, str, str], AgentPolicy] = OrderedDict()
_shared_lock = threading.Lock()


def shared_policy(resource: Any, device: str | torch.device = "cpu", precision: str = "auto") -> Any:
    """The policy an agent-model resource stands for, one copy per process and device for the same weights.

    ``resource`` is a loaded policy (anything with ``action_probs``: returned as
    it is), a :class:`~marple_eval.protocol.ModelFile` (a checkpoint's content:
    loaded once per process, device and precision, by its digest, so threads
    scoring trials side by side share one copy of a large model), or a path.
    """
    if hasattr(resource, "action_probs"):
        return resource
    if not isinstance(resource, ModelFile):
        return load_policy(resource, device, precision)
    key = (resource.digest, str(device), precision)
    with _shared_lock:  # threads setting up the same agent model wait for one load
        if key not in _shared:
            net, config, meta = load_checkpoint(io.BytesIO(resource.content))
            _shared[key] = AgentPolicy(net, config, device, meta, precision, key=resource.digest)
            while len(_shared) > SHARED_POLICIES:
                _shared.popitem(last=False)
        _shared.move_to_end(key)
        return _shared[key]
