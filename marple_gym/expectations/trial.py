"""Expectation trials: familiarisation episodes of one agent, then a test that is expected or surprising.

An :class:`Episode` is a stage (:class:`~marple_gym.generation.stage.Stage`:
the house, its obstacles and objects, where the agent starts, what an onlooker
cannot see) and the agent's actions; replaying them through the episode
transition gives every state. A :class:`Trial` holds the truth (the agent's
rewards and costs, which test is which); a method that rates surprise sees only
a :class:`TrialView`: what an onlooker sees of each episode
(:class:`EpisodeEvidence`: the vision arrays with the occluded cells zeroed, the
scene graphs cut the same way), the tests in an order drawn per trial, and no
label.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

import networkx as nx
import numpy as np

from marple_gym.episode import EpisodeState
from marple_gym.errors import MarpleError
from marple_gym.evidence import SceneGraphBuilder, Visibility
from marple_gym.generation.stage import Cell, Stage
from marple_gym.planner.utility import Preferences
from marple_gym.world.house import House
from marple_gym.world.state import CH_AGENT, CH_AGENT_DIR, CH_FUR, CH_FUR_STATE, CH_ROOM, WorldState
from marple_gym.world.world import World

SPLITS = ("train", "validation", "test")
"""As AGENT's: training and validation trials hold the expected test only; test trials hold both."""
TESTS = ("expected", "surprising")


class TrialError(MarpleError, ValueError):
    """A trial that cannot be what it claims: actions that do not replay, a malformed record."""


@dataclass(frozen=True)
class Episode:
    """One episode: a stage and the agent's actions in it.

    ``reveal``: the occluder is lifted after the last action, showing what it
    hid (the unobserved-constraints test); ``continues``: the index of the
    familiarisation episode this test shows again (the same run, now revealed);
    ``through``: cells of obstacles or walls the agent passes through, as no
    agent can (AGENT's type 2.5): the actions replay with these obstacles lifted
    and doors in these walls, and every state shows them standing, the agent
    inside one as it passes.
    """

    stage: Stage
    actions: tuple[int, ...]
    reveal: bool = False
    continues: int | None = None
    through: tuple[Cell, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "actions", tuple(int(a) for a in self.actions))
        object.__setattr__(self, "through", tuple(sorted({(int(x), int(y)) for x, y in self.through})))
        stray = [c for c in self.through if c not in self.stage.obstacles and not _inner_wall(self.stage, c)]
        if stray:
            raise TrialError(f"an episode passes only through its stage's obstacles and inner walls, not {stray}")

    @property
    def states(self) -> tuple[WorldState, ...]:
        """The world after each step, the start first (T + 1 states), replayed through the episode transition."""
        return _replayed(self)

    def world(self, t: int = 0) -> World:
        """The world at step ``t`` (a copy)."""
        return World(self.stage.house, self.states[t].copy())

    def vision(self) -> np.ndarray:
        """The (T + 1, H, W, 8) vision arrays of every step, nothing hidden."""
        return np.stack([s.grid for s in self.states])

    def evidence(self) -> EpisodeEvidence:
        """What an onlooker sees of this episode (see :class:`EpisodeEvidence`)."""
        return EpisodeEvidence(self)


def _inner_wall(stage: Stage, cell: Cell) -> bool:
    """Is ``cell`` a wall between two of the stage's rooms (a cell a door could open)?"""
    x, y = cell
    inside = 0 < x < stage.width - 1 and 0 < y < stage.height - 1
    return inside and stage.room_of(cell) is None and cell not in stage.doors


def _opened(stage: Stage, cells: tuple[Cell, ...]) -> Stage:
    """``stage`` with its obstacles at ``cells`` lifted and doors in its walls there: where an episode that passes
    through them replays."""
    walls = tuple(c for c in cells if c not in stage.obstacles)
    return replace(stage.without_obstacles(cells), doors=stage.doors + walls)


@lru_cache(maxsize=256)
def _replayed(episode: Episode) -> tuple[WorldState, ...]:
    world = _opened(episode.stage, episode.through).world()
    run = EpisodeState.start(world.house, world.state, (None,))
    states = [world.state.copy()]
    for t, action in enumerate(episode.actions):
        ((outcome, _),) = run.advance(world.house, (action,))
        if not outcome.success:
            raise TrialError(f"action {t} ({action}) fails when replayed in its stage: the episode is not one run")
        states.append(world.state.copy())
    if episode.through:  # what the agent passed through stands in every state, as the onlooker sees it
        standing = episode.stage.world().state
        xs, ys = np.array(episode.through).T
        for state in states:
            state.fur_state = standing.fur_state.copy()  # the stage's own furniture (nothing is used on the way)
            for channel in (CH_ROOM, CH_FUR, CH_FUR_STATE):
                state.grid[ys, xs, channel] = standing.grid[ys, xs, channel]
    return tuple(states)


class EpisodeEvidence:
    """What an onlooker sees of one episode: nothing of the occluded cells, in any modality.

    :attr:`vision` holds the (T + 1, H, W, 8) arrays with the occluded cells all
    zeros (the egocentric view's "unseen"); :attr:`hidden` the (H, W) mask of
    those cells; :attr:`revealed` the last step with the occluder lifted (a
    reveal test), else None; :attr:`continues` the familiarisation episode a
    test shows again. :meth:`scene_graph` is cut the same way as the arrays.
    """

    def __init__(self, episode: Episode) -> None:
        self._episode = episode
        self._visibility = episode.stage.visibility()
        self.hidden: np.ndarray = self._visibility.hidden
        vision = self._visibility.vision(episode.vision())
        vision.flags.writeable = False
        self.vision: np.ndarray = vision
        revealed = episode.states[-1].grid.copy() if episode.reveal else None
        if revealed is not None:
            revealed.flags.writeable = False
        self.revealed: np.ndarray | None = revealed
        self.continues = episode.continues

    @property
    def steps(self) -> int:
        """The number of actions (T)."""
        return len(self.vision) - 1

    @cached_property
    def poses(self) -> tuple[tuple[int, int, int] | None, ...]:
        """The agent's (x, y, heading) at each step, None while the occluder hides it."""
        out: list[tuple[int, int, int] | None] = []
        for grid in self.vision:
            ys, xs = np.nonzero(grid[..., CH_AGENT])
            out.append((int(xs[0]), int(ys[0]), int(grid[ys[0], xs[0], CH_AGENT_DIR]) - 1) if len(xs) else None)
        return tuple(out)

    @cached_property
    def actions(self) -> tuple[int | None, ...]:
        """The agent's actions, None for each one the occluder hides (the agent unseen before or after it)."""
        poses = self.poses
        acts = self._episode.actions
        return tuple(a if poses[t] is not None and poses[t + 1] is not None else None for t, a in enumerate(acts))

    def scene_graph(self, t: int) -> nx.DiGraph:
        """The scene graph of step ``t`` as the onlooker sees it (revealed at the last step of a reveal)."""
        states = self._episode.states
        graph = SceneGraphBuilder(self._episode.stage.house).build(states[t])
        if self.revealed is not None and t == len(states) - 1:
            return graph
        return self._visibility.scene_graph(graph)

    @property
    def visibility(self) -> Visibility:
        return self._visibility

    @property
    def house(self) -> House:
        """The house the episode is played in (its rooms and walls are in plain sight)."""
        return self._episode.stage.house


@dataclass(frozen=True)
class TrialKey:
    """Which trial: scenario, type, split and index within them."""

    scenario: str
    type: str
    split: str
    index: int

    @property
    def id(self) -> str:
        return f"{self.scenario}/{self.type}/{self.split}/{self.index:05d}"


@dataclass(frozen=True)
class Trial:
    """A familiarisation and its tests, with the truth (see module docs).

    ``surprising`` is None in the training and validation splits (expected tests
    only, as AGENT's); ``agent`` holds the rewards and costs of the agent.
    """

    key: TrialKey
    seed: int
    agent: Preferences
    familiarisation: tuple[Episode, ...]
    expected: Episode
    surprising: Episode | None = None

    @property
    def id(self) -> str:
        return self.key.id

    @property
    def tests(self) -> dict[str, Episode]:
        """The trial's test episodes by name (``expected``, and ``surprising`` where there is one)."""
        out = {"expected": self.expected}
        if self.surprising is not None:
            out["surprising"] = self.surprising
        return out

    def view(self, order: Sequence[str] | None = None) -> TrialView:
        """What a rater sees: the familiarisation's and the tests' evidence, the tests in ``order`` (names of
        :attr:`tests`, each at most once; default: all, as listed), and nothing that says which is which."""
        names = list(self.tests) if order is None else list(order)
        if len(set(names)) != len(names) or not set(names) <= set(self.tests) or not names:
            raise ValueError(f"order must name some of the trial's tests {sorted(self.tests)}, once each, got {names}")
        return TrialView(
            tuple(e.evidence() for e in self.familiarisation), tuple(self.tests[n].evidence() for n in names)
        )


@dataclass(frozen=True, eq=False)
class TrialView:
    """A trial as a rater sees it: the familiarisation's evidence and the tests' evidence, unlabelled."""

    familiarisation: tuple[EpisodeEvidence, ...]
    tests: tuple[EpisodeEvidence, ...]
