"""Simulation inference: Monte Carlo rollouts of agent models over the true simulator."""

from marple_agents.simulation.agent_models import PlannerAgent, PolicyAgent, RolloutAgent
from marple_agents.simulation.inference import VARIANT_LABELS, VARIANTS, SimulationMethod
from marple_agents.simulation.mcts import MCTSAgent
from marple_agents.simulation.rollouts import query_probability

__all__ = [
    "MCTSAgent",
    "PlannerAgent",
    "PolicyAgent",
    "RolloutAgent",
    "SimulationMethod",
    "VARIANTS",
    "VARIANT_LABELS",
    "query_probability",
]
