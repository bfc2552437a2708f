"""Episodes of an agent searching a house, alone or after a Sally-Anne setup, recorded and replayed.

Two kinds, both pure functions of their generator:

* ``"search"`` (:func:`search_episode`): agent ``A`` wants one object of the house and starts with a prior
  belief about where it is: every piece that could hold it, or, with probability ``exclusion``, all but one
  (the agent "knows" it is not there, rightly or not). It searches by :mod:`marple_gym.beliefs.search` until
  it picks the object up or the step limit.
* ``"false-belief"`` (:func:`false_belief_episode`), the Sally-Anne test: ``A`` takes the object from where
  it lies, puts it away in a closed container, closes it and goes to another room; while it is away, ``B``
  takes the object out and puts it in another closed container; then ``A`` comes back for it, believing it
  where it put it.

The setup's errands (:class:`Errand`) and the search act through the episode transition
(:meth:`marple_gym.episode.EpisodeState.advance`), one joint step at a time; an agent with nothing to do
idles. An episode stores the explicit house (agents at their starts), every joint action and what the
searcher wanted and believed at the start, so :meth:`SearchEpisode.trace` replays it exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from marple_gym.beliefs.belief import ObjectBelief
from marple_gym.beliefs.houses import apartment_config
from marple_gym.beliefs.locations import bits_of, locations_of, object_piece, pieces_of, unique_objects
from marple_gym.beliefs.perception import VIEW_SIZE, Percept, perceive, sighting_of
from marple_gym.beliefs.search import IDLE, Moment, SearchPolicy, SearchSettings
from marple_gym.episode.replay import replay
from marple_gym.episode.state import EpisodeState
from marple_gym.errors import MarpleError
from marple_gym.generation.config import AgentSpec, HouseConfig, HouseConfigError
from marple_gym.generation.generator import generate_world
from marple_gym.validation import Fields, message_error
from marple_gym.world.actions import NUM_ACTIONS, Action, Outcome
from marple_gym.world.assets import ASSETS
from marple_gym.world.house import DIR_VEC, House
from marple_gym.world.state import CH_OBJ, WorldState
from marple_gym.world.world import World

KINDS = ("search", "false-belief")
_JSON_KEYS = (
    "id",
    "kind",
    "house",
    "goal",
    "prior",
    "actions",
    "search_start",
    "found",
    "settings",
    "searcher",
    "seed",
)
DEFAULT_SETTINGS = SearchSettings()
MAX_SEARCH_STEPS = 200
"""Steps a searcher gets to find its object (a search of the default house takes 20-60)."""
EXCLUSION = 0.3
"""Chance that a searcher starts sure the object is not in one of the places that could hold it."""


class EpisodeError(MarpleError, ValueError):
    """No episode of the kind asked for can be made in this house (no object to search for, no second
    container to move it to)."""


@dataclass(frozen=True)
class SearchEpisode:
    """One recorded episode of a searching agent (see the module docs)."""

    id: str
    kind: str
    house: HouseConfig
    """The explicit house, every agent at its start: it rebuilds the first state exactly."""
    goal: str
    """The object type the searcher wants."""
    prior: int
    """Bits of the pieces the searcher started thinking could hold it (see :mod:`marple_gym.beliefs.locations`)."""
    actions: np.ndarray
    """(T, agents) int8: every agent's action at every joint step."""
    search_start: int
    """The joint step at which the searcher starts searching (0; after the setup of a false-belief episode)."""
    found: int
    """The joint step after which the searcher holds its object, -1 if it never did."""
    settings: SearchSettings = field(default_factory=SearchSettings)
    searcher: int = 0
    seed: int = 0

    @property
    def length(self) -> int:
        """T: the number of joint steps."""
        return len(self.actions)

    @property
    def goal_code(self) -> int:
        return ASSETS.object_code[self.goal]

    def initial_world(self) -> World:
        """The first state, rebuilt from the explicit house."""
        return generate_world(self.house, np.random.default_rng(0))

    @cached_property
    def _trace(self) -> EpisodeTrace:
        return EpisodeTrace.replay(self)

    def trace(self) -> EpisodeTrace:
        """Every state of the episode, replayed once and kept, with what the searcher perceived."""
        return self._trace

    def to_json(self) -> dict[str, Any]:
        """The episode as plain JSON (:meth:`from_json` reads it back to an equal episode)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "house": self.house.to_dict(),
            "goal": self.goal,
            "prior": pieces_of(self.prior),
            "actions": self.actions.tolist(),
            "search_start": self.search_start,
            "found": self.found,
            "settings": self.settings.to_json(),
            "searcher": self.searcher,
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, data: Any, file: str | None = None, where: str = "") -> SearchEpisode:
        """An episode from :meth:`to_json`'s form, read strictly: an :class:`EpisodeError` names the field (and
        ``file``) of anything missing, unknown or of the wrong type."""
        f = Fields(data, where, message_error(EpisodeError), file).allow(_JSON_KEYS).require(*_JSON_KEYS)
        actions = f.list("actions")
        if (
            not all(
                isinstance(row, list) and row and all(type(a) is int and 0 <= a < NUM_ACTIONS for a in row)
                for row in actions
            )
            or len({len(row) for row in actions}) > 1
        ):
            raise f.fail("actions", f"expected a list of equal rows of action numbers 0..{NUM_ACTIONS - 1}")
        goal = f.str("goal", choices=ASSETS.object_code)
        prior = f.list("prior")
        if not all(type(p) is int and 0 <= p < 1024 for p in prior):
            raise f.fail("prior", "expected a list of furniture indices")
        s = f.fields("settings").allow(("perception", "view_size", "lapse", "miss_cost"))
        try:
            settings = SearchSettings(
                s.str("perception", "room"),
                s.int("view_size", VIEW_SIZE),
                s.number("lapse", 0.05),
                s.number("miss_cost", None),
            )
        except ValueError as exc:
            raise s.fail("", str(exc)) from None
        house = f.mapping("house")
        try:
            config = HouseConfig.from_dict(house, file)
        except HouseConfigError as exc:
            raise EpisodeError(f"{f.path('house')}: {exc}") from None
        return cls(
            f.str("id"),
            f.str("kind", choices=KINDS),
            config,
            goal,
            bits_of(prior),
            np.array(actions, dtype=np.int8).reshape(len(actions), -1 if actions else len(config.agents)),
            f.int("search_start", low=0),
            f.int("found", low=-1),
            settings,
            f.int("searcher", low=0),
            f.int("seed"),
        )

    def __hash__(self) -> int:
        return hash(self.id)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, SearchEpisode)
            and (self.id, self.kind, self.goal, self.prior, self.search_start, self.found, self.settings, self.seed)
            == (
                other.id,
                other.kind,
                other.goal,
                other.prior,
                other.search_start,
                other.found,
                other.settings,
                other.seed,
            )
            and np.array_equal(self.actions, other.actions)
            and self.house == other.house
        )


class EpisodeTrace:
    """A replayed episode: its states, outcomes, and what the searcher perceived at every step.

    ``states[t]`` is the world after ``t`` joint steps (``t = 0..T``), ``outcomes[t]`` what each agent's
    action at step ``t`` did, ``percepts[t]`` what the searcher perceived in ``states[t]``.
    """

    def __init__(
        self, episode: SearchEpisode, house: House, states: list[WorldState], outcomes: list[tuple[Outcome, ...]]
    ) -> None:
        self.episode = episode
        self.house = house
        self.states = states
        self.outcomes = outcomes
        settings = episode.settings
        self.percepts: list[Percept] = [
            perceive(house, s, episode.searcher, settings.perception, settings.view_size) for s in states
        ]
        self._sightings: dict[int, list] = {}
        self._moments: list[Moment | None] = [None] * len(states)

    @classmethod
    def replay(cls, episode: SearchEpisode) -> EpisodeTrace:
        world = episode.initial_world()
        agents = tuple(range(world.house.num_agents))
        state = EpisodeState.start(world.house, world.state, (None,) * len(agents), agents)
        states = [world.state.copy()]
        outcomes = []
        for steps in replay(world.house, state, episode.actions):
            states.append(world.state.copy())
            outcomes.append(tuple(s.outcome for s in steps))
        return cls(episode, world.house, states, outcomes)

    @cached_property
    def policy(self) -> SearchPolicy:
        """The searching policy of the episode's house and settings."""
        return SearchPolicy(self.house, self.episode.settings)

    def moment(self, t: int) -> Moment:
        """What the policy reads of the searcher at step ``t`` (worked out once)."""
        found = self._moments[t]
        if found is None:
            found = self._moments[t] = self.policy.moment(self.states[t], self.episode.searcher, self.last_outcome(t))
        return found

    def last_outcome(self, t: int) -> Outcome | None:
        """What the searcher's action before state ``t`` did (None at the start)."""
        return None if t == 0 else self.outcomes[t - 1][self.episode.searcher]

    def sightings(self, code: int) -> list[tuple[int, tuple[int, int]] | None]:
        """At every step, where the searcher sees an object of type ``code`` (piece, cell), or None."""
        found = self._sightings.get(code)
        if found is None:
            found = self._sightings[code] = [
                sighting_of(self.house, s, p, code) for s, p in zip(self.states, self.percepts)
            ]
        return found

    def beliefs(self, code: int, prior: int, start: int = 0, restart: int | None = None) -> list[ObjectBelief]:
        """The searcher's belief about where an object of type ``code`` is at every step, starting from
        ``prior`` at step ``start`` (the belief at step t has taken in ``percepts[t]``); ``restart``: the
        places a belief left with none starts again from (default: every piece that could hold the object)."""
        candidates = locations_of(self.house).candidates(code) if restart is None else restart
        seen = self.sightings(code)
        belief = ObjectBelief.start(prior)
        out = []
        for t, percept in enumerate(self.percepts):
            if t >= start:
                belief = belief.revise(percept, seen[t], candidates)
            out.append(belief)
        return out


# ---- acting ---------------------------------------------------------------------------------------------------


class Searcher:
    """An agent searching for an object of type ``goal``: perceives, revises its belief, acts by the policy."""

    def __init__(self, policy: SearchPolicy, agent: int, goal: int, prior: int, rng: np.random.Generator) -> None:
        self.policy = policy
        self.agent = agent
        self.goal = goal
        self.rng = rng
        self.belief = ObjectBelief.start(prior)
        self.percept: Percept | None = None
        """What the agent perceived last."""
        self._candidates = policy.locations.candidates(goal)

    def perceive(self, state: WorldState) -> None:
        """Take in what the agent perceives in ``state``."""
        house, settings = self.policy.house, self.policy.settings
        self.percept = percept = perceive(house, state, self.agent, settings.perception, settings.view_size)
        self.belief = self.belief.revise(percept, sighting_of(house, state, percept, self.goal), self._candidates)

    def holds_goal(self, state: WorldState) -> bool:
        return any(o >= 0 and self.policy.house.obj_type_list[o] == self.goal for o in state.carrying[self.agent])

    def act(self, state: WorldState, last: Outcome | None) -> int:
        """The next action, drawn from the policy."""
        return self.policy.sample(self.policy.moment(state, self.agent, last), self.goal, self.belief, self.rng)


@dataclass
class Errand:
    """A scripted agent of a setup: a list of (flat target cells, action) tasks, each done facing one of its
    cells after walking there by a cheapest route (ties drawn at random)."""

    policy: SearchPolicy
    agent: int
    tasks: list[tuple[tuple[int, ...], int]]
    rng: np.random.Generator

    @property
    def done(self) -> bool:
        return not self.tasks

    def act(self, state: WorldState, last: Outcome | None) -> int:
        if not self.tasks:
            return IDLE
        cells, action = self.tasks[0]
        moment = self.policy.moment(state, self.agent, last)
        p = self.policy.approach(moment, cells)
        if p[IDLE] == 1.0:  # facing a target (or stuck): do the task's action
            self.tasks.pop(0)
            return action
        return int(self.rng.choice(NUM_ACTIONS, p=p))


class _Run:
    """An episode being acted out: the joint steps so far, every state and outcome (the episode's trace, so it
    need not be replayed), and each agent's last outcome."""

    def __init__(self, world: World, searcher: Searcher) -> None:
        self.world = world
        self.searcher = searcher
        self.agents = tuple(range(world.house.num_agents))
        self.episode = EpisodeState.start(world.house, world.state, (None,) * len(self.agents), self.agents)
        self.actions: list[list[int]] = []
        self.states = [world.state.copy()]
        self.outcomes: list[tuple[Outcome, ...]] = []
        self.last: list[Outcome | None] = [None] * len(self.agents)
        searcher.perceive(world.state)

    def step(self, chosen: dict[int, int]) -> None:
        joint = [chosen.get(a, IDLE) for a in self.agents]
        steps = self.episode.advance(self.world.house, joint)
        self.actions.append(joint)
        self.outcomes.append(tuple(s.outcome for s in steps))
        self.states.append(self.world.state.copy())
        for a, s in zip(self.agents, steps):
            self.last[a] = s.outcome
        self.searcher.perceive(self.world.state)

    def setup(self, phases: Sequence[Sequence[Errand]], max_steps: int, watch=None) -> None:
        """Act out the setup's phases, each until its errands are done; ``watch()`` after every step may raise
        :class:`EpisodeError` to give the episode up at once."""
        for phase in phases:
            while not all(e.done for e in phase):
                if len(self.actions) >= max_steps:
                    raise EpisodeError("the setup did not finish in time (a way was blocked)")
                self.step({e.agent: e.act(self.world.state, self.last[e.agent]) for e in phase})
                if watch is not None:
                    watch()

    def search(self, max_steps: int) -> tuple[int, int]:
        """The searcher searches until it holds its object or ``max_steps`` more steps: (the step the search
        started, the step after which it held the object or -1)."""
        start = len(self.actions)
        searcher = self.searcher
        while not searcher.holds_goal(self.world.state) and len(self.actions) < start + max_steps:
            self.step({searcher.agent: searcher.act(self.world.state, self.last[searcher.agent])})
        return start, len(self.actions) if searcher.holds_goal(self.world.state) else -1

    def record(self, episode: SearchEpisode) -> SearchEpisode:
        """``episode`` with this run as its trace (what a replay would give)."""
        episode.__dict__["_trace"] = EpisodeTrace(episode, self.world.house, self.states, self.outcomes)
        return episode

    @property
    def joint_actions(self) -> np.ndarray:
        return np.array(self.actions, dtype=np.int8).reshape(-1, len(self.agents))


def sample_prior(candidates: int, rng: np.random.Generator, exclusion: float = EXCLUSION) -> int:
    """A searcher's prior support: every candidate piece, or with probability ``exclusion`` (and at least two
    candidates) all but one drawn uniformly."""
    pieces = pieces_of(candidates)
    if len(pieces) < 2 or rng.random() >= exclusion:
        return candidates
    return candidates & ~(1 << pieces[int(rng.integers(len(pieces)))])


def _explicit(world: World, config: HouseConfig) -> HouseConfig:
    """The world's explicit config with its agents at their starts (names and colours from ``config``)."""
    state = world.state
    agents = [
        AgentSpec(spec.name, tuple(state.agent_pos[i].tolist()), int(state.agent_dir[i]), spec.color)
        for i, spec in enumerate(config.agents)
    ]
    return replace(world.house.source["config"], agents=agents)


def search_episode(
    rng: np.random.Generator,
    config: HouseConfig | None = None,
    settings: SearchSettings = DEFAULT_SETTINGS,
    *,
    goal: str | None = None,
    prior: Sequence[int] | None = None,
    exclusion: float = EXCLUSION,
    episode_id: str = "",
    seed: int = 0,
    max_steps: int = MAX_SEARCH_STEPS,
) -> SearchEpisode:
    """A ``"search"`` episode (see the module docs) in a new house for ``config`` (default: the apartment).

    ``goal`` (an object type the house holds exactly one of) and ``prior`` (the furniture indices the searcher
    starts thinking could hold it) are drawn when not given."""
    config = apartment_config() if config is None else config
    world = generate_world(config, rng)
    house = world.house
    goal_code = pick_goal(house, world.state, goal, rng)
    policy = SearchPolicy(house, settings)
    candidates = policy.locations.candidates(goal_code)
    prior = sample_prior(candidates, rng, exclusion) if prior is None else bits_of(prior)
    if not prior or prior & ~candidates:
        raise EpisodeError(f"a prior must name pieces that could hold a {ASSETS.object_names[goal_code]}")
    explicit = _explicit(world, config)
    run = _Run(world, Searcher(policy, 0, goal_code, prior, rng))
    start, found = run.search(max_steps)
    name = ASSETS.object_names[goal_code]
    return run.record(
        SearchEpisode(episode_id, "search", explicit, name, prior, run.joint_actions, start, found, settings, 0, seed)
    )


def pick_goal(house: House, state: WorldState, goal: str | None, rng: np.random.Generator) -> int:
    """The type code of the object to search for: ``goal``, or one drawn uniformly among the types the house
    holds exactly one of on furniture (:class:`EpisodeError` if there is none, or ``goal`` is not one)."""
    options = sorted(unique_objects(house, state))
    if goal is not None:
        code = ASSETS.object_code.get(goal, -1)
        if code not in options:
            raise EpisodeError(f"this house has no single {goal!r} lying on furniture to search for")
        return code
    if not options:
        raise EpisodeError("this house has no object of which it holds exactly one: nothing to search for")
    return options[int(rng.integers(len(options)))]


def false_belief_episode(
    rng: np.random.Generator,
    config: HouseConfig | None = None,
    settings: SearchSettings = DEFAULT_SETTINGS,
    *,
    exclusion: float = EXCLUSION,
    episode_id: str = "",
    seed: int = 0,
    max_steps: int = MAX_SEARCH_STEPS,
) -> SearchEpisode:
    """A ``"false-belief"`` episode (the Sally-Anne test, see the module docs) in a new house for ``config``
    (default: the apartment, with two agents). Raises :class:`EpisodeError` when the house has no single object
    with two closed containers that could hold it, in other rooms than some third room, to put it in."""
    config = apartment_config(agents=2) if config is None else config
    if len(config.agents) < 2:
        raise EpisodeError("a false-belief episode needs two agents in the config: one searches, one moves")
    world = generate_world(config, rng)
    house, state = world.house, world.state
    policy = SearchPolicy(house, settings)
    setup = _sally_anne(house, state, policy, rng)
    if setup is None:
        raise EpisodeError("no object of this house could be put away in one closed container and moved to another")
    goal_code, obj, first, second, rest, away = setup
    prior = sample_prior(policy.locations.candidates(goal_code), rng, exclusion)
    explicit = _explicit(world, config)
    cells = policy.cells
    run = _Run(world, Searcher(policy, 0, goal_code, prior, rng))

    def unseen() -> None:  # the searcher must not see the object carried away
        now = world.state
        x, y = now.agent_pos[1].tolist()
        if obj in now.carrying[1].tolist() and run.searcher.percept.cells[y, x]:
            raise EpisodeError("the searcher saw the object being carried away (the mover walked past it)")

    # A puts the object away and leaves; then B, unseen, moves it from one closed container to the other.
    put_away = _fetch_tasks(house, world.state, policy, obj) + _store_tasks(house, world.state, policy, first)
    run.setup(((Errand(policy, 0, put_away + [(cells(rest), IDLE)], rng),),), max_steps)
    if object_piece(house, world.state, obj) != first:
        raise EpisodeError("the searcher could not put the object away in this house (a way or a cell was blocked)")
    move = _fetch_tasks(house, world.state, policy, obj) + _store_tasks(house, world.state, policy, second)
    run.setup(((Errand(policy, 1, move + [(cells(away), IDLE)], rng),),), max_steps, unseen)
    belief = run.searcher.belief
    if object_piece(house, world.state, obj) != second or belief.support != 1 << first or belief.cell is None:
        raise EpisodeError("the Sally-Anne setup did not go as planned in this house (a way was blocked)")
    start, found = run.search(max_steps)
    if found < 0:
        raise EpisodeError("the searcher did not find the moved object in time (a way was blocked)")
    name = ASSETS.object_names[goal_code]
    episode = SearchEpisode(
        episode_id, "false-belief", explicit, name, prior, run.joint_actions, start, found, settings, 0, seed
    )
    return run.record(episode)


def _fetch_tasks(house: House, state: WorldState, policy: SearchPolicy, obj: int) -> list[tuple[tuple[int, ...], int]]:
    """An errand's tasks to take object ``obj`` from where it lies (opening and closing its container if closed)."""
    x, y = state.obj_pos[obj].tolist()
    piece = object_piece(house, state, obj)
    take = [((y * house.width + x,), int(Action.pickup))]
    if not policy.locations.closed(state) >> piece & 1:
        return take
    cells = policy.cells(piece)
    return [(cells, int(Action.open)), *take, (cells, int(Action.close))]


def _store_tasks(
    house: House, state: WorldState, policy: SearchPolicy, piece: int
) -> list[tuple[tuple[int, ...], int]]:
    """An errand's tasks to put what it carries in the closed container ``piece``, on a free cell, and close it."""
    cells = policy.cells(piece)
    free = tuple(c for c in cells if not state.grid[c // house.width, c % house.width, CH_OBJ])
    return [(cells, int(Action.open)), (free, int(Action.drop)), (cells, int(Action.close))]


def rooms_between(house: House, a: int, b: int) -> list[int]:
    """The rooms on the fewest-doors way from room ``a`` to room ``b``, both included (empty if none)."""
    links: dict[int, set[int]] = {}
    for f in house.doors.tolist():
        x, y = house.fur_pos[f].tolist()
        sides = {house.room_of_cell(x + dx, y + dy) for dx, dy in DIR_VEC} - {-1}
        for r in sides:
            links.setdefault(r, set()).update(sides - {r})
    came = {a: a}
    frontier = [a]
    while frontier and b not in came:
        following = []
        for r in frontier:
            for n in sorted(links.get(r, ())):
                if n not in came:
                    came[n] = r
                    following.append(n)
        frontier = following
    if b not in came:
        return []
    path = [b]
    while path[-1] != a:
        path.append(came[path[-1]])
    return path[::-1]


def _sally_anne(house: House, state: WorldState, policy: SearchPolicy, rng: np.random.Generator):
    """(goal code, object, the closed container the searcher puts it in, the one it is moved to, a piece for the
    searcher to wait at in a third room, a piece for the mover to go to afterwards, out of the second's room),
    drawn uniformly among the single objects and such containers; None if there is none."""
    locations = policy.locations
    closed = locations.closed(state)
    options = []
    for code, obj in sorted(unique_objects(house, state).items()):
        source = object_piece(house, state, obj)
        boxes = [
            f for f in pieces_of(locations.candidates(code) & closed) if f != source and _has_free_cell(house, state, f)
        ]
        for first in boxes:
            for second in boxes:
                if second == first:
                    continue
                # The searcher waits out of sight of the object's way from one container to the other.
                away = set(rooms_between(house, int(house.fur_room[first]), int(house.fur_room[second])))
                rests = [f for f in pieces_of(locations.all) if int(house.fur_room[f]) not in away]
                aways = [f for f in pieces_of(locations.all) if int(house.fur_room[f]) != house.fur_room[second]]
                if rests and aways:
                    options.append((code, obj, first, second, rests, aways))
    if not options:
        return None
    code, obj, first, second, rests, aways = options[int(rng.integers(len(options)))]
    return code, obj, first, second, rests[int(rng.integers(len(rests)))], aways[int(rng.integers(len(aways)))]


def _has_free_cell(house: House, state: WorldState, piece: int) -> bool:
    ys, xs = house.fur_cells[piece]
    return bool((state.grid[ys, xs, CH_OBJ] == 0).any())
