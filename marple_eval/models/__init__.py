"""Inference models: the interface, reference models, and the registry the CLI reads."""

from marple_eval.models.base import InferenceModel, normalise
from marple_eval.models.reference import DistanceModel, UniformModel
from marple_eval.models.registry import available_models, make_model

__all__ = ["DistanceModel", "InferenceModel", "UniformModel", "available_models", "make_model", "normalise"]
