"""Stopping a command by a signal: SIGTERM (``kill``, a batch scheduler such as SLURM) and SIGINT (Ctrl-C) stop any
``marple`` command within moments, keep what it finished, say so, and exit ``128 + the signal's number`` (143 and
130), so that a batch job stopped by its scheduler never looks done.

What is kept is whatever the command had made durable: a dataset's or a set's finished shards, a method's
journal of scored items, a benchmark's finished stages. The layers below say which as they unwind (each logs
"... keeps ...; run the same command again to resume"); this module adds the last line.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Stopped(BaseException):
    """Raised in the main thread when SIGTERM arrives. A ``BaseException``, as ``KeyboardInterrupt`` is, so that no
    ``except Exception`` swallows it; not a ``KeyboardInterrupt``, which Lightning turns into ``sys.exit(1)``."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


_received: list[int] = []


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _received:
        return  # already stopping: let the clean-up that the first signal started finish
    _received.append(signum)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Stopped(signum)


def install() -> None:
    """Stop on SIGTERM and SIGINT (call from the main thread, before the command runs)."""
    _received.clear()
    for signum in STOP_SIGNALS:
        signal.signal(signum, _on_signal)


def received() -> int | None:
    """The signal that stopped the command, if one did."""
    return _received[0] if _received else None


def stopped_by(exc: BaseException) -> int | None:
    """The signal behind ``exc`` (the exception a command ended with), or None if no signal stopped it.

    A ``SystemExit`` counts only after a signal: Lightning answers Ctrl-C and its own SIGTERM handling by exiting
    (status 1, or 0 for SIGTERM), and the run must still report the signal's status."""
    if isinstance(exc, Stopped):
        return exc.signum
    if isinstance(exc, KeyboardInterrupt):
        return received() or signal.SIGINT
    if isinstance(exc, SystemExit):
        return received()
    return None


def report(command: str, signum: int) -> int:
    """Say that ``command`` stopped, what it keeps and how to resume; return its exit status (128 + ``signum``)."""
    name = signal.Signals(signum).name
    print(
        f"marple {command}: stopped by {name}. What it had finished is kept (written shards, journals of scored "
        "items, trained models, finished stages); run the same command again to resume from it.",
        file=sys.stderr,
    )
    return 128 + signum
