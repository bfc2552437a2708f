"""Inverse planning with learned likelihoods (``bip``)."""

from marple_agents.inverse.bip import BipModel, BipResources, MissionPolicyAgent

__all__ = ["BipModel", "BipResources", "MissionPolicyAgent"]
