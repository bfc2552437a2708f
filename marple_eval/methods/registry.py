"""Inference methods by name, for the commands and for worker processes.

A method is named in one of two ways:

* a registered name: this package's methods (:data:`BUILTIN`; the application adds the learned-model methods of
  ``marple_agents`` to its own table), plus those that outside packages add
  through the ``marple.models`` entry-point group (each entry point names a callable
  ``factory(**kwargs) -> InferenceModel``; a plugin cannot take a registered name);
* ``package.module:Attribute``: an :class:`InferenceModel` subclass (or a
  factory) in any importable module, so a user's method runs without packaging
  an entry point.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from typing import Any

from marple_eval.methods.base import InferenceModel
from marple_eval.methods.guard import ModelError, model_code
from marple_eval.methods.reference import DistanceModel, UniformModel
from marple_gym.errors import MarpleError

BUILTIN: dict[str, Callable[..., InferenceModel] | str] = {
    "uniform": UniformModel,
    "distance": DistanceModel,
    # By name, loaded when asked for: their packages import this one's base (an import here would be a circle).
    "llm": "marple_eval.llm.model:LLMModel",
    "ideal": "marple_eval.inverse.ideal:IdealObserver",
}
"""This package's methods by name: a class or factory, or where to import it from (``module:Attribute``)."""
PLUGINS = "marple.models"
"""The entry-point group through which outside packages register methods."""

Methods = Mapping[str, Callable[..., InferenceModel] | str]


class ModelNotFoundError(MarpleError, ValueError):
    """A model name that names no registered model and no importable ``module:Attribute``."""


class InvalidArgumentsError(ModelError, ValueError):
    """Model arguments that the model's class does not take."""


def available_models(methods: Methods = BUILTIN) -> dict[str, Callable[..., InferenceModel]]:
    """``methods`` (by default this package's) plus those that installed plugins register."""
    models = {name: load_attribute(m) if isinstance(m, str) else m for name, m in methods.items()}
    for ep in entry_points(group=PLUGINS):
        if ep.name in models:
            continue
        try:
            models[ep.name] = ep.load()
        except ModuleNotFoundError:  # an optional package that is not installed
            continue
    return models


def load_attribute(spec: str) -> Callable[..., InferenceModel]:
    """The model class or factory that ``package.module:Attribute`` names."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ModelNotFoundError(f"model {spec!r}: expected package.module:Attribute")
    try:
        with model_code(spec, f"importing {module_name}"):
            module = importlib.import_module(module_name)
    except ModelError as error:
        if isinstance(error.__cause__, ModuleNotFoundError):
            raise ModelNotFoundError(f"model {spec!r}: cannot import {module_name!r} ({error.__cause__})") from None
        raise
    target: Any = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ModelNotFoundError(f"model {spec!r}: module {module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    if not callable(target):
        raise ModelNotFoundError(f"model {spec!r}: {attribute!r} is not a class or factory")
    return target


def model_class(name: str, methods: Methods = BUILTIN) -> Callable[..., InferenceModel]:
    """What builds the model called ``name``: a name ``methods`` or a plugin registers, or
    ``package.module:Attribute``."""
    if ":" in name:
        return load_attribute(name)
    if isinstance(methods.get(name), str):
        return load_attribute(methods[name])
    if name in methods:
        return methods[name]
    models = available_models(methods)
    if name not in models:
        raise ModelNotFoundError(
            f"unknown model {name!r}; available: {', '.join(sorted(models))} (or package.module:Class)"
        )
    return models[name]


def make_model(name: str, **kwargs: Any) -> InferenceModel:
    """Build a model by registered name or ``package.module:Attribute``."""
    return build_model(name, model_class(name), kwargs)


def build_model(name: str, factory: Callable[..., InferenceModel], kwargs: Mapping[str, Any]) -> InferenceModel:
    """``factory(**kwargs)``, the model called ``name``: what it raises is named as its failure, arguments it does
    not take are refused by name (never by value: one may be an API key), and an object that is not an
    :class:`InferenceModel` is refused."""
    with model_code(name, "building it"):
        try:
            model = factory(**kwargs)
        except TypeError as exc:
            # Name the arguments, not their values: one may be an API key.
            arguments = ", ".join(sorted(kwargs)) or "none"
            raise InvalidArgumentsError(f"model {name!r}: bad arguments ({arguments}): {exc}") from None
    if not isinstance(model, InferenceModel):
        raise ModelNotFoundError(f"model {name!r} built a {type(model).__name__}, not an InferenceModel")
    return model
