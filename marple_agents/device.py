"""Where learned models run, and in what number format: one device setting, resolved once.

``marple evaluate --device`` and ``marple benchmark --device`` take ``auto``
(the default: the first GPU when torch sees one, else the CPU), ``cpu``,
``cuda`` or ``cuda:N``. :func:`resolve_device` turns that into a
:class:`torch.device` (``cpu``, ``cuda:0``), with a clear error for a device this
machine lacks; :func:`devices_for` lists every device a benchmark may spread its
jobs over (every visible GPU for ``auto`` and ``cuda``).

The setting is resolved once, by the application's model runner, and the
:class:`torch.device` handed down: a method class receives it through a ``device``
keyword of its constructor (the runner passes it to every method whose signature
has one, built-in and plugin methods alike), so a method needs nothing but
``def __init__(self, ..., device: torch.device | str = "cpu")``, and hands it on
to its policies as it is; it should record it in
:meth:`~marple_eval.methods.whodunit.WhodunitMethod.settings`. A ``precision``
keyword (``auto``, ``fp32``, ``bf16``) receives the number format the same way.

Policy forward passes run under bf16 autocast with TF32 matmuls on CUDA devices
that support bf16 (``precision="auto"``), in fp32 elsewhere; ``bf16`` forces
autocast on any device (the CPU has it too: that is how the agreement with fp32
is tested without a GPU), ``fp32`` turns it off.

torch is imported only when a device must be looked up (it is an optional dependency, the ``agents`` extra), so
code that runs no learned model (the planner as agent model) stays light.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from marple_gym.errors import MarpleError
from marple_gym.extras import install_command

if TYPE_CHECKING:
    import torch

PRECISIONS = ("auto", "fp32", "bf16")


class DeviceError(MarpleError, ValueError):
    """A device setting this machine cannot honour (no GPU, an index beyond the GPUs it has, a bad name)."""


def _torch():
    """torch, imported when a device must be looked up (see module docs)."""
    try:
        import torch
    except ModuleNotFoundError:
        raise DeviceError(f"learned models need torch: {install_command('agents')}") from None
    return torch


def _cuda_count() -> int:
    torch = _torch()
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def resolve_device(spec: str | torch.device = "auto") -> torch.device:
    """The device the setting ``spec`` names on this machine (a :class:`torch.device` is one already chosen,
    such as a benchmark job's, and is returned as it is).

    ``auto`` is the first GPU when torch sees one, else the CPU; ``cuda`` is the
    first GPU. A device the machine lacks is an error that says what it has.
    """
    torch = _torch()
    if isinstance(spec, torch.device):
        return spec
    return torch.device(_device_name(spec))


def _device_name(spec: str) -> str:
    """:func:`resolve_device`'s device by its name, ``"cpu"`` or ``"cuda:N"``."""
    text = str(spec).strip().lower()
    if text == "cpu":
        return "cpu"
    if text == "auto":
        return "cuda:0" if _cuda_count() else "cpu"
    match = re.fullmatch(r"cuda(?::(\d+))?", text)
    if match is None:
        raise DeviceError(f"unknown device {spec!r}: expected auto, cpu, cuda or cuda:N")
    index = int(match.group(1) or 0)
    have = _cuda_count()
    if index >= have:
        found = f"{have} GPU(s), cuda:0 to cuda:{have - 1}" if have else "no GPU that torch can use"
        raise DeviceError(f"device {text}: this machine has {found} (use --device cpu or auto)")
    return f"cuda:{index}"


def devices_for(spec: str = "auto") -> list[str]:
    """Every device jobs may be spread over, one job per device, by name: every visible GPU for ``auto`` (the CPU
    when there is none) and ``cuda``; the one named by ``cuda:N``; the CPU for ``cpu``."""
    text = str(spec).strip().lower()
    if text in ("auto", "cuda"):
        count = _cuda_count()
        if count:
            return [f"cuda:{i}" for i in range(count)]
    return [_device_name(text)]


def kind(device: str | torch.device) -> str:
    """``"cpu"`` or ``"cuda"``: what results record (the index says only which GPU a job happened to get)."""
    return str(device).split(":")[0]


def resolve_precision(device: str | torch.device, precision: str = "auto") -> str:
    """``"bf16"`` (autocast) or ``"fp32"``: ``auto`` is bf16 on CUDA devices that support it, fp32 elsewhere."""
    if precision not in PRECISIONS:
        raise DeviceError(f"unknown precision {precision!r}: choose from {', '.join(PRECISIONS)}")
    if precision != "auto":
        return precision
    if kind(device) != "cuda":
        return "fp32"
    return "bf16" if _torch().cuda.is_bf16_supported() else "fp32"


def use_tensor_cores(device: str | torch.device) -> None:
    """TF32 for the fp32 matmuls left outside autocast on a CUDA device (process-wide, as torch sets it)."""
    torch = _torch()
    if kind(device) == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True


def lightning_placement(device: str | torch.device) -> tuple[str, int | list[int]]:
    """Lightning's ``(accelerator, devices)`` for one resolved device: ``("gpu", [N])`` for ``cuda:N``, else
    ``("cpu", 1)``."""
    if kind(device) != "cuda":
        return "cpu", 1
    index = str(device).partition(":")[2]
    return "gpu", [int(index or 0)]


def device_name(device: str | torch.device) -> str:
    """The hardware behind a device, for reports: the GPU's name, or ``cpu``."""
    if kind(device) != "cuda":
        return "cpu"
    torch = _torch()
    return torch.cuda.get_device_name(torch.device(device))


def check_training_devices(accelerator: str, count: int | str) -> None:
    """A GPU training run needs GPUs: say so before anything is written (Lightning would fail later)."""
    if accelerator in ("gpu", "cuda"):
        have = _cuda_count()
        if have == 0 or (isinstance(count, int) and count > have):
            raise DeviceError(f"--accelerator {accelerator} --devices {count}: this machine has {have} GPU(s)")
