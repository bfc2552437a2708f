"""Expectation trials (AGENT's family), made where the world is: one agent's familiarisation episodes on a
stage, then a test that is expected or surprising; the four scenarios and their types as pure functions of a
seed (most types in counterbalanced couples), trial sets on disk (shards under a manifest; AGENT's JSON tree as an
export) and the pictures a person is shown.

::

    from marple_gym.expectations import make_trials, trial_keys

    trials = list(make_trials(trial_keys("test", per_type=20), seed=0))

Rating and scoring are in :mod:`marple_eval.expectations`. See docs/expectations.md.
"""

from marple_gym.expectations.scenarios import (
    EXPECTATION_SCENARIOS,
    ExpectationScenario,
    all_types,
    make_trial,
    make_trials,
    scenario_of,
    trial_keys,
)
from marple_gym.expectations.sets import TrialSetSpec, generate_trial_set, read_trial_set
from marple_gym.expectations.trial import SPLITS, Episode, EpisodeEvidence, Trial, TrialKey, TrialView

__all__ = [
    "EXPECTATION_SCENARIOS",
    "Episode",
    "EpisodeEvidence",
    "ExpectationScenario",
    "SPLITS",
    "Trial",
    "TrialKey",
    "TrialSetSpec",
    "TrialView",
    "all_types",
    "generate_trial_set",
    "make_trial",
    "make_trials",
    "read_trial_set",
    "scenario_of",
    "trial_keys",
]
