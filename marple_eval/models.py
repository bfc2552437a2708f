"""Moved: the inference methods are :mod:`marple_eval.methods`; this old path forwards there until it goes (:mod:`marple_gym.moved`)."""

from marple_gym.moved import forward_module

forward_module("marple_eval.models", "marple_eval.methods")
