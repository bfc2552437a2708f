"""Moved: ``marple benchmark``'s package is :mod:`marple.benchmark`; this old path forwards there until it goes
(:mod:`marple_gym.moved`)."""

from marple_gym.moved import forward_module

forward_module("marple_benchmark", "marple.benchmark")
