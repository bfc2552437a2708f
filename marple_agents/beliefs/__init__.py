"""The belief family's learned parts: a goal- and belief-conditioned policy, its training, and ``bip``.

torch and Lightning load when a name is first used::

    from marple_agents.beliefs import BeliefBip, train_belief_policy
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "BeliefPolicy": "marple_agents.beliefs.policy",
    "BeliefPolicyNet": "marple_agents.beliefs.policy",
    "load_belief_policy": "marple_agents.beliefs.policy",
    "BeliefTrainResult": "marple_agents.beliefs.training",
    "train_belief_policy": "marple_agents.beliefs.training",
    "BeliefBip": "marple_agents.beliefs.bip",
    "BeliefBipPrivileged": "marple_agents.beliefs.bip",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'marple_agents.beliefs' has no attribute {name!r}")
