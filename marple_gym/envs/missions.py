"""One env class per mission, generated from the mission table.

Each class fixes its mission, and its docstring (built from the mission's data
and the env's own defaults) has MiniGrid's sections, so ``help()`` on
``DoLaundryEnv`` shows what the agent must do, what it sees and when it is
rewarded.
"""

from __future__ import annotations

import inspect

from marple_gym.envs.household import OBSERVATION_KEYS, MarpleEnv
from marple_gym.envs.spaces import describe_observation_space
from marple_gym.evidence.language import DONE_INTENT, intent, word
from marple_gym.generation.config import HouseConfig
from marple_gym.missions.mission import MISSIONS, Mission
from marple_gym.missions.requirements import Requirement, mission_requirements
from marple_gym.world.actions import NAVIGATION, NUM_ACTIONS, Action

_DEFAULTS = {k: p.default for k, p in inspect.signature(MarpleEnv.__init__).parameters.items()}
_STATE_WORDS = {("openable", False): "closed", ("toggleable", False): "off", ("dustyable", True): "dusty"}


def _task(mission: Mission, index: int) -> str:
    """Subgoal ``index`` as a phrase: "pick up the clothes from the bed in the Bedroom"."""
    return intent(mission.subgoals[index])[len("I am going to ") : -1]


def _needs(req: Requirement) -> str:
    """What generation guarantees for one piece of furniture the mission uses."""
    facts = [_STATE_WORDS.get(item, f"{item[0]}={item[1]}") for item in req.initial.items()]
    facts += [f"holding the {word(obj)}" for obj in req.contains]
    if req.needs_free_cell:
        facts.append("with a free cell to put things on")
    name = word(req.fur)
    article = "an" if name[0] in "aeiou" else "a"
    return f"{article} {name} in the {word(req.room)}" + (f" ({', '.join(facts)})" if facts else "")


def _doc(mission: Mission) -> str:
    n = len(mission.subgoals)
    env_id = f"Marple-{mission.env_name}-v0"
    steps = "\n".join(
        f"    {i + 1}. {_task(mission, i)}{' (skippable)' if sg.skippable else ''}"
        for i, sg in enumerate(mission.subgoals)
    )
    needs = "\n".join(f"    - {_needs(req)}" for req in mission_requirements(mission))
    used = sorted({sg.action for sg in mission.subgoals}, key=int)
    last_required = max(mission.required_indices)
    config = HouseConfig()
    navigation = ", ".join(a.name for a in sorted(NAVIGATION))
    ending = f"The last subgoal is {n} ({_task(mission, n - 1)})"
    if last_required < n - 1:
        ending += f", a skippable one; the last required one is {last_required + 1} ({_task(mission, last_required)})"
    return f"""The {mission.title!r} mission in a procedurally generated house.

    ## Description
    The agent must {mission.title}. Its {n} subgoals, in order:

{steps}

    Skippable subgoals are passed over when they cannot be done, or when the
    agent achieves a later subgoal first; required ones never are. The whodunit
    query state of this mission is subgoal {mission.query + 1}.

    Every reset generates a new house with the env's seeded generator (a
    {config.width} x {config.height} grid of up to {config.max_num_rooms} rooms unless ``config`` says otherwise).
    It always contains what this mission needs, so the mission is feasible
    from the start:

{needs}

    ## Mission Space
    Fixed: "{mission.title}", the ``mission`` observation at every step.
    ``reset(options={{"mission": name}})`` switches to another mission for one
    episode (the house is still generated for this one); to sample missions use
    ``Marple-Household-v0`` with ``mission_preferences``.

    ## Action Space
    ``Discrete({NUM_ACTIONS})``:
    {", ".join(f"{int(a)} {a.name}" for a in Action)}.
    Interactions act on the faced cell; an action that cannot apply changes
    nothing. Besides navigation ({navigation}), this mission's subgoals use
    {", ".join(a.name for a in used)}; ``open`` also opens closed doors on the way.

    ## Observation Space
    A ``Dict`` with (by default) the keys {", ".join(OBSERVATION_KEYS)};
    ``observation_keys`` selects a subset.

{describe_observation_space(config.height, config.width, "    ")}

    Here ``mission`` is always "{mission.title}" and ``intent`` runs
    from "{intent(mission.subgoals[0])}"
    to "{DONE_INTENT}" once the mission is complete.
    Its ``subgoal`` codes are {list(mission.subgoals[0].codes)} at the start and all 0 once done.
    ``view_size=v`` turns ``image`` into the agent's egocentric (v, v, 8) view.

    Each ``info`` holds ``mission``, ``subgoal``, ``achieved`` (the subgoal the
    step achieved, -1 for none) and ``action_success``, one type per key on
    every step; with ``scene_graph=True`` also the scene graph (a
    ``networkx.DiGraph``) of the new state, which costs nothing when off.

    ## Rewards
    1 on the step that completes the mission, 0 otherwise (sparse, the default).
    With ``subgoal_reward=r`` (default {_DEFAULTS["subgoal_reward"]}) each step that achieves one of the
    {n} subgoals also earns r, so an episode that skips nothing returns 1 + {n} r.
    Skipped subgoals earn nothing.

    ## Termination
    ``terminated`` once every subgoal is achieved or passed over.
    {ending}.
    If a required subgoal becomes impossible the episode does not terminate.
    ``truncated`` after ``max_steps`` steps (default {_DEFAULTS["max_steps"]}) unless terminated
    on that step.

    ## Registered Configurations
    - ``{env_id}``
    - ``Marple-Household-v0`` with ``mission="{mission.name}"`` (same mission, any ``config``)
    """


def _make_class(mission: Mission) -> type[MarpleEnv]:
    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("mission", mission.name)
        MarpleEnv.__init__(self, **kwargs)

    return type(
        f"{mission.env_name}Env", (MarpleEnv,), {"__init__": __init__, "__doc__": _doc(mission), "__module__": __name__}
    )


MISSION_ENVS: dict[str, type[MarpleEnv]] = {name: _make_class(m) for name, m in MISSIONS.items()}
globals().update({cls.__name__: cls for cls in MISSION_ENVS.values()})
__all__ = sorted(cls.__name__ for cls in MISSION_ENVS.values())
