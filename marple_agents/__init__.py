"""The learned parts of every family, with torch and Lightning: whodunit agent models (behaviour cloning of each
agent's next action) and the methods built on them (simulation inference, ``bip``, MCTS:
:mod:`marple_agents.simulation`, :mod:`marple_agents.bip`, :mod:`marple_agents.search`), the belief family's
goal- and belief-conditioned policy and its ``bip`` (:mod:`marple_agents.beliefs`), the expectation family's
ToMnet (:mod:`marple_agents.tomnet`), and reinforcement-learning helpers (:mod:`marple_agents.rl`).

The whodunit agent models are importable from here; torch and Lightning load only when one of them is first
used, so the ``marple`` command and the simulation code stay light until they need a model::

    from marple_agents import load_policy, refine_with_audio, train_policy
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "AgentPolicy": "marple_agents.policy",
    "load_policy": "marple_agents.policy",
    "refine_with_audio": "marple_agents.audio",
    "train_policy": "marple_agents.training.train",
    "TrainResult": "marple_agents.training.train",
    "ModelConfig": "marple_agents.config",
    "TrainConfig": "marple_agents.config",
    "PRESETS": "marple_agents.config",
    "CheckpointError": "marple_agents.checkpoints",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'marple_agents' has no attribute {name!r}")
