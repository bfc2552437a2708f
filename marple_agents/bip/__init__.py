"""Inverse planning with learned likelihoods (``bip``)."""

from marple_agents.bip.inference import BipMethod, BipResources, MissionPolicyAgent

__all__ = ["BipMethod", "BipResources", "MissionPolicyAgent"]
