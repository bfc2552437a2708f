"""The hierarchical planner that generates agent trajectories.

:mod:`~marple_gym.planner.planner` holds its state machine, over the pieces a reader looks for: mission choice
(:mod:`~marple_gym.planner.mission_choice`), subgoal binding (:mod:`~marple_gym.planner.binding`), path following
(:mod:`~marple_gym.planner.routes` over :mod:`~marple_gym.planner.paths`) and shared-house coordination
(:mod:`~marple_gym.planner.coordination`).
"""

from marple_gym.planner.mission_choice import MissionHistory, follow_history
from marple_gym.planner.paths import sample_shortest_path
from marple_gym.planner.planner import HierarchicalPlanner
from marple_gym.planner.routes import PlanRequest, turn_actions

__all__ = [
    "HierarchicalPlanner",
    "MissionHistory",
    "PlanRequest",
    "follow_history",
    "sample_shortest_path",
    "turn_actions",
]
