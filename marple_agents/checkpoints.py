"""Policy checkpoints that load safely: tensors and plain values only.

A checkpoint is one ``torch.save`` file holding a dict of plain types (format
name, version, the model config, metadata) and the state dict. It is read back
with ``torch.load(weights_only=True)``, which refuses anything but tensors and
plain containers, so a checkpoint cannot run code. The model is rebuilt from
the config and must match the weights exactly.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path
from typing import Any, BinaryIO

import torch

from marple_agents.config import ConfigError, ModelConfig
from marple_agents.models import PolicyNet, build_model
from marple_gym.errors import MarpleError

FORMAT = "marple-policy"
VERSION = 1


class CheckpointError(MarpleError, OSError):
    """A policy checkpoint that is missing, corrupt, or not compatible with this version."""


def save_checkpoint(path: str | Path, net: PolicyNet, config: ModelConfig, meta: dict[str, Any] | None = None) -> Path:
    """Write ``net``'s weights with its config and plain ``meta`` (atomically: a crash leaves no half file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": FORMAT,
        "version": VERSION,
        "config": config.to_dict(),
        "meta": dict(meta or {}),
        "state_dict": {k: v.detach().cpu().contiguous() for k, v in net.state_dict().items()},
    }
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    os.close(fd)
    try:
        torch.save(payload, tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def read_checkpoint(path: str | Path | BinaryIO) -> dict[str, Any]:
    """The checked payload of a checkpoint file, or of its content in a file object (weights on the CPU)."""
    source = path
    if hasattr(path, "read"):
        path = "agent model"  # handed over by content (see marple_eval.protocol.ModelFile): no name to show
    else:
        path = source = Path(path)
        if not path.is_file():
            raise CheckpointError(f"{path}: no such policy checkpoint; train one with `marple train`")
    try:
        payload = torch.load(source, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, OSError) as exc:
        raise CheckpointError(
            f"{path}: not a readable policy checkpoint (corrupt, truncated or unsafe): {exc}"
        ) from exc
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a MARPLE policy checkpoint (expected format {FORMAT!r})")
    if payload.get("version") != VERSION:
        raise CheckpointError(
            f"{path}: checkpoint version {payload.get('version')!r}; this version of marple_agents reads {VERSION}"
        )
    if not isinstance(payload.get("config"), dict) or not isinstance(payload.get("state_dict"), dict):
        raise CheckpointError(f"{path}: checkpoint lacks its config or weights")
    return payload


def load_checkpoint(path: str | Path | BinaryIO) -> tuple[PolicyNet, ModelConfig, dict[str, Any]]:
    """Rebuild the network a checkpoint describes and load its weights: (net, config, meta)."""
    payload = read_checkpoint(path)
    try:
        config = ModelConfig.from_dict(payload["config"])
    except (ConfigError, TypeError) as exc:
        raise CheckpointError(f"{path}: incompatible model config: {exc}") from exc
    net = build_model(config)
    try:
        net.load_state_dict(payload["state_dict"], strict=True)
    except RuntimeError as exc:
        raise CheckpointError(f"{path}: weights do not match the model its config describes: {exc}") from exc
    return net, config, dict(payload.get("meta", {}))
