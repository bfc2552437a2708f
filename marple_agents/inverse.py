"""Moved: inverse planning with learned likelihoods (bip) are :mod:`marple_agents.bip`; this old path forwards there until it goes (:mod:`marple_gym.moved`)."""

from marple_gym.moved import forward_module

forward_module("marple_agents.inverse", "marple_agents.bip")
