"""Recording a planner's run as a :class:`Trajectory`."""

from __future__ import annotations

import numpy as np

from marple_gym.episode.observe import RECORD_KEYS, observe
from marple_gym.episode.state import EpisodeState
from marple_gym.generation.config import HouseConfig
from marple_gym.missions.mission import MISSIONS
from marple_gym.planner.planner import HierarchicalPlanner
from marple_gym.recording.records import SubgoalSpan, Trajectory
from marple_gym.world.actions import Outcome
from marple_gym.world.house import House
from marple_gym.world.world import World

MAX_EPISODE_STEPS = 1000
_QUERIES = [(name, m.query_subgoal) for name, m in MISSIONS.items()]


class AgentRecorder:
    """The columns of one agent's :class:`Trajectory`, filled one observation and one action at a time.

    ``agent`` indexes the episode's acting agents; the planner acts in ``episode``
    (:meth:`HierarchicalPlanner.act_in`), so the episode's progress of the agent, the one recorded, is the
    planner's (which may move on to another mission).
    """

    def __init__(self, layout: House, episode: EpisodeState, agent: int, planner: HierarchicalPlanner) -> None:
        if planner.episode is not episode:
            raise ValueError("record a planner in the episode it acts in (HierarchicalPlanner.act_in)")
        self.layout, self.episode, self.agent, self.planner = layout, episode, agent, planner
        self.columns: dict[str, list] = {key: [] for key in RECORD_KEYS}
        self.mission_index: list[int] = []
        self.actions: list[int] = []
        self.outcomes: list[tuple[int, int, int, int]] = []
        self.query_steps: dict[str, int] = {}
        self.achieved: set[tuple[int, int]] = set()

    def record(self) -> None:
        """Record the agent's observation of the episode as it is now."""
        obs = observe(self.layout, self.episode, self.agent, RECORD_KEYS)
        for key, value in obs.items():
            self.columns[key].append(value)
        self.mission_index.append(-1 if obs["subgoal_index"] < 0 else len(self.planner.missions) - 1)

    def acted(self, outcome: Outcome, mission: int, achieved: int | None) -> None:
        """Record what the agent's action did; ``mission`` indexes the planner's missions when it acted."""
        if achieved is not None:
            self.achieved.add((mission, achieved))
        self.actions.append(outcome.action)
        self.outcomes.append((int(outcome.success), outcome.fur, outcome.obj, outcome.value))
        if outcome.success and outcome.action > 2:
            for name, query in _QUERIES:
                if name not in self.query_steps and query.matches(outcome, self.layout):
                    self.query_steps[name] = len(self.actions)

    def trajectory(self, house: HouseConfig, house_id: str, seed: int) -> Trajectory:
        """The recorded columns as a :class:`Trajectory`."""
        columns, subgoal = self.columns, self.columns["subgoal_index"]
        return Trajectory(
            house=house,
            house_id=house_id,
            seed=seed,
            agent=self.layout.agent_names[self.episode.agents[self.agent]],
            missions=tuple(m.name for m in self.planner.missions),
            vision=np.stack(columns["image"]),
            position=np.array(columns["position"], dtype=np.int16),
            direction=np.array(columns["direction"], dtype=np.int8),
            carrying=np.array(columns["carrying"], dtype=np.int16),
            mission_index=np.array(self.mission_index, dtype=np.int8),
            subgoal=np.array(subgoal, dtype=np.int16),
            audio=np.array(columns["audio"], dtype=np.int16),
            actions=np.array(self.actions, dtype=np.int8),
            outcomes=np.array(self.outcomes, dtype=np.int16).reshape(-1, 4),
            spans=spans_from(self.mission_index, subgoal, self.achieved),
            query_steps=self.query_steps,
        )


def record_trajectory(
    world: World,
    planner: HierarchicalPlanner,
    *,
    house: HouseConfig,
    house_id: str,
    seed: int,
    max_steps: int = MAX_EPISODE_STEPS,
) -> Trajectory:
    """Run ``planner`` in ``world`` (agent 0) until done, recording every observation.

    ``house`` is the house's explicit config (the agent's start is taken from the world).
    """
    layout = world.house
    episode = EpisodeState.start(layout, world.state, (None,), agents=(planner.agent,))
    planner.act_in(episode)
    recorder = AgentRecorder(layout, episode, 0, planner)
    recorder.record()
    while not planner.done and len(recorder.actions) < max_steps:
        action = planner.next_action()
        if action is None:
            break
        mission = len(planner.missions) - 1
        (step,) = episode.advance(layout, (action,))
        recorder.acted(step.outcome, mission, planner.follow(step))
        recorder.record()
    return recorder.trajectory(house, house_id, seed)


def spans_from(mission_index: list[int], subgoal: list[int], achieved: set[tuple[int, int]]) -> tuple[SubgoalSpan, ...]:
    """Subgoal boundaries from the per-observation subgoal indices."""
    spans = []
    start = 0
    for t in range(1, len(subgoal) + 1):
        if t == len(subgoal) or (mission_index[t], subgoal[t]) != (mission_index[start], subgoal[start]):
            m, s = mission_index[start], subgoal[start]
            if m >= 0 and s >= 0:
                spans.append(SubgoalSpan(m, s, start, t, (m, s) in achieved))
            start = t
    return tuple(spans)
