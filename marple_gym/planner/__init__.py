"""The hierarchical planner that generates agent trajectories."""

from marple_gym.planner.paths import sample_shortest_path
from marple_gym.planner.planner import HierarchicalPlanner, MissionHistory, PlanRequest, follow_history, turn_actions

__all__ = [
    "HierarchicalPlanner",
    "MissionHistory",
    "PlanRequest",
    "follow_history",
    "sample_shortest_path",
    "turn_actions",
]
