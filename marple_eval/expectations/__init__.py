"""Rating expectation trials (AGENT's family) for surprise: the methods (the answer key, the BIPaCK analogue, the
uniform and LLM methods; the shortcut panel's rules in :mod:`marple_eval.expectations.panel`), scoring by
pairwise accuracy and results files. The trials themselves are made in :mod:`marple_gym.expectations`.

::

    from marple_gym.expectations import make_trials, trial_keys
    from marple_eval.expectations import ExpectationObserver, accuracy_table, rate_trials

    trials = list(make_trials(trial_keys("test", per_type=20), seed=0))
    ratings = rate_trials(ExpectationObserver(), trials, seed=0)
    table = accuracy_table(ratings)  # per type, per scenario and all, with 95 % intervals

See docs/expectations.md.
"""

from marple_eval.expectations.bipack import ExpectationBipack
from marple_eval.expectations.methods import (
    EPISODES,
    ExpectationMethod,
    ExpectationUniform,
    Rating,
    rate_trial,
    rate_trials,
)
from marple_eval.expectations.observer import ExpectationObserver
from marple_eval.expectations.results import RatingResults
from marple_eval.expectations.scoring import (
    GENERALISATION_TESTS,
    Accuracy,
    accuracy_table,
    format_table,
    generalisation_tests,
    plot_accuracy,
    plot_generalisation,
    seeded_table,
    standardise,
)

__all__ = [
    "Accuracy",
    "EPISODES",
    "ExpectationBipack",
    "ExpectationObserver",
    "GENERALISATION_TESTS",
    "Rating",
    "RatingResults",
    "ExpectationMethod",
    "ExpectationUniform",
    "accuracy_table",
    "format_table",
    "generalisation_tests",
    "plot_accuracy",
    "plot_generalisation",
    "rate_trial",
    "rate_trials",
    "seeded_table",
    "standardise",
]
