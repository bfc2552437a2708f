"""Whodunit scenarios, the evaluation protocol, metrics and plots.

Every inference method, human participants included, is scored the same way::

    from marple_eval import ProtocolSettings, evaluate, model_factory, dataset_episodes
    from marple_gym.datasets import MarpleDataset

    episodes = dataset_episodes(MarpleDataset("data/marple"), ["laundry"])
    run = evaluate(model_factory("distance"), episodes, ProtocolSettings(seed=0), out="results/distance.json")
"""

from marple_eval.evidence import AUDIO, LANGUAGE, MODALITIES, VISION, AgentEvidence, TrialEvidence
from marple_eval.methods import DistanceModel, InferenceModel, UniformModel, make_model
from marple_eval.metrics import (
    accuracy_curve,
    area_under_curve,
    bootstrap_interval,
    evidence_needed,
    sem_band,
    summarise,
)
from marple_eval.protocol import ProtocolSettings, dataset_episodes, evaluate, model_factory
from marple_eval.results import RunResults, TrialResult
from marple_eval.scenarios import PREFERENCE_SETTINGS, SCENARIOS, Scenario, get_scenario

__all__ = [
    "AUDIO",
    "AgentEvidence",
    "DistanceModel",
    "InferenceModel",
    "LANGUAGE",
    "MODALITIES",
    "PREFERENCE_SETTINGS",
    "ProtocolSettings",
    "RunResults",
    "SCENARIOS",
    "Scenario",
    "TrialEvidence",
    "TrialResult",
    "UniformModel",
    "VISION",
    "accuracy_curve",
    "area_under_curve",
    "bootstrap_interval",
    "dataset_episodes",
    "evaluate",
    "evidence_needed",
    "get_scenario",
    "make_model",
    "model_factory",
    "sem_band",
    "summarise",
]
