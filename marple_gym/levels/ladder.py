"""A ladder of levels that RL can climb, from single skills to the ten missions.

Rungs, easiest first (ids in :func:`level_ids`, in this order):

1. **Skills in one room** (``Marple-<Skill>-OneRoom-v0``): BabyAI-style single-skill
   tasks, go to (wait by) a piece of furniture, pick up an object, open, toggle
   on, put an object on another piece, in a one-room house (8 x 8 with walls)
   whose room holds the target and one to two other pieces. Each reset samples
   the task from the skill's list, so the agent must read the ``subgoal`` codes
   (or the ``intent`` text), as BabyAI agents read the mission.
2. **Skills in two rooms** (``Marple-<Skill>-TwoRooms-v0``): the same tasks in a
   13 x 7 house of two rooms joined by a door.
3. **Short missions** (``Marple-<Mission>-Short-v0``): each of the ten missions
   cut after its second required subgoal, in the 13 x 7 two-room house.
4. **The ten missions** (``Marple-<Mission>-v0``), the registered household envs.

Every level is a :class:`~marple_gym.envs.household.MarpleEnv` (same actions and
observations; the ``mission`` text names the task) with its own house
configuration and ``max_steps``; the house is generated for the sampled task
only. Rewards are sparse; wrap in :class:`~marple_gym.levels.shaping.DenseReward`
for the dense reward.
"""

from __future__ import annotations

from dataclasses import dataclass

from marple_gym.envs.household import MarpleEnv
from marple_gym.envs.registration import register
from marple_gym.envs.search import search_title
from marple_gym.envs.vector import SerialVectorEnv
from marple_gym.evidence.language import intent, word
from marple_gym.generation.config import HouseConfig
from marple_gym.missions.mission import MISSIONS, Mission, Subgoal
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS

ONE_ROOM = {"width": 8, "height": 8, "num_rooms": 1, "max_num_rooms": 1, "furniture_per_room": [2, 3]}
TWO_ROOMS = {"width": 13, "height": 7, "num_rooms": 2, "max_num_rooms": 2, "furniture_per_room": [1, 2]}


def _wait(fur: str, room: str) -> tuple[Subgoal, ...]:
    return (Subgoal(Action.idle, fur, room),)


def _pickup(obj: str, fur: str, room: str) -> tuple[Subgoal, ...]:
    return (Subgoal(Action.pickup, fur, room, obj=obj),)


def _open(fur: str, room: str) -> tuple[Subgoal, ...]:
    return (Subgoal(Action.open, fur, room, state=("openable", True)),)


def _toggle_on(fur: str, room: str) -> tuple[Subgoal, ...]:
    return (Subgoal(Action.toggle, fur, room, state=("toggleable", True)),)


def _put(obj: str, source: str, target: str, room: str) -> tuple[Subgoal, ...]:
    return (Subgoal(Action.pickup, source, room, obj=obj), Subgoal(Action.drop, target, room, obj=obj))


# Targets taken from the ten missions' own subgoals, so every task is one the houses can furnish.
SKILLS: dict[str, tuple[tuple[Subgoal, ...], ...]] = {
    "GoTo": tuple(
        _wait(f, r)
        for f, r in [
            ("light", "Kitchen"),
            ("electric_refrigerator", "Kitchen"),
            ("bed", "Bedroom"),
            ("closet", "Bedroom"),
            ("sofa", "LivingRoom"),
            ("television", "LivingRoom"),
            ("shower", "Bathroom"),
            ("laundry", "Bathroom"),
        ]
    ),
    "PickUp": tuple(
        _pickup(o, f, r)
        for o, f, r in [
            ("clothes", "bed", "Bedroom"),
            ("pillow", "bed", "Bedroom"),
            ("remote", "sofa", "LivingRoom"),
            ("pot_plant", "table", "LivingRoom"),
            ("dogfood", "table", "Kitchen"),
        ]
    ),
    "Open": tuple(
        _open(f, r)
        for f, r in [
            ("electric_refrigerator", "Kitchen"),
            ("closet", "Kitchen"),
            ("closet", "Bedroom"),
            ("laundry", "Bathroom"),
        ]
    ),
    "ToggleOn": tuple(
        _toggle_on(f, r) for f, r in [("light", "Kitchen"), ("television", "LivingRoom"), ("shower", "Bathroom")]
    ),
    "Put": (_put("remote", "sofa", "table", "LivingRoom"),),
}
"""Each skill's tasks; a level samples one per reset."""


@dataclass(frozen=True)
class Level:
    """One rung's level: its tasks (as missions), house and step limit."""

    env_name: str
    rung: str
    missions: tuple[Mission, ...]
    config: dict
    max_steps: int
    description: str

    @property
    def env_id(self) -> str:
        return f"Marple-{self.env_name}-v0"


def _task_mission(subgoals: tuple[Subgoal, ...]) -> Mission:
    name = "+".join(sg.name for sg in subgoals)
    phrases = [intent(sg)[len("I am going to ") : -1] for sg in subgoals]
    rooms = {sg.room for sg in subgoals}
    if len(subgoals) > 1 and len(rooms) == 1:  # the room once, at the end: a title of MiniGrid's 96 characters
        room = f" in the {word(subgoals[0].room)}"
        phrases = [p.removesuffix(room) for p in phrases[:-1]] + phrases[-1:]
    return Mission(name, " and then ".join(phrases), subgoals, query=len(subgoals) - 1)


def _short(mission: Mission) -> Mission:
    """The mission cut after its second required subgoal."""
    end = mission.required_indices[1] + 1
    subgoals = mission.subgoals[:end]
    return Mission(f"{mission.name}_short", mission.title + ", first steps", subgoals, query=end - 1)


def _levels() -> dict[str, Level]:
    levels: list[Level] = []
    for house, config, steps in (("OneRoom", ONE_ROOM, 64), ("TwoRooms", TWO_ROOMS, 128)):
        for skill, tasks in SKILLS.items():
            levels.append(
                Level(
                    f"{skill}-{house}",
                    f"skills in {'one room' if house == 'OneRoom' else 'two rooms'}",
                    tuple(_task_mission(t) for t in tasks),
                    config,
                    steps,
                    f"one of {len(tasks)} {skill} task(s), e.g. {_task_mission(tasks[0]).title!r}",
                )
            )
    for mission in MISSIONS.values():
        short = _short(mission)
        levels.append(
            Level(
                f"{mission.env_name}-Short",
                "short missions",
                (short,),
                TWO_ROOMS,
                256,
                f"{mission.title!r} up to its second required subgoal: {len(short.subgoals)} subgoals",
            )
        )
    return {level.env_id: level for level in levels}


LEVELS: dict[str, Level] = _levels()
"""Every ladder level below the ten missions, by env id."""


def level_ids(include_missions: bool = True) -> list[str]:
    """The ladder's ids, easiest first; with ``include_missions`` the ten mission envs end it."""
    ids = list(LEVELS)
    if include_missions:
        ids += [f"Marple-{m.env_name}-v0" for m in MISSIONS.values()]
    return ids


def mission_words() -> dict[str, int]:
    """Every word of every registered env's ``mission`` text, numbered from 0.

    The ``word_dict`` that MiniGrid's ``DictObservationSpaceWrapper`` needs for MARPLE envs (its own
    vocabulary is MiniGrid's); like that wrapper, a comma counts as a word.
    """
    titles = [m.title for m in MISSIONS.values()] + [m.title for level in LEVELS.values() for m in level.missions]
    titles += [search_title(name) for name in ASSETS.object_names if name]
    words = sorted({word for title in titles for word in title.replace(",", " , ").split()})
    return {word: i for i, word in enumerate(words)}


class LevelEnv(MarpleEnv):
    """A ladder level: a :class:`MarpleEnv` whose missions are the level's tasks (see the class per level)."""

    level: Level

    def __init__(self, **kwargs) -> None:
        if "mission" not in kwargs:
            kwargs.setdefault("mission_preferences", {m.name: 1.0 for m in self.level.missions})
        kwargs.setdefault("config", HouseConfig.from_dict(dict(self.level.config)))
        kwargs.setdefault("max_steps", self.level.max_steps)
        super().__init__(**kwargs)

    def _lookup(self, name: str) -> Mission:
        own = {m.name: m for m in self.level.missions}
        return own[name] if name in own else super()._lookup(name)

    def _house_missions(self) -> list[Mission]:
        # a small house has room for one task's furniture; the sampled one is enough
        return [self.mission]


def _doc(level: Level) -> str:
    tasks = "\n".join(f"    - {m.title}" for m in level.missions)
    cfg = level.config
    return f"""Ladder level ({level.rung}): {level.description}.

    ## Description
    A {cfg["width"]} x {cfg["height"]} house of {cfg["num_rooms"]} room(s), generated anew at every
    reset for the task sampled (uniformly) from:

{tasks}

    ## Mission Space
    The task's title, e.g. "{level.missions[0].title}"; the ``subgoal`` codes name it as numbers.

    ## Action Space
    ``Discrete(10)``, as every MARPLE env (``wait`` is the ``idle`` action, 9).

    ## Observation Space
    As :class:`MarpleEnv`: a ``Dict`` of image, direction, carrying, mission, intent, audio
    and subgoal; ``view_size=v`` makes ``image`` the egocentric (v, v, 8) view.

    ## Rewards
    1 on completing the task (sparse); ``subgoal_reward`` per achieved subgoal, or
    ``marple_gym.levels.DenseReward`` for subgoal bonuses plus potential-based
    distance shaping.

    ## Termination
    ``terminated`` once the task's subgoals are done; ``truncated`` after
    ``max_steps`` = {level.max_steps} steps (``spec.max_episode_steps``).

    ## Registered Configurations
    - ``{level.env_id}``
    """


class LevelVectorEnv(SerialVectorEnv):
    """``num_envs`` episodes of a ladder level, stepped one after another (Gymnasium's ``SyncVectorEnv``).

    The level's ``vector_entry_point``: ``gym.make_vec(level_id, n, vectorization_mode="vector_entry_point")``.
    A level draws a new house for each episode's task, so its sub-envs cannot share one house as the
    batched :class:`~marple_gym.envs.vector.MarpleVectorEnv` of the ten missions does; each sub-env is the
    single level env, with the single env's arguments.
    """


def _classes(level: Level) -> tuple[type[LevelEnv], type[LevelVectorEnv]]:
    name = level.env_name.replace("-", "")
    env = type(f"{name}Env", (LevelEnv,), {"level": level, "__doc__": _doc(level), "__module__": __name__})
    doc = f"{level.env_id}: :class:`LevelVectorEnv` of :class:`{env.__name__}`."
    attributes = {"env_class": env, "max_steps": level.max_steps, "__doc__": doc, "__module__": __name__}
    vector = type(f"{name}VectorEnv", (LevelVectorEnv,), attributes)
    return env, vector


_CLASSES = {env_id: _classes(level) for env_id, level in LEVELS.items()}
LEVEL_ENVS: dict[str, type[LevelEnv]] = {env_id: env for env_id, (env, _) in _CLASSES.items()}
LEVEL_VECTOR_ENVS: dict[str, type[LevelVectorEnv]] = {env_id: vector for env_id, (_, vector) in _CLASSES.items()}
globals().update({cls.__name__: cls for pair in _CLASSES.values() for cls in pair})


def register_levels() -> None:
    """Register every ladder level with Gymnasium (safe to call twice)."""
    for env_id, (env, vector) in _CLASSES.items():
        register(env_id, f"{__name__}:{env.__name__}", f"{__name__}:{vector.__name__}", LEVELS[env_id].max_steps)
