"""Random draws that generation, the planner and the observers make thousands of times, made cheap.

:func:`weighted_index` draws exactly what ``Generator.choice(n, p=p)`` draws
(the same index from the same single uniform number), without ``choice``'s
checks of ``p``: a call costs a few microseconds instead of about twenty, and
every house, plan and dataset drawn with it stays the one ``choice`` gave.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

import numpy as np


def weighted_index(rng: np.random.Generator, p: Sequence[float] | np.ndarray) -> int:
    """``int(rng.choice(len(p), p=p))`` for a probability vector ``p`` (non-negative, summing to 1).

    Like ``choice``: the running sums of ``p`` divided by the last one, and the
    first index whose sum exceeds one uniform draw (float additions and
    divisions in the same order, so the same index for every draw).
    """
    cdf = list(accumulate(p.tolist() if isinstance(p, np.ndarray) else [float(x) for x in p]))
    total = cdf[-1]
    return bisect_right([c / total for c in cdf], rng.random())
