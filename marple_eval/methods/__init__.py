"""Inference models: the interface, reference models, the registry the CLI reads, and the guard around them."""

from marple_eval.methods.base import InferenceModel, normalise
from marple_eval.methods.guard import InvalidAnswerError, ModelError, RescaledAnswerWarning
from marple_eval.methods.reference import DistanceModel, UniformModel
from marple_eval.methods.registry import available_models, make_model

__all__ = [
    "DistanceModel",
    "InferenceModel",
    "InvalidAnswerError",
    "ModelError",
    "RescaledAnswerWarning",
    "UniformModel",
    "available_models",
    "make_model",
    "normalise",
]
