"""Many planners in one house: a shared-house episode, recorded for every agent at once.

Each agent is a :class:`~marple_gym.planner.HierarchicalPlanner` with its own
mission preferences; all of them act in one world, one joint step at a time,
through the episode transition (:meth:`marple_gym.episode.EpisodeState.advance`: agents act
in index order, the rules of docs/world.md). After each joint step every planner
hears what the others did (:meth:`HierarchicalPlanner.notice`) and plans again
when they changed what its plan relied on. An agent whose planner is done idles
until every planner is done or the step limit is reached, stepping aside at
random while another agent waits for the way (it may be standing in it).

::

    episode = generate_shared_episode(
        None, [{"do_laundry": 1.0}, {"change_outfit": 1.0}, {"get_snack": 1.0}], np.random.default_rng(0)
    )
    episode.trajectories[1].actions     # what agent 1 did, step by step
    episode.first_to("do_laundry")      # (agent, step) of whoever first reached the laundry's query state
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from marple_gym.episode.replay import replay
from marple_gym.episode.state import EpisodeState
from marple_gym.evidence.language import testimony
from marple_gym.generation.config import AgentSpec, HouseConfig
from marple_gym.generation.generator import generate_world
from marple_gym.planner.planner import HierarchicalPlanner
from marple_gym.recording.recorder import MAX_EPISODE_STEPS, AgentRecorder
from marple_gym.recording.records import Trajectory, changes_state
from marple_gym.rendering.palette import AGENT_COLORS
from marple_gym.world.actions import Action
from marple_gym.world.world import World

IDLE = int(Action.idle)


@dataclass(eq=False)
class SharedEpisode:
    """Every agent's recorded episode in one shared house, aligned on the joint step.

    ``trajectories[i]`` is world agent ``i``'s record in the single-agent format
    (:class:`~marple_gym.datasets.Trajectory`), all of one length: observation
    ``t`` of each is the house after ``t`` joint steps, its ``vision`` the
    shared grid as agent ``i`` sees it (itself as agent id 1, the others 2, 3,
    ...), its actions and outcomes agent ``i``'s own (idle once its planner is
    done). ``house`` is the explicit config with every agent at its start: it
    rebuilds the first state, and :meth:`world_at` replays the joint actions.
    Each trajectory's ``house`` is this config too; replay a trajectory through
    its shared episode, not on its own (the others' actions change its world).
    """

    house: HouseConfig
    house_id: str
    seed: int
    trajectories: tuple[Trajectory, ...]

    def __repr__(self) -> str:
        return (
            f"SharedEpisode(house={self.house_id!r}, seed={self.seed}, steps={self.length}, "
            f"agents={[(t.agent, list(t.missions)) for t in self.trajectories]})"
        )

    @property
    def agents(self) -> tuple[str, ...]:
        return tuple(t.agent for t in self.trajectories)

    @property
    def length(self) -> int:
        """T: the number of joint steps."""
        return self.trajectories[0].length

    def joint_actions(self) -> np.ndarray:
        """(T, n_agents) int8: every agent's action at every joint step."""
        return np.stack([t.actions for t in self.trajectories], axis=1)

    def initial_world(self) -> World:
        return generate_world(self.house, np.random.default_rng(0))

    def world_at(self, t: int) -> World:
        """The shared world after ``t`` joint steps (replayed through the episode transition)."""
        world = self.initial_world()
        episode = EpisodeState.start(world.house, world.state, (None,) * len(self.trajectories))
        for _ in replay(world.house, episode, self.joint_actions()[:t]):
            pass
        return world

    def testimonies(self, agent: int) -> list[str]:
        """Agent ``agent``'s testimony at each observation (the latest state change it made so far), from the
        shared replay: :attr:`Trajectory.testimonies` would replay the agent alone, without the others."""
        world = self.initial_world()
        episode = EpisodeState.start(world.house, world.state, (None,) * len(self.trajectories))
        out = [testimony(None, world.house)]
        for steps in replay(world.house, episode, self.joint_actions()):
            outcome = steps[agent].outcome
            out.append(testimony(outcome, world.house) if changes_state(outcome) else out[-1])
        return out

    def first_to(self, mission: str) -> tuple[int, int] | None:
        """(agent, joint steps) of the first agent to reach ``mission``'s query state, None if none did.

        Within one joint step agents act in index order, so a tie goes to the lower index.
        """
        reached = [(t.query_steps[mission], i) for i, t in enumerate(self.trajectories) if mission in t.query_steps]
        if not reached:
            return None
        steps, agent = min(reached)
        return agent, steps


def run_shared_episode(
    world: World,
    planners: Sequence[HierarchicalPlanner],
    *,
    house: HouseConfig,
    house_id: str = "",
    seed: int = 0,
    max_steps: int = MAX_EPISODE_STEPS,
) -> SharedEpisode:
    """Run ``planners`` (one per world agent, in agent order) together in ``world`` and record every agent.

    ``house`` is the house's explicit config; the agents' starts are taken from the world.
    """
    layout = world.house
    if [p.agent for p in planners] != list(range(layout.num_agents)):
        raise ValueError(f"give one planner per world agent in order: agents 0..{layout.num_agents - 1}")
    if any(p.world.state is not world.state for p in planners):
        raise ValueError("every planner must act in the shared world's state")
    start = _with_agents_at_start(house, world)
    episode = EpisodeState.start(layout, world.state, (None,) * len(planners))
    for planner in planners:
        planner.act_in(episode)  # the episode holds every planner's progress
    recorders = [AgentRecorder(layout, episode, i, p) for i, p in enumerate(planners)]
    for recorder in recorders:
        recorder.record()
    aside: list[deque[int]] = [deque() for _ in planners]
    for _ in range(max_steps):
        if all(p.done for p in planners):
            break
        actions = [_idle_action(p, planners, queue) if p.done else p.next_action() for p, queue in zip(planners, aside)]
        actions = [IDLE if a is None else a for a in actions]  # a planner that just gave up idles too
        missions = [len(p.missions) - 1 for p in planners]
        acting = [not p.done for p in planners]  # before the episode moves their progress on
        steps = episode.advance(layout, actions)
        for i, planner in enumerate(planners):
            # Hear the others first, so that a planner planning after its own success sees the world as it is.
            for k, other in enumerate(steps):
                if k != i:
                    planner.notice(other.outcome)
            achieved = planner.follow(steps[i]) if acting[i] else None
            recorders[i].acted(steps[i].outcome, missions[i], achieved)
        for recorder in recorders:
            recorder.record()
    return SharedEpisode(start, house_id, seed, tuple(r.trajectory(start, house_id, seed) for r in recorders))


def _idle_action(planner: HierarchicalPlanner, planners: Sequence[HierarchicalPlanner], queue: deque[int]) -> int:
    """What an agent whose planner is done does: idle, but step aside while another agent waits for the way."""
    if not queue and any(p.waiting and not p.done for p in planners):
        queue.extend(planner.step_aside())
    return queue.popleft() if queue else IDLE


def shared_house_config(config: HouseConfig | dict | str | None, agents: int) -> HouseConfig:
    """``config`` with ``agents`` agents: the config's own first ones, then ``agent_<i>`` in new colours."""
    config = HouseConfig.load(config)
    given = list(config.agents[:agents])
    colors = [c for c in AGENT_COLORS if c not in {a.color for a in given}]
    for k, i in enumerate(range(len(given), agents)):
        given.append(AgentSpec(f"agent_{i}", color=colors[k % len(colors)]))
    if len({a.name for a in given}) != len(given):
        raise ValueError(f"agents in one house need distinct names, got {[a.name for a in given]}")
    return replace(config, agents=given)


def generate_shared_episode(
    config: HouseConfig | dict | str | None,
    preferences: Sequence[Mapping[str, float] | str],
    rng: np.random.Generator,
    *,
    house_id: str = "",
    seed: int = 0,
    max_steps: int = MAX_EPISODE_STEPS,
) -> SharedEpisode:
    """One shared-house episode: a new house for ``config`` with one agent per entry of ``preferences``.

    ``preferences[i]`` is agent ``i``'s mission (a name) or mission preferences (name -> weight); the
    house makes every mission any agent may sample feasible. All randomness (the house, the starts, the
    missions, the paths) is drawn from ``rng`` in a fixed order, so one seed gives one episode.
    """
    wanted = [{p: 1.0} if isinstance(p, str) else dict(p) for p in preferences]
    if not wanted:
        raise ValueError("a shared-house episode needs at least one agent's preferences")
    config = shared_house_config(config, len(wanted))
    missions = list(dict.fromkeys(m for prefs in wanted for m, w in prefs.items() if w > 0))
    world = generate_world(config, rng, missions)
    planners = [HierarchicalPlanner(world, i, preferences=prefs, rng=rng) for i, prefs in enumerate(wanted)]
    house = replace(world.house.source["config"], agents=[])
    return run_shared_episode(world, planners, house=house, house_id=house_id, seed=seed, max_steps=max_steps)


def _with_agents_at_start(house: HouseConfig, world: World) -> HouseConfig:
    """``house`` with the world's agents at their current cells and directions (names and colours kept)."""
    layout, state = world.house, world.state
    agents = [
        AgentSpec(name, tuple(state.agent_pos[i].tolist()), int(state.agent_dir[i]), color)
        for i, (name, color) in enumerate(zip(layout.agent_names, layout.agent_colors))
    ]
    return replace(house, agents=agents)
