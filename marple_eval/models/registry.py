"""Inference models by name, for the CLI and for worker processes.

Packages add models through the ``marple.models`` entry-point group: each entry
point names a callable ``factory(**kwargs) -> InferenceModel``.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from marple_eval.models.base import InferenceModel
from marple_eval.models.reference import DistanceModel, UniformModel

BUILTIN: dict[str, Callable[..., InferenceModel]] = {"uniform": UniformModel, "distance": DistanceModel}


def available_models() -> dict[str, Callable[..., InferenceModel]]:
    """Built-in models plus those installed packages register."""
    models = dict(BUILTIN)
    for ep in entry_points(group="marple.models"):
        try:
            models[ep.name] = ep.load()
        except ModuleNotFoundError:  # an optional package that is not installed
            continue
    return models


def make_model(name: str, **kwargs: Any) -> InferenceModel:
    """Build a registered model by name."""
    models = available_models()
    if name not in models:
        raise ValueError(f"unknown model {name!r}; available: {', '.join(sorted(models))}")
    try:
        return models[name](**kwargs)
    except TypeError as exc:
        raise ValueError(f"model {name!r}: bad arguments {kwargs}: {exc}") from None
