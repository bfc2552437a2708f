"""Inference models by name, for the CLI and for worker processes.

A model is named in one of two ways:

* a registered name: the built-in models, plus those packages add through the
  ``marple.models`` entry-point group (each entry point names a callable
  ``factory(**kwargs) -> InferenceModel``);
* ``package.module:Attribute``: an :class:`InferenceModel` subclass (or a
  factory) in any importable module, so a user's model runs without packaging
  an entry point.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from marple_eval.methods.base import InferenceModel
from marple_eval.methods.guard import ModelError, model_code
from marple_eval.methods.reference import DistanceModel, UniformModel
from marple_gym.errors import MarpleError

BUILTIN: dict[str, Callable[..., InferenceModel] | str] = {
    "uniform": UniformModel,
    "distance": DistanceModel,
    "llm": "marple_eval.llm.model:LLMModel",  # by name: marple_eval.llm imports this package's base
}


class ModelNotFoundError(MarpleError, ValueError):
    """A model name that names no registered model and no importable ``module:Attribute``."""


class InvalidArgumentsError(ModelError, ValueError):
    """Model arguments that the model's class does not take."""


def available_models() -> dict[str, Callable[..., InferenceModel]]:
    """Built-in models plus those installed packages register."""
    models = {name: load_attribute(m) if isinstance(m, str) else m for name, m in BUILTIN.items()}
    for ep in entry_points(group="marple.models"):
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


def model_class(name: str) -> Callable[..., InferenceModel]:
    """What builds the model called ``name``: a registered name or ``package.module:Attribute``."""
    if ":" in name:
        return load_attribute(name)
    models = available_models()
    if name not in models:
        raise ModelNotFoundError(
            f"unknown model {name!r}; available: {', '.join(sorted(models))} (or package.module:Class)"
        )
    return models[name]


def make_model(name: str, **kwargs: Any) -> InferenceModel:
    """Build a model by registered name or ``package.module:Attribute``."""
    factory = model_class(name)
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


def takes_argument(target: Callable[..., Any], name: str) -> bool:
    """Whether a model class or factory accepts the keyword ``name`` (e.g. ``device``, ``dry_run``)."""
    try:
        return name in inspect.signature(target).parameters
    except (TypeError, ValueError):
        return False


def resolve_device(spec: str) -> str:
    """``auto``, ``cpu``, ``cuda`` or ``cuda:N`` as the device torch names (``"cpu"``, ``"cuda:0"``).

    The installed agent models resolve it (the ``marple.devices`` entry point:
    this package imports no torch); without them there is only the CPU.
    """
    for ep in entry_points(group="marple.devices", name="resolve"):
        try:
            return ep.load()(spec)
        except ModuleNotFoundError:  # the agents extra (torch) is not installed
            break
    if spec in ("auto", "cpu"):
        return "cpu"
    raise MarpleError(f"device {spec!r} needs torch: pip install 'marple-gym[agents]'")
