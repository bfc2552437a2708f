"""Inverse planning with learned likelihoods (``bip``)."""

from marple_agents.bip.inference import BipModel, BipResources, MissionPolicyAgent

__all__ = ["BipModel", "BipResources", "MissionPolicyAgent"]
