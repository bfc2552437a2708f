"""The hierarchical planner that generates agent trajectories."""

from marple_gym.planner.paths import sample_shortest_path
from marple_gym.planner.planner import HierarchicalPlanner

__all__ = ["HierarchicalPlanner", "sample_shortest_path"]
