"""Scoring every family's methods: the one method contract and its registry (:mod:`marple_eval.methods`), the one
results envelope (:mod:`marple_eval.results`), and each family's scoring: whodunit trials under the evaluation
protocol (scenarios, evidence, metrics, reports, plots, reference methods, inverse planning, the LLM baseline),
belief and goal questions (:mod:`marple_eval.beliefs`), expectation trials (:mod:`marple_eval.expectations`), and
a family of plain items (:mod:`marple_eval.items`). It scores; the items themselves are made in
:mod:`marple_gym`, and it needs no torch.

Every whodunit method, human participants included, is scored the same way::

    from marple_eval import ProtocolSettings, evaluate, method_factory, dataset_episodes
    from marple_gym.datasets import MarpleDataset

    episodes = dataset_episodes(MarpleDataset("data/marple"), ["laundry"])
    run = evaluate(method_factory("distance"), episodes, ProtocolSettings(seed=0), out="results/distance.json")
"""

from marple_eval.evidence import AUDIO, LANGUAGE, MODALITIES, VISION, AgentEvidence, TrialEvidence
from marple_eval.methods import DistanceMethod, Method, UniformMethod, WhodunitMethod, make_method
from marple_eval.metrics import (
    accuracy_curve,
    area_under_curve,
    bootstrap_interval,
    evidence_needed,
    sem_band,
    summarise,
)
from marple_eval.protocol import ProtocolSettings, dataset_episodes, evaluate, method_factory
from marple_eval.results import RunResults, TrialResult
from marple_eval.scenarios import PREFERENCE_SETTINGS, SCENARIOS, Scenario, get_scenario

__all__ = [
    "AUDIO",
    "AgentEvidence",
    "DistanceMethod",
    "Method",
    "WhodunitMethod",
    "LANGUAGE",
    "MODALITIES",
    "PREFERENCE_SETTINGS",
    "ProtocolSettings",
    "RunResults",
    "SCENARIOS",
    "Scenario",
    "TrialEvidence",
    "TrialResult",
    "UniformMethod",
    "VISION",
    "accuracy_curve",
    "area_under_curve",
    "bootstrap_interval",
    "dataset_episodes",
    "evaluate",
    "evidence_needed",
    "get_scenario",
    "make_method",
    "method_factory",
    "sem_band",
    "summarise",
]
