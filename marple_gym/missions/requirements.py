"""What a house must contain for missions to be feasible, derived from their subgoals.

For each (furniture type, room type) a mission uses, walking its subgoals in
order gives:

* the objects that must start on or in it (picked up before anything was
  dropped there),
* the states it must start in (the opposite of the first state each subgoal
  sets: a light the mission switches on starts off),
* whether the mission drops something there (it then needs a free cell).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from marple_gym.missions.mission import Mission
from marple_gym.world.actions import Action


@dataclass
class Requirement:
    """One piece of furniture a mission needs, and how it must start."""

    fur: str
    room: str
    contains: list[str] = field(default_factory=list)
    initial: dict[str, bool] = field(default_factory=dict)
    needs_free_cell: bool = False
    missions: list[str] = field(default_factory=list)

    def compatible(self, other: Requirement) -> bool:
        return (self.fur, self.room) == (other.fur, other.room) and all(
            other.initial.get(k, v) == v for k, v in self.initial.items()
        )

    def merge(self, other: Requirement) -> None:
        self.contains.extend(o for o in other.contains if o not in self.contains)
        self.initial.update(other.initial)
        self.needs_free_cell |= other.needs_free_cell
        self.missions.extend(m for m in other.missions if m not in self.missions)


def mission_requirements(mission: Mission) -> list[Requirement]:
    """The furniture one mission needs, in order of first use."""
    groups: dict[tuple[str, str], Requirement] = {}
    dropped: set[tuple[str, str, str]] = set()
    for sg in mission.subgoals:
        req = groups.setdefault((sg.fur, sg.room), Requirement(sg.fur, sg.room, missions=[mission.name]))
        if sg.action == Action.pickup and (sg.obj, sg.fur, sg.room) not in dropped and sg.obj not in req.contains:
            req.contains.append(sg.obj)
        elif sg.action == Action.drop:
            dropped.add((sg.obj, sg.fur, sg.room))
            req.needs_free_cell = True
        elif sg.state is not None:
            req.initial.setdefault(sg.state[0], not sg.state[1])
    return list(groups.values())


def house_requirements(missions: list[Mission]) -> list[Requirement]:
    """Requirements of several missions, merged where one piece of furniture can serve all."""
    merged: list[Requirement] = []
    for mission in missions:
        for req in mission_requirements(mission):
            target = next((m for m in merged if m.compatible(req)), None)
            if target is None:
                merged.append(req)
            else:
                target.merge(req)
    return merged
