"""Methods: the one contract every family's methods share, the whodunit family's interface and reference methods,
the registry by family and name that the commands read, and the guard around a method's own code."""

from marple_eval.methods.base import ROLES, Method
from marple_eval.methods.guard import InvalidAnswerError, MethodError, RescaledAnswerWarning
from marple_eval.methods.reference import DistanceMethod, UniformMethod
from marple_eval.methods.registry import available_methods, make_method
from marple_eval.methods.whodunit import QueryMethod, WhodunitMethod, normalise

__all__ = [
    "DistanceMethod",
    "InvalidAnswerError",
    "Method",
    "MethodError",
    "QueryMethod",
    "ROLES",
    "RescaledAnswerWarning",
    "UniformMethod",
    "WhodunitMethod",
    "available_methods",
    "make_method",
    "normalise",
]
