"""What the four scenarios' stages share: a room, barriers of chairs, and the agents acting on them.

Every stage is one room (a type that has chairs), the agent in the middle of
its bottom row facing north, goal objects towards the top. Obstacles are lines
of chairs. Around an object approached from below a barrier comes in three
levels of difficulty (:data:`LEVELS`): none, a line of three chairs in front of
it (the agent goes round to its side), a cup of five (the agent goes round to
its far side) and a deep cup of seven (round, and in from the far side). What a barrier costs is never assumed: the families measure
every cost on the stage itself with the planner's own search.

The agent acts by the utility planner (:class:`~marple_gym.planner.utility.UtilityPlanner`):
its best choice (:func:`choosing`), or scripted to go for another object
(:func:`going_for`); an old episode's actions are replayed on a new stage
as they are, or passing through what stands in their way (:func:`crossing`,
:func:`mirrored`: AGENT's type 2.5). Every action goes through the episode
transition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from marple_gym.expectations.trial import Episode, Trial, TrialError, TrialKey
from marple_gym.generation.config import HouseConfigError
from marple_gym.generation.stage import Cell, Stage, StageRoom
from marple_gym.planner.utility import STAY, ActionCosts, GoalPlan, Preferences, UtilityPlanner, walkable_cells
from marple_gym.world.actions import Action

ROOM_TYPES = ("Kitchen", "Bedroom", "Bathroom", "Study", "LivingRoom")
"""Room types that have chairs (the obstacles)."""
OBJECT_TYPES = (
    "apple",
    "ball",
    "banana",
    "book",
    "cake",
    "candle",
    "cookie",
    "gym_shoe",
    "mug",
    "pot_plant",
    "strawberry",
    "teapot",
)
"""The goal objects: distinct, easy to tell apart in a picture."""
LEVELS = ("none", "front", "cup", "deep")
"""Barrier difficulties round an object approached from below (see module docs)."""
NORTH = 3

COST_SCALES = (0.5, 0.75, 1.0, 1.5, 2.0)
"""The agents' action-cost scales (forward costs the scale, a turn half of it): the observer's prior spans them."""
REWARDS = tuple(float(r) for r in range(0, 61, 2))
"""The rewards an agent may give an object: the observer's prior spans them."""
BETA = 1.0
"""How sharply agents choose among goals (their Boltzmann constant): every agent's, known to the observer."""
MARGIN = 3.0
"""The least utility by which an agent's chosen option beats every other (so its choice is clear)."""
ATTEMPTS = 50
"""How many stages a family draws for one trial before it gives up."""
AGENT_DRAWS = 10
"""How many agents a family draws for one stage before it draws another stage (:func:`first_agent`)."""


def first_fit(attempt: Callable[[], Trial | None], key: TrialKey) -> Trial:
    """The first trial ``attempt`` makes (it returns None for a draw that does not fit the type)."""
    for _ in range(ATTEMPTS):
        try:
            trial = attempt()
        except HouseConfigError:  # a stage the house generator cannot furnish as drawn: draw another
            continue
        if trial is not None:
            return trial
    raise TrialError(f"{key.id}: no stage fit the type in {ATTEMPTS} attempts")


def first_agent(draw: Callable[[], Preferences | None]) -> Preferences | None:
    """The first agent ``draw`` makes in :data:`AGENT_DRAWS` tries (it returns None for one that does not fit the
    stage), or None."""
    return next((agent for agent in (draw() for _ in range(AGENT_DRAWS)) if agent is not None), None)


def costs(scale: float) -> ActionCosts:
    """The action costs of an agent of cost scale ``scale``."""
    return ActionCosts(forward=scale, turn=scale / 2, pickup=0.0)


def room(rng: np.random.Generator, widths: Sequence[int] = (9, 11), heights: Sequence[int] = (7, 8)) -> Stage:
    """An empty one-room stage of a random chair room type and size, the agent bottom middle facing north."""
    w = int(rng.choice(widths))
    h = int(rng.choice(heights))
    kind = str(rng.choice(ROOM_TYPES))
    return Stage(w + 2, h + 2, (StageRoom(kind, (1, 1), (w, h)),), agent=(1 + w // 2, h, NORTH))


def two_rooms(rng: np.random.Generator, widths: Sequence[int] = (9, 11)) -> Stage:
    """A stage of two rooms one above the other, the wall between them (row 4) without a door yet; the agent
    bottom middle of the lower room facing north."""
    w = int(rng.choice(widths))
    upper, lower = (str(k) for k in rng.choice(ROOM_TYPES, size=2))
    rooms = (StageRoom(upper, (1, 1), (w, 3)), StageRoom(lower, (1, 5), (w, 4)))
    return Stage(w + 2, 10, rooms, agent=(1 + w // 2, 8, NORTH))


WALL_ROW = 4
"""The row of the wall between :func:`two_rooms`' rooms."""


def centre(stage: Stage) -> int:
    """The x of the stage's middle column (where the agent starts)."""
    return stage.agent[0]


def barrier(x0: int, x1: int, y: int) -> list[Cell]:
    """A horizontal line of chairs from x0 to x1 (inclusive) on row y."""
    return [(x, y) for x in range(x0, x1 + 1)]


GOAL_ROW = 2
"""The row of the goal object in the scenarios with one goal."""


def barrier_stage(kind: str, rng: np.random.Generator) -> Stage:
    """A room with an object of type ``kind`` at the top middle and a line of five or seven chairs across the
    way to it, halfway, its middle at most one column off the agent's."""
    base = room(rng)
    cx = centre(base)
    length = int(rng.choice([5, 7] if base.rooms[0].size[0] >= 11 else [5]))
    offset = int(rng.integers(-1, 2))
    row = (GOAL_ROW + base.agent[1]) // 2
    return base.with_objects([(kind, (cx, GOAL_ROW))]).with_obstacles(
        barrier(cx + offset - length // 2, cx + offset + length // 2, row)
    )


def shortened(stage: Stage) -> Stage:
    """``stage`` with its line of chairs two chairs shorter (one off each end)."""
    xs = sorted(x for x, _ in stage.obstacles)
    return stage.without_obstacles([c for c in stage.obstacles if c[0] in (xs[0], xs[-1])])


def around(cell: Cell, level: str) -> list[Cell]:
    """The chairs of a barrier of difficulty ``level`` round an object at ``cell`` approached from below."""
    x, y = cell
    if level == "none":
        return []
    front = barrier(x - 1, x + 1, y + 1)
    if level == "front":
        return front
    if level == "cup":
        return front + [(x - 1, y), (x + 1, y)]
    if level == "deep":
        return front + [(x - 1, y), (x + 1, y), (x - 1, y - 1), (x + 1, y - 1)]
    raise ValueError(f"unknown barrier level {level!r}; use one of {LEVELS}")


def goal_cost(stage: Stage, cell: Cell, scale: float = 1.0) -> float:
    """What the cheapest way from the stage's start to picking up the object at ``cell`` costs."""
    world = stage.world()
    walkable = walkable_cells(world.state.grid, stage.agent[:2])
    return GoalPlan(walkable, [cell], costs(scale)).cost(*stage.agent)


def episode_cost(episode: Episode, scale: float = 1.0) -> float:
    """What the agent's actions in ``episode`` cost an agent of cost scale ``scale``."""
    c = costs(scale)
    price = {int(Action.forward): c.forward, int(Action.left): c.turn, int(Action.right): c.turn}
    price[int(Action.pickup)] = c.pickup
    return sum(price.get(a, 0.0) for a in episode.actions)


def object_types(rng: np.random.Generator, n: int) -> list[str]:
    return [str(t) for t in rng.choice(OBJECT_TYPES, size=n, replace=False)]


# ---- acting -------------------------------------------------------------------------------------------------------
def _run(stage: Stage, agent: Preferences, rng: np.random.Generator, goal: int | None) -> tuple[Episode, int]:
    world = stage.world()
    planner = UtilityPlanner(world, agent, rng=rng, goal=goal, choice="best")
    outcomes = planner.run()
    if not planner.succeeded or not all(o.success for o in outcomes):
        raise TrialError("the agent did not reach its goal on its stage")
    return Episode(stage, tuple(o.action for o in outcomes)), planner.goal


def choosing(stage: Stage, agent: Preferences, rng: np.random.Generator) -> tuple[Episode, str | None]:
    """The agent's best choice on ``stage`` (ties among cheapest actions drawn with ``rng``), and the type of
    the object it went for (None: it stayed)."""
    episode, goal = _run(stage, agent, rng, None)
    return episode, None if goal == STAY else Stage.object_types(stage.house)[goal]


def going_for(stage: Stage, agent: Preferences, object_type: str, rng: np.random.Generator) -> Episode:
    """The agent scripted to go for the object of type ``object_type`` by a cheapest way."""
    return _run(stage, agent, rng, Stage.object_types(stage.house).index(object_type))[0]


def staying(stage: Stage) -> Episode:
    """The agent staying where it is (one ``idle``)."""
    return Episode(stage, (int(Action.idle),))


def crossing(episode: Episode, stage: Stage) -> Episode:
    """``episode``'s actions on ``stage``, passing through whatever of ``stage`` stands in their way: its obstacles
    on the episode's route, and its walls where the episode's stage has doors (:attr:`Episode.through`)."""
    route = set(route_of(episode))
    blocked = [c for c in stage.obstacles if c in route]
    blocked += [c for c in episode.stage.doors if c in route and c not in stage.doors]
    return Episode(stage, episode.actions, through=tuple(blocked))


def mirrored(episode: Episode) -> Episode:
    """``episode``'s mirror image about the stage's middle column (left and right turns swapped), on the same
    stage: passing through the obstacles that stand where the mirror image goes (:attr:`Episode.through`).
    The stage's room and goal must be symmetric about that column; the agent starts on it facing north."""
    cx = centre(episode.stage)
    swap = {int(Action.left): int(Action.right), int(Action.right): int(Action.left)}
    cells = {(2 * cx - x, y) for x, y in route_of(episode)}
    through = [c for c in episode.stage.obstacles if c in cells]
    return Episode(episode.stage, tuple(swap.get(a, a) for a in episode.actions), through=tuple(through))


def route_of(episode: Episode) -> list[Cell]:
    """The cells the agent walked through in ``episode``, in order (the start first)."""
    cells: list[Cell] = []
    for state in episode.states:
        cell = tuple(state.agent_pos[0].tolist())
        if not cells or cells[-1] != cell:
            cells.append(cell)
    return cells


def keen_agent(stage: Stage, rng: np.random.Generator) -> Preferences | None:
    """An agent for whom the stage's one object is clearly worth its cheapest way (None if the cost scale it
    draws allows none)."""
    ((kind, cell),) = stage.objects
    scale = float(rng.choice(COST_SCALES))
    cost = goal_cost(stage, cell, scale)
    rewards = [r for r in REWARDS if r - cost >= MARGIN]
    if not rewards:
        return None
    return Preferences({kind: float(rng.choice(rewards))}, costs(scale), BETA)


def best_option(stage: Stage, agent: Preferences) -> tuple[str | None, float]:
    """The agent's best option on ``stage`` (an object type, or None to stay) and by how much utility it beats
    the next best."""
    planner = UtilityPlanner(stage.world(), agent, rng=np.random.default_rng(0), goal=STAY)
    utilities = planner.utilities() + [0.0]
    order = np.argsort(utilities)[::-1]
    best, second = int(order[0]), int(order[1])
    kind = None if best == len(planner.options) else Stage.object_types(stage.house)[planner.options[best]]
    return kind, float(utilities[best] - utilities[second])


def clearly_chooses(stage: Stage, agent: Preferences, option: str | None) -> bool:
    """Is ``option`` (an object type, None: staying) the agent's best on ``stage`` by at least :data:`MARGIN`?"""
    best, lead = best_option(stage, agent)
    return best == option and lead >= MARGIN
