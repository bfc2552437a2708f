"""What the harness puts around a method's own code, so that its failures are reported as its own.

* :func:`method_code`: whatever a method's code raises while it is built, set up or asked (``sys.exit`` included,
  which would otherwise end ``marple evaluate`` with status 0 and no results) becomes a :class:`MethodError`
  that names the method, what it was doing, the exception's class and its message; the CLI exits with 2.
  Our own named errors (:class:`~marple_gym.errors.MarpleError`: a refused API key, a corrupt checkpoint) and
  ``KeyboardInterrupt`` pass through as they are.
* :class:`AnswerCheck`: a method's answers must be one probability per suspect. Answers that are not numbers
  (strings, booleans, None), not finite, negative or all zero are refused (:class:`InvalidAnswerError`, a
  ``MethodError``). Finite non-negative answers that do not sum to 1, such as (0.9, 0.3), are scaled to sum to
  1, as the original code scaled p_A / (p_A + p_B), with one warning per run (:class:`RescaledAnswerWarning`;
  ``warnings.simplefilter("error", RescaledAnswerWarning)`` turns it into an error). docs/evaluation.md.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from marple_gym.errors import MarpleError

SUM_TOLERANCE = 1e-6
"""How far from 1 a sum may be before the answer counts as not summing to 1 (floating-point rounding)."""


class MethodError(MarpleError):
    """A method failed in its own code, or answered something that is not a probability per suspect."""


class InvalidAnswerError(MethodError, ValueError):
    """A method's answer that is not one probability per suspect."""


class RescaledAnswerWarning(UserWarning):
    """A method's answers did not sum to 1 and were scaled to."""


@contextmanager
def method_code(method: str, doing: str) -> Iterator[None]:
    """Run a method's own code (``doing``: "predict on laundry/h00/003", ...); what it raises becomes a
    :class:`MethodError` naming ``method``, with the original exception as its cause."""
    try:
        yield
    except MarpleError:  # already a named error (a refused API key, a corrupt checkpoint, a MethodError)
        raise
    except SystemExit as exit_:
        raise MethodError(
            f"method {method!r} called sys.exit({exit_.code!r}) in {doing}; a method must not exit"
        ) from exit_
    except Exception as error:  # noqa: BLE001 - any failure of the method's own code is its failure
        raise MethodError(f"method {method!r} raised {type(error).__name__} in {doing}: {error}") from error


def check_answer(answer: Any, suspects: int, method: str = "method") -> tuple[float, ...]:
    """``answer`` as one float per suspect, or :class:`InvalidAnswerError` saying what is wrong with it.

    A probability is a real number: a Python or numpy int or float, or a one-element array or tensor holding
    one (``.item()``); booleans and strings are not numbers here, even though ``float()`` would take them.
    """
    if isinstance(answer, (str, bytes, Mapping)) or not hasattr(answer, "__len__") or not hasattr(answer, "__iter__"):
        raise InvalidAnswerError(
            f"method {method!r} answered {answer!r}: expected {suspects} probabilities, one per suspect"
        )
    if len(answer) != suspects:
        raise InvalidAnswerError(f"method {method!r} answered {len(answer)} probabilities for {suspects} suspects")
    values = [_real(p, answer, method) for p in answer]
    if not all(math.isfinite(p) and p >= 0 for p in values) or sum(values) <= 0:
        shown = ", ".join(str(p) for p in values)
        raise InvalidAnswerError(
            f"method {method!r} answered ({shown}): probabilities must be finite, non-negative and not all zero"
        )
    return tuple(values)


def _real(p: Any, answer: Any, method: str) -> float:
    value = p.item() if hasattr(p, "item") and not isinstance(p, numbers.Number) else p
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidAnswerError(f"method {method!r} answered {answer!r}: {p!r} is not a number")
    return float(value)


class AnswerCheck:
    """Checks one run's answers of one method: refuses invalid ones, rescales the rest to sum to 1 (warning once)."""

    def __init__(self, method: str) -> None:
        self.method = method
        self.rescaled = 0

    def __call__(self, answer: Any, suspects: int, where: str = "") -> tuple[float, ...]:
        values = check_answer(answer, suspects, self.method)
        total = sum(values)
        if abs(total - 1.0) > SUM_TOLERANCE:
            if not self.rescaled:
                warnings.warn(
                    f"method {self.method!r} answered {answer!r}{f' at {where}' if where else ''}, which sums to "
                    f"{total:g}; its answers are scaled to sum to 1 (this warning is shown once per run)",
                    RescaledAnswerWarning,
                    stacklevel=2,
                )
            self.rescaled += 1
        return tuple(p / total for p in values)
