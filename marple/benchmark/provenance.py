"""Which commands made a benchmark run's figures, where and when: ``commands.json`` in its report folder.

Not a figure (``benchmark.json`` holds those, so two runs of one command compare byte for byte): a list with one
entry per ``marple benchmark`` command that finished in the folder (a second command, such as ``--splits in,ood``
after the default, adds its rows to the same run), each with the machine it ran on and when. Published tables
cite it (``bench/readme_table.py``).
"""

from __future__ import annotations

import json
import os
import platform
import shlex
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from marple_gym.errors import MarpleError
from marple_gym.files import write_json_atomic
from marple_gym.version import __version__

FILE = "commands.json"


def machine() -> str:
    """This machine in a few words: its CPU cores and model, memory and every GPU torch sees."""
    words = [f"{os.cpu_count()} CPU cores"]
    model = _cpu_model()
    if model:
        words[0] += f" ({model})"
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        words.append(f"{memory / 2**30:.0f} GiB")
    except (ValueError, OSError, AttributeError):
        pass
    gpus = _gpus()
    words.append(", ".join(f"{count} x {name}" for name, count in gpus.items()) if gpus else "no GPU")
    return ", ".join(words)


def record_command(folder: str | Path, argv: Sequence[str], started: datetime) -> dict[str, Any]:
    """Add the finished command ``marple ARGV`` (started at ``started``) to the folder's ``commands.json``."""
    entry = {
        "command": shlex.join(["marple", *argv]),
        "machine": machine(),
        "started": started.astimezone(timezone.utc).isoformat(timespec="seconds"),
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "version": __version__,
    }
    path = Path(folder) / FILE
    write_json_atomic(path, [*read_commands(folder), entry])
    return entry


def read_commands(folder: str | Path) -> list[dict[str, Any]]:
    """The folder's finished commands, oldest first (none where no ``commands.json`` is there)."""
    path = Path(folder) / FILE
    if not path.is_file():
        return []
    try:
        entries = json.loads(path.read_text())
    except ValueError as exc:
        raise MarpleError(f"{path}: not JSON ({exc})") from None
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "command" in e for e in entries):
        raise MarpleError(f"{path}: expected a list of commands, each with its 'command', 'machine' and times")
    return entries


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor()


def _gpus() -> dict[str, int]:
    try:
        import torch
    except ModuleNotFoundError:
        return {}
    if not torch.cuda.is_available():
        return {}
    names: dict[str, int] = {}
    for index in range(torch.cuda.device_count()):
        name = torch.cuda.get_device_name(index)
        names[name] = names.get(name, 0) + 1
    return names
