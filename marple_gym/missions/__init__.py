"""The ten household missions: subgoals as data, progress tracking, feasibility."""

from marple_gym.missions.feasibility import is_feasible, target_cells
from marple_gym.missions.mission import MISSIONS, Mission, Subgoal, UnknownMissionError, get_mission
from marple_gym.missions.progress import MissionProgress
from marple_gym.missions.requirements import Requirement, house_requirements, mission_requirements

__all__ = [
    "MISSIONS",
    "Mission",
    "MissionProgress",
    "Requirement",
    "Subgoal",
    "UnknownMissionError",
    "get_mission",
    "house_requirements",
    "is_feasible",
    "mission_requirements",
    "target_cells",
]
