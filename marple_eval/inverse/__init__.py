"""Bayesian inverse planning: the exact likelihood of actions under the planner, and the Bayes-optimal observer."""

from marple_eval.inverse.base import ANSWERS, WhodunitInversePlanning, mission_posterior
from marple_eval.inverse.checks import ceiling_violations
from marple_eval.inverse.ideal import IdealObserver
from marple_eval.inverse.likelihood import MissionTracker, PlanLikelihood
from marple_eval.inverse.priors import (
    MISSION_PRIORS,
    MissionPrior,
    TrainingPriors,
    UniformPriors,
    estimate_prior,
    mission_priors,
)

__all__ = [
    "ANSWERS",
    "MISSION_PRIORS",
    "IdealObserver",
    "WhodunitInversePlanning",
    "MissionPrior",
    "MissionTracker",
    "PlanLikelihood",
    "TrainingPriors",
    "UniformPriors",
    "ceiling_violations",
    "estimate_prior",
    "mission_priors",
    "mission_posterior",
]
