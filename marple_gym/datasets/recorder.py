"""Recording a planner's run as a :class:`Trajectory`."""

from __future__ import annotations

import numpy as np

from marple_gym.datasets.records import SubgoalSpan, Trajectory
from marple_gym.episode.observe import RECORD_KEYS, observe
from marple_gym.episode.state import EpisodeState
from marple_gym.episode.transition import advance
from marple_gym.generation.config import HouseConfig
from marple_gym.missions.mission import MISSIONS
from marple_gym.planner.planner import HierarchicalPlanner
from marple_gym.world.world import World

MAX_EPISODE_STEPS = 1000
_QUERIES = [(name, m.query_subgoal) for name, m in MISSIONS.items()]


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
    columns: dict[str, list] = {key: [] for key in RECORD_KEYS}
    mission_index, actions, outcomes = [], [], []
    query_steps: dict[str, int] = {}
    achieved: set[tuple[int, int]] = set()

    def record() -> None:
        # The planner tracks its own mission (and may move on to another): its progress is the one recorded.
        obs = observe(layout, episode, 0, RECORD_KEYS, progress=planner.progress)
        for key, value in obs.items():
            columns[key].append(value)
        mission_index.append(-1 if obs["subgoal_index"] < 0 else len(planner.missions) - 1)

    record()
    while not planner.done and len(actions) < max_steps:
        action = planner.next_action()
        if action is None:
            break
        mission = len(planner.missions) - 1
        ((outcome, _),) = advance(layout, episode, (action,))
        j = planner.observe(outcome)
        if j is not None:
            achieved.add((mission, j))
        actions.append(outcome.action)
        outcomes.append((int(outcome.success), outcome.fur, outcome.obj, outcome.value))
        if outcome.success and outcome.action > 2:
            for name, query in _QUERIES:
                if name not in query_steps and query.matches(outcome, layout):
                    query_steps[name] = len(actions)
        record()
    subgoal = columns["subgoal_index"]
    return Trajectory(
        house=house,
        house_id=house_id,
        seed=seed,
        agent=world.house.agent_names[0],
        missions=tuple(m.name for m in planner.missions),
        vision=np.stack(columns["image"]),
        position=np.array(columns["position"], dtype=np.int16),
        direction=np.array(columns["direction"], dtype=np.int8),
        carrying=np.array(columns["carrying"], dtype=np.int16),
        mission_index=np.array(mission_index, dtype=np.int8),
        subgoal=np.array(subgoal, dtype=np.int16),
        audio=np.array(columns["audio"], dtype=np.int16),
        actions=np.array(actions, dtype=np.int8),
        outcomes=np.array(outcomes, dtype=np.int16).reshape(-1, 4),
        spans=spans_from(mission_index, subgoal, achieved),
        query_steps=query_steps,
    )


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
