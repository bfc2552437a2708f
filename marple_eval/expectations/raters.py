"""Rating surprise: the interface every method implements, the uniform baseline, and the rating loop.

A method is any object with a ``name`` and ``rate(view) -> one surprise per
test``, where ``view`` is a :class:`~marple_gym.expectations.trial.TrialView`
(what an onlooker sees; the tests unlabelled, in an order drawn per trial from
the run's seed). Larger means more surprising; only the order of a trial's
two ratings is scored, so any scale will do. A rater may also say what it is:
``role`` ("method"; "shortcut" for the shortcut panel's rules; "answer_key" for
the exact observer) and ``reads`` (``{"test"}``, or ``{"familiarisation", "test"}``)::

    class MyRater:
        name = "mine"

        def rate(self, view):
            return [len(test.vision) for test in view.tests]  # longer tests are more surprising

    ratings = rate_trials(MyRater(), trials, seed=0)
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from marple_gym.expectations.trial import TESTS, Trial, TrialView


@runtime_checkable
class SurpriseRater(Protocol):
    """Rates how surprising each test of a trial is, given its familiarisation (see module docs)."""

    name: str

    def rate(self, view: TrialView) -> Sequence[float]: ...


class UniformRater:
    """Every test equally surprising: pairwise accuracy 0 (a tie is wrong), 0.5 with ties counting half."""

    name = "uniform"
    role = "method"
    reads: frozenset[str] = frozenset()

    def rate(self, view: TrialView) -> list[float]:
        return [0.0] * len(view.tests)


@dataclass(frozen=True)
class Rating:
    """One method's surprise ratings of one test trial's expected and surprising tests."""

    trial: str
    scenario: str
    type: str
    expected: float
    surprising: float

    def to_dict(self) -> dict:
        return asdict(self)


def presentation_order(trial: Trial, seed: int) -> list[str]:
    """The order a rater sees the trial's tests in: drawn from the run's seed and the trial's id."""
    names = list(trial.tests)
    rng = np.random.default_rng([int(seed), zlib.crc32(trial.id.encode())])
    return [names[i] for i in rng.permutation(len(names))]


def rate_trial(rater: SurpriseRater, trial: Trial, seed: int = 0) -> Rating:
    """``rater``'s ratings of one test trial (one with both tests)."""
    if trial.surprising is None:
        raise ValueError(f"{trial.id} has no surprising test (training and validation trials hold the expected only)")
    order = presentation_order(trial, seed)
    values = [float(v) for v in rater.rate(trial.view(order))]
    if len(values) != len(order):
        raise ValueError(f"{rater.name} gave {len(values)} ratings for {len(order)} tests of {trial.id}")
    if not all(np.isfinite(v) for v in values):
        raise ValueError(f"{rater.name} gave a rating that is not a finite number for {trial.id}: {values}")
    by_name = dict(zip(order, values))
    return Rating(trial.id, trial.key.scenario, trial.key.type, *(by_name[name] for name in TESTS))


def rate_trials(rater: SurpriseRater, trials: Iterable[Trial], seed: int = 0, progress: bool = False) -> list[Rating]:
    """``rater``'s ratings of every trial (a progress bar with ``progress``)."""
    trials = list(trials)
    if progress:
        from tqdm import tqdm

        trials = tqdm(trials, desc=f"rating ({rater.name})", unit="trial")
    return [rate_trial(rater, trial, seed) for trial in trials]
