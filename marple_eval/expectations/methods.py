"""Rating surprise: the family's call on the one method contract, the uniform baseline, and the rating loop.

An expectation method is a :class:`ExpectationMethod` (a :class:`~marple_eval.methods.base.Method`) with a
``name`` and ``rate(view) -> one surprise per test``, where ``view`` is a
:class:`~marple_gym.expectations.trial.TrialView` (what an onlooker sees; the tests unlabelled, in an order drawn
per trial from the run's seed). Larger means more surprising; only the order of a trial's two ratings is scored,
so any scale will do. ``reads`` names the episodes it sees (:data:`EPISODES`): a method that does not read the
familiarisation is handed a view without it (a rule that judges the test alone)::

    class MyMethod(ExpectationMethod):
        name = "mine"
        reads = frozenset({"test"})

        def rate(self, view):
            return [len(test.vision) for test in view.tests]  # longer tests are more surprising

    ratings = rate_trials(MyMethod(), trials, seed=0)
"""

from __future__ import annotations

import zlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np

from marple_eval.methods.base import Method
from marple_gym.expectations.trial import TESTS, Trial, TrialView

EPISODES = ("familiarisation", "test")
"""What an expectation method may read of a trial."""


class ExpectationMethod(Method, ABC):
    """Rates how surprising each test of a trial is, given its familiarisation (see module docs)."""

    family = "expectations"
    reads: frozenset[str] = frozenset(EPISODES)

    @abstractmethod
    def rate(self, view: TrialView) -> Sequence[float]:
        """One surprise per test of ``view``, in its order (larger: more surprising)."""


class ExpectationUniform(ExpectationMethod):
    """Every test equally surprising: pairwise accuracy 0 (a tie is wrong), 0.5 with ties counting half."""

    name = "uniform"
    reads = frozenset()

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
    """The order a method sees the trial's tests in: drawn from the run's seed and the trial's id."""
    names = list(trial.tests)
    rng = np.random.default_rng([int(seed), zlib.crc32(trial.id.encode())])
    return [names[i] for i in rng.permutation(len(names))]


def rate_trial(method: ExpectationMethod, trial: Trial, seed: int = 0) -> Rating:
    """``method``'s ratings of one test trial (one with both tests), from what it reads of the trial."""
    if trial.surprising is None:
        raise ValueError(f"{trial.id} has no surprising test (training and validation trials hold the expected only)")
    order = presentation_order(trial, seed)
    view = trial.view(order)
    if "familiarisation" not in method.reads:
        view = replace(view, familiarisation=())
    values = [float(v) for v in method.rate(view)]
    if len(values) != len(order):
        raise ValueError(f"{method.name} gave {len(values)} ratings for {len(order)} tests of {trial.id}")
    if not all(np.isfinite(v) for v in values):
        raise ValueError(f"{method.name} gave a rating that is not a finite number for {trial.id}: {values}")
    by_name = dict(zip(order, values))
    return Rating(trial.id, trial.key.scenario, trial.key.type, *(by_name[name] for name in TESTS))


def rate_trials(
    method: ExpectationMethod, trials: Iterable[Trial], seed: int = 0, progress: bool = False
) -> list[Rating]:
    """``method``'s ratings of every trial (a progress bar with ``progress``)."""
    trials = list(trials)
    if progress:
        from tqdm import tqdm

        trials = tqdm(trials, desc=f"rating ({method.name})", unit="trial")
    return [rate_trial(method, trial, seed) for trial in trials]
