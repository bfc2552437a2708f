"""How many threads torch gives each process that runs models: one setting, decided here for every path.

Every command that runs torch (``marple train`` in every family, ``marple evaluate``, ``marple benchmark`` and the
worker processes it starts) calls :func:`use_torch_threads` before its first model: one thread per process, unless
``--threads N`` or the environment variable ``OMP_NUM_THREADS`` (which torch also reads when imported) says
otherwise. The setting is written to the environment, so that worker processes started afterwards keep it.

Why one: this project's models are small (the agent models are a 32-wide one-layer ViT over a house's cells), so
torch's second thread has little arithmetic to share, while on a busy machine a thread waiting for a descheduled
sibling spins on a core another job needs. Measured on 2 cores with other jobs beside them (docs/gpu.md, "Threads
on the CPU"): 100 steps of one agent model's training took 6.5 times the CPU seconds and 9 times the wall clock
at two threads as at one.
A large model on a CPU (the paper preset) may want more: ``--threads``.

torch is not imported here: a command that turns out to need no model stays light, and torch, when it is imported
later, reads the number from the environment.
"""

from __future__ import annotations

import os
import sys

THREADS_VARIABLE = "OMP_NUM_THREADS"
"""The environment variable that carries the setting to torch and to every process started afterwards."""
DEFAULT_THREADS = 1
"""Threads per process unless told otherwise (see module docs)."""


def torch_threads(threads: int | None = None) -> int:
    """The number of threads each process that runs models gives torch: ``threads`` if given, else
    ``OMP_NUM_THREADS`` when it holds a whole number of at least 1, else :data:`DEFAULT_THREADS`."""
    if threads is not None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        return int(threads)
    value = os.environ.get(THREADS_VARIABLE, "").strip()
    return int(value) if value.isdigit() and int(value) >= 1 else DEFAULT_THREADS


def use_torch_threads(threads: int | None = None) -> int:
    """Give torch :func:`torch_threads` threads in this process (now if torch is loaded, else when it is) and in
    the processes it starts from now on; returns the number."""
    count = torch_threads(threads)
    os.environ[THREADS_VARIABLE] = str(count)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(count)
    return count
