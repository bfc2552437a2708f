"""Expectation trials (the AGENT family): familiarisation episodes of an agent, then a test that is expected or
surprising, rated for surprise and scored by pairwise accuracy.

::

    from marple_eval.expectations import ExactObserver, accuracy_table, make_trials, rate_trials, trial_keys

    trials = list(make_trials(trial_keys("test", per_type=20), seed=0))
    ratings = rate_trials(ExactObserver(), trials, seed=0)
    table = accuracy_table(ratings)  # per type, per scenario and all, with 95 % intervals

See docs/expectations.md.
"""

from marple_eval.expectations.observer import ExactObserver
from marple_eval.expectations.raters import Rating, SurpriseRater, UniformRater, rate_trial, rate_trials
from marple_eval.expectations.scenarios import (
    EXPECTATION_SCENARIOS,
    ExpectationScenario,
    all_types,
    make_trial,
    make_trials,
    scenario_of,
    trial_keys,
)
from marple_eval.expectations.scoring import (
    GENERALISATION_TESTS,
    Accuracy,
    accuracy_table,
    format_table,
    generalisation_tests,
    plot_accuracy,
    standardise,
)
from marple_eval.expectations.trial import SPLITS, Episode, EpisodeEvidence, Trial, TrialKey, TrialView

__all__ = [
    "Accuracy",
    "EXPECTATION_SCENARIOS",
    "Episode",
    "EpisodeEvidence",
    "ExactObserver",
    "ExpectationScenario",
    "GENERALISATION_TESTS",
    "Rating",
    "SPLITS",
    "SurpriseRater",
    "Trial",
    "TrialKey",
    "TrialView",
    "UniformRater",
    "accuracy_table",
    "all_types",
    "format_table",
    "generalisation_tests",
    "make_trial",
    "make_trials",
    "plot_accuracy",
    "rate_trial",
    "rate_trials",
    "scenario_of",
    "standardise",
    "trial_keys",
]
