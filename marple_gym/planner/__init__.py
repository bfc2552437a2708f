"""The hierarchical planner that generates agent trajectories."""

from marple_gym.planner.paths import sample_shortest_path
from marple_gym.planner.planner import HierarchicalPlanner, MissionHistory, follow_history

__all__ = ["HierarchicalPlanner", "MissionHistory", "follow_history", "sample_shortest_path"]
