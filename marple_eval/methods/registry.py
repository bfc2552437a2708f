"""Methods by family and name: the one registry, for the commands and for worker processes.

A method is named within its family (``whodunit``, ``beliefs``, ``expectations``, or an outside family) in one of
two ways:

* a registered name: this package's methods (:data:`BUILTIN`; the application adds the learned methods of
  ``marple_agents`` to its own table), plus those outside packages add through the ``marple.methods``
  entry-point group (each entry point, named as the method, names a :class:`~marple_eval.methods.base.Method`
  subclass or a factory of one; its ``family`` attribute says which family it answers; a plugin cannot take a
  registered name). The group's former name, ``marple.models``, is still read, for whodunit methods, until
  0.3.0;
* ``package.module:Attribute``: a :class:`~marple_eval.methods.base.Method` subclass (or a factory) in any
  importable module, so a user's method runs without packaging an entry point.

:func:`make_method` builds one: its keyword arguments are checked by name against the factory's signature first
(:func:`check_arguments`), so an argument it does not take is a named error (never a ``TypeError`` from deep
inside), and what it raises is named as the method's failure.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from marple_eval.methods.base import Method
from marple_eval.methods.guard import MethodError, method_code
from marple_eval.methods.reference import DistanceMethod, UniformMethod
from marple_gym.errors import MarpleError

Factory = Callable[..., Method]
Methods = Mapping[tuple[str, str], "Factory | str"]

BUILTIN: dict[tuple[str, str], Factory | str] = {
    ("whodunit", "uniform"): UniformMethod,
    ("whodunit", "distance"): DistanceMethod,
    # By name, loaded when asked for: their modules import this package (an import here would be a circle).
    ("whodunit", "llm"): "marple_eval.llm.model:LLMMethod",
    ("whodunit", "ideal"): "marple_eval.inverse.ideal:IdealObserver",
    ("beliefs", "uniform"): "marple_eval.beliefs.methods:BeliefUniform",
    ("beliefs", "observer"): "marple_eval.beliefs.methods:BeliefObserver",
    ("beliefs", "llm"): "marple_eval.beliefs.llm:BeliefLLM",
    ("expectations", "uniform"): "marple_eval.expectations.methods:ExpectationUniform",
    ("expectations", "observer"): "marple_eval.expectations.observer:ExpectationObserver",
    ("expectations", "bipack"): "marple_eval.expectations.bipack:ExpectationBipack",
    # The shortcut panel's rules (role "shortcut"): what a set's trials must defeat.
    ("expectations", "steps"): "marple_eval.expectations.panel:StepsRule",
    ("expectations", "path-length"): "marple_eval.expectations.panel:PathLengthRule",
    ("expectations", "turns"): "marple_eval.expectations.panel:TurnsRule",
    ("expectations", "detour"): "marple_eval.expectations.panel:DetourRule",
    ("expectations", "obstacles-revealed"): "marple_eval.expectations.panel:ObstaclesRevealedRule",
    ("expectations", "llm"): "marple_eval.expectations.llm:ExpectationLLM.from_options",
}
"""This package's methods by (family, name): a class or factory, or where to import it from (``module:Attribute``)."""
PLUGINS = "marple.methods"
"""The entry-point group through which outside packages register methods."""
OLD_PLUGINS = "marple.models"
"""The group's former name: its entry points are whodunit methods (read until 0.3.0)."""


class MethodNotFoundError(MarpleError, ValueError):
    """A method name that names no registered method of the family and no importable ``module:Attribute``."""


class InvalidArgumentsError(MethodError, ValueError):
    """Arguments that a method's class or factory does not take."""


def _plugins() -> list[tuple[EntryPoint, str | None]]:
    """The installed plugins' entry points, each with the family its group implies (None: the method says)."""
    return [(ep, None) for ep in entry_points(group=PLUGINS)] + [
        (ep, "whodunit") for ep in entry_points(group=OLD_PLUGINS)
    ]


def _family_of(target: Any, implied: str | None) -> str:
    return implied or getattr(target, "family", "") or "whodunit"


def available_methods(family: str, methods: Methods = BUILTIN) -> dict[str, Factory]:
    """The methods of ``family`` by name: those of ``methods`` (by default this package's) and those that
    installed plugins register (a plugin whose package is not installed is left out)."""
    found = {name: load_attribute(m) if isinstance(m, str) else m for (f, name), m in methods.items() if f == family}
    for ep, implied in _plugins():
        if ep.name in found:
            continue
        try:
            target = ep.load()
        except ModuleNotFoundError:  # an optional package that is not installed
            continue
        if _family_of(target, implied) == family:
            found[ep.name] = target
    return found


def load_attribute(spec: str) -> Factory:
    """The method class or factory that ``package.module:Attribute`` names."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise MethodNotFoundError(f"method {spec!r}: expected package.module:Attribute")
    try:
        with method_code(spec, f"importing {module_name}"):
            module = importlib.import_module(module_name)
    except MethodError as error:
        if isinstance(error.__cause__, ModuleNotFoundError):
            raise MethodNotFoundError(f"method {spec!r}: cannot import {module_name!r} ({error.__cause__})") from None
        raise
    target: Any = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise MethodNotFoundError(f"method {spec!r}: module {module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    if not callable(target):
        raise MethodNotFoundError(f"method {spec!r}: {attribute!r} is not a class or factory")
    return target


def method_class(family: str, name: str, methods: Methods = BUILTIN) -> Factory:
    """What builds the method of ``family`` called ``name``: a name ``methods`` or a plugin registers, or
    ``package.module:Attribute``."""
    if ":" in name:
        return load_attribute(name)
    found = methods.get((family, name))
    if found is not None:
        return load_attribute(found) if isinstance(found, str) else found
    known = available_methods(family, methods)
    if name not in known:
        raise MethodNotFoundError(
            f"unknown {family} method {name!r}; choose from {', '.join(sorted(known))} (or package.module:Class)"
        )
    return known[name]


def accepted_arguments(factory: Factory) -> list[str] | None:
    """The keyword arguments ``factory`` takes, in order; None when it takes any (``**kwargs``) or does not say."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def check_arguments(family: str, name: str, factory: Factory, kwargs: Mapping[str, Any]) -> None:
    """Refuse, before anything is built, keyword arguments that ``factory`` does not take, naming them and those
    it takes (never their values: one may be an API key)."""
    known = accepted_arguments(factory)
    unknown = [key for key in kwargs if known is not None and key not in known]
    if unknown:
        takes = ", ".join(known) if known else "none"
        raise InvalidArgumentsError(
            f"{family} method {name!r} takes no argument {', '.join(sorted(unknown))} (its arguments: {takes})"
        )


def make_method(family: str, name: str, methods: Methods = BUILTIN, **kwargs: Any) -> Method:
    """The method of ``family`` called ``name`` (registered, or ``package.module:Attribute``), built with
    ``kwargs``."""
    return build_method(family, name, method_class(family, name, methods), kwargs)


def build_method(family: str, name: str, factory: Factory, kwargs: Mapping[str, Any]) -> Method:
    """``factory(**kwargs)``, the method of ``family`` called ``name``: arguments it does not take are refused by
    name first (:func:`check_arguments`), what it raises is named as its failure, and an object that is not a
    :class:`Method` of ``family`` is refused."""
    check_arguments(family, name, factory, kwargs)
    with method_code(name, "building it"):
        try:
            method = factory(**kwargs)
        except TypeError as exc:  # a factory taking **kwargs passed on one that the code behind it does not take
            arguments = ", ".join(sorted(kwargs)) or "none"
            raise InvalidArgumentsError(f"{family} method {name!r}: bad arguments ({arguments}): {exc}") from None
    if not isinstance(method, Method):
        raise MethodNotFoundError(f"method {name!r} built a {type(method).__name__}, not a Method")
    if method.family != family:
        raise MethodNotFoundError(f"method {name!r} answers {method.family or 'no family'}'s items, not {family}'s")
    return method
