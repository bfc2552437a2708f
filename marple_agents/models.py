"""Moved: the policy networks are :mod:`marple_agents.networks`; this old path forwards there until it goes (:mod:`marple_gym.moved`)."""

from marple_gym.moved import forward_module

forward_module("marple_agents.models", "marple_agents.networks")
