"""Policy checkpoints that load safely: tensors and plain values only.

A checkpoint is one ``torch.save`` file holding a dict of plain types (format
name, version, the model config, metadata) and the state dict. It is read back
with ``torch.load(weights_only=True)``, which refuses anything but tensors and
plain containers, so a checkpoint cannot run code. The model is rebuilt from
the config and must match the weights exactly.

Reading is strict: the config is checked field by field, and its network size
against a limit, before anything is built; ``meta`` must be an object; the
weights must hash to the SHA-256 recorded when they were saved (version 2), be
finite, and have the names and shapes of the network the config describes; a
version field that is not this version's (or version 1's, which has no
checksum) is refused. Every problem raises :class:`CheckpointError` naming the
file, so that :func:`read_checkpoint` alone tells whether a file will load.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
import re
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any, BinaryIO

import torch

from marple_agents.config import CONDITIONINGS, POSITIONS, ModelConfig, ModelConfigError
from marple_agents.networks import PolicyNet, build_model
from marple_gym.errors import MarpleError
from marple_gym.files import atomic_write
from marple_gym.missions.tables import check_tables, table_fingerprints
from marple_gym.validation import Fields, describe, is_int, message_error

log = logging.getLogger(__name__)

FORMAT = "marple-policy"
VERSION = 2  # 2: a SHA-256 of the weights; version 1 files (without it) are still read
PAYLOAD_KEYS = ("format", "version", "config", "meta", "tables", "state_dict", "weights_sha256")
MAX_PARAMETERS = 2_000_000_000
"""Largest network a checkpoint may describe (8 GB of float32; the paper's ViT has about 0.2 billion)."""
CHECKED_ON_CPU = 10_000_000
"""The largest network whose checkpoint is checked against a copy built on the CPU (milliseconds for the small
preset). A larger one is built on the meta device (no memory), whose first weight initialisation in a process loads
torch's compiler: about 2 CPU seconds, in every process that reads a checkpoint."""
CONFIG_LIMITS = {  # (low, high) of each integer setting, checked before the network is built
    "width": (8, 16384),
    "depth": (1, 256),
    "heads": (1, 1024),
    "mlp_ratio": (1, 64),
    "head_layers": (1, 64),
    "head_hidden": (1, 65536),
    "decoder_hidden": (1, 65536),
    "readout_depth": (1, 256),
    "glimpse": (0, 64),
    "dropout": (0.0, 1.0),
}
CONFIG_CHOICES = {"conditioning": CONDITIONINGS, "positions": POSITIONS}


class CheckpointError(MarpleError, OSError):
    """A policy checkpoint that is missing, corrupt, or not compatible with this version."""


def save_checkpoint(path: str | Path, net: PolicyNet, config: ModelConfig, meta: dict[str, Any] | None = None) -> Path:
    """Write ``net``'s weights with its config and plain ``meta`` (atomically: a crash leaves no half file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state_dict = {k: v.detach().cpu().contiguous() for k, v in net.state_dict().items()}
    payload = {
        "format": FORMAT,
        "version": VERSION,
        "config": config.to_dict(),
        "meta": dict(meta or {}),
        "tables": table_fingerprints(),
        "state_dict": state_dict,
        "weights_sha256": weights_sha256(state_dict),
    }
    with atomic_write(path, "wb") as f:
        torch.save(payload, f)
    return path


def read_checkpoint(
    path: str | Path | BinaryIO,
    build: Callable[[ModelConfig], torch.nn.Module] = build_model,
    kind: str | None = None,
) -> dict[str, Any]:
    """The checked payload of a checkpoint file, or of its content in a file object (weights on the CPU).

    ``kind`` is the ``meta["kind"]`` the file must carry (``None``: a whodunit policy, which carries none), and
    its weights must fit the network ``build`` makes of its config.
    """
    source = path
    if hasattr(path, "read"):
        path = _name(path)
    else:
        path = source = Path(path)
        if not path.is_file():
            raise CheckpointError(f"{path}: no such policy checkpoint; train one with `marple train`")
    try:
        payload = torch.load(source, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        hostile = re.search(r"GLOBAL ([\w.]+)", str(exc))  # torch refused to import a name: the file would run code
        if hostile:
            raise CheckpointError(
                f"{path}: refused without loading it: it asks for Python code ({hostile.group(1)}), not only tensors "
                "and plain values, and could run it when loaded; only load checkpoints written by `marple train`"
            ) from None
        raise CheckpointError(f"{path}: not a policy checkpoint (corrupt, truncated or another kind of file)") from None
    except Exception as exc:  # torch's reader fails on arbitrary bytes with any error (IndexError, KeyError, ...)
        raise CheckpointError(
            f"{path}: not a policy checkpoint (corrupt, truncated or another kind of file: {type(exc).__name__})"
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a MARPLE policy checkpoint (expected format {FORMAT!r})")
    version = payload.get("version")
    if not is_int(version) or version not in (1, VERSION):  # is_int: true or 2.0 are not versions
        raise CheckpointError(
            f"{path}: version: checkpoint version {describe(version)}; this version of marple_agents reads 1 and "
            f"{VERSION}"
        )
    top = Fields(payload, "", message_error(CheckpointError), str(path))
    top.allow(PAYLOAD_KEYS).require("config", "state_dict")
    if version == 1 and top.has("weights_sha256"):
        raise top.fail(
            "version",
            f"checkpoint version 1 with a weights checksum, which only version {VERSION} writes: the version "
            "field was changed, or the file is not what it says",
        )
    top.mapping("config")
    given = top.mapping("meta", {}).get("kind")
    if given != kind:
        want, got = (str(k or "whodunit policy").replace("-", " ") for k in (kind, given))
        raise CheckpointError(f"{path}: not a {want} (a checkpoint of a {got})")
    _check_weights(top)
    check_tables(payload.get("tables"), str(path))
    _check_fit(read_model_config(payload["config"], str(path)), top, build)
    return payload


def _name(path: str | Path | BinaryIO) -> str:
    """How messages name a checkpoint."""
    # An agent model handed over by content (see marple_eval.protocol.ModelFile) has no name to show.
    return "agent model" if hasattr(path, "read") else str(path)


def weights_sha256(state_dict: dict[str, torch.Tensor]) -> str:
    """A SHA-256 over the names, dtypes, shapes and bytes of the tensors, in name order."""
    h = hashlib.sha256()
    for name in sorted(state_dict):
        tensor = state_dict[name].detach().cpu().contiguous()
        h.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        h.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def _check_weights(top: Fields) -> None:
    """Tensors only, matching their recorded checksum, and finite."""
    state_dict = top.mapping("state_dict")
    for name, tensor in state_dict.items():
        if not isinstance(tensor, torch.Tensor):
            raise top.fail(f"state_dict.{name}", f"expected a tensor, got {type(tensor).__name__}")
    recorded = top.get("weights_sha256")
    if recorded is None:
        if top.get("version") != 1:
            raise top.fail("weights_sha256", "missing: the weights cannot be verified")
        log.warning("%s: a version 1 checkpoint has no weight checksum; its weights are not verified", top.file)
    elif recorded != weights_sha256(state_dict):
        raise top.fail("state_dict", "the weights do not match their checksum (the file is corrupt or was modified)")
    for name, tensor in state_dict.items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise top.fail(f"state_dict.{name}", "weights are not finite (NaN or infinite values)")


def _check_fit(config: ModelConfig, top: Fields, build: Callable[[ModelConfig], torch.nn.Module]) -> None:
    """The weights are those of the network the config describes, name for name and shape for shape (compared
    with that network built: on the CPU up to :data:`CHECKED_ON_CPU` parameters, else on PyTorch's meta device)."""
    with torch.device("cpu" if estimated_parameters(config.to_dict()) <= CHECKED_ON_CPU else "meta"):
        wanted = {name: tuple(t.shape) for name, t in build(config).state_dict().items()}
    given = {name: tuple(t.shape) for name, t in top.mapping("state_dict").items()}
    problems = [f"missing {name}" for name in sorted(wanted.keys() - given.keys())]
    problems += [f"unexpected {name}" for name in sorted(given.keys() - wanted.keys())]
    problems += [
        f"{name} is {list(given[name])}, not {list(wanted[name])}"
        for name in sorted(wanted.keys() & given.keys())
        if given[name] != wanted[name]
    ]
    if problems:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        raise top.fail("state_dict", f"weights do not match the model its config describes: {shown}")


def read_model_config(data: Any, file: str) -> ModelConfig:
    """A :class:`ModelConfig` from a checkpoint's config, every field typed and in range, the size limited."""
    config = Fields(data, "config", message_error(CheckpointError), file)
    defaults = ModelConfig()
    config.allow(f.name for f in fields(ModelConfig))
    values = {f.name: _setting(config, f.name, getattr(defaults, f.name)) for f in fields(ModelConfig)}
    size = estimated_parameters(values)
    if size > MAX_PARAMETERS:
        raise config.fail("", f"describes a network of about {size:.3g} parameters; the limit is {MAX_PARAMETERS:.3g}")
    try:
        return ModelConfig(**values)
    except ModelConfigError as exc:
        raise config.fail("", f"incompatible model config: {exc}") from None


def _setting(config: Fields, name: str, default: Any) -> Any:
    """One setting, typed like its default, in its range or among its choices."""
    low, high = CONFIG_LIMITS.get(name, (None, None))
    if name in CONFIG_CHOICES:
        return config.str(name, default, CONFIG_CHOICES[name])
    if isinstance(default, bool):
        return config.bool(name, default)
    if isinstance(default, int):
        return config.int(name, default, low, high)
    if isinstance(default, float):
        return config.number(name, default, low, high)
    if isinstance(default, str):
        return config.str(name, default)
    return config.get(name, default)


def estimated_parameters(config: dict[str, Any]) -> int:
    """An upper estimate of a policy's parameters: transformer blocks (attention + MLP) and heads."""
    width = config["width"]
    blocks = config["depth"] * (4 + 2 * config["mlp_ratio"]) * width * width
    head = config["head_layers"] * max(width, config["head_hidden"]) ** 2
    decoders = 4 * (width + 1) * config["decoder_hidden"]
    return int(blocks + head + decoders)


def load_checkpoint(path: str | Path | BinaryIO) -> tuple[PolicyNet, ModelConfig, dict[str, Any]]:
    """Rebuild the network a checkpoint describes and load its weights: (net, config, meta)."""
    return load_payload(read_checkpoint(path), _name(path))


def load_payload(
    payload: dict[str, Any], name: str, build: Callable[[ModelConfig], torch.nn.Module] = build_model
) -> tuple[Any, ModelConfig, dict[str, Any]]:
    """The network ``build`` makes of a checked payload's config (:func:`read_checkpoint`), with its weights:
    (net, config, meta); ``name`` names the checkpoint in errors."""
    config = read_model_config(payload["config"], name)
    net = build(config)
    try:
        net.load_state_dict(payload["state_dict"], strict=True)
    except RuntimeError as exc:
        raise CheckpointError(f"{name}: weights do not match the model its config describes: {exc}") from exc
    return net, config, dict(payload.get("meta") or {})
