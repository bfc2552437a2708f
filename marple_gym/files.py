"""Files written whole or not at all: a temporary file beside the target, then one rename.

A reader (or a crash, or a full disk) never sees half a file, and a failed write
leaves neither a half-written target nor a stray temporary file behind: what was
there before stays as it was. The file gets the permissions any new file gets
(``0o666`` less the process's umask), so a lab's shared folder reads it as it
reads the others.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

NEW_FILE_MODE = 0o666
"""The mode ``open()`` asks for a new file, before the umask takes its bits away."""


def current_umask() -> int:
    """The process's umask. Read from ``/proc`` where there is one: setting it to read it back
    (``os.umask``) would change it for a moment under other threads' feet."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", sync: bool = True) -> Iterator[IO]:
    """Open a temporary file for writing (``mode`` ``"w"`` or ``"wb"``) that replaces ``path`` when the block ends.

    The data is flushed to disk before the rename (``sync``; a writer that records the file's checksum in a
    manifest it syncs, and checks it on reading, may skip that: a file lost in a crash is then found and
    written again); if the block raises, the temporary file is removed and ``path`` is untouched.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write writes text ('w') or bytes ('wb'), not {mode!r}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if mode == "w" else {})) as f:
            os.fchmod(f.fileno(), NEW_FILE_MODE & ~current_umask())  # mkstemp's 0o600 is for secrets
            yield f
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


_TEMPORARY = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")
"""The names :func:`atomic_write` gives its temporary files (``mkstemp``: ``.NAME.`` + 8 characters + ``.tmp``)."""


def remove_stale_temporaries(folder: str | os.PathLike) -> list[Path]:
    """Remove the temporary files of :func:`atomic_write` under ``folder``: left by a process killed while
    writing (SIGKILL, or a worker terminated by Ctrl-C), they are never the file itself. Call it only where no
    other process is writing. Returns what was removed."""
    removed = []
    for path in Path(folder).rglob(".*.tmp"):
        if _TEMPORARY.fullmatch(path.name) and path.is_file():
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def write_json_atomic(path: str | os.PathLike, data: Any, indent: int | None = 1) -> Path:
    """Write ``data`` as JSON to ``path`` atomically (see :func:`atomic_write`)."""
    with atomic_write(path) as f:
        # dumps, not dump: json.dump always encodes in Python; dumps uses the C encoder where it can (no indent)
        f.write(json.dumps(data, indent=indent))
    return Path(path)
