"""One env class per mission, generated from the mission table.

Each class fixes its mission and documents its subgoals, so ``help()`` on
``DoLaundryEnv`` shows what the agent must do.
"""

from __future__ import annotations

from marple_gym.envs.household import MarpleEnv
from marple_gym.evidence.language import intent
from marple_gym.missions.mission import MISSIONS, Mission


def _doc(mission: Mission) -> str:
    steps = "\n".join(
        f"    {i + 1}. {intent(sg)[len('I am going to ') : -1]}{' (skippable)' if sg.skippable else ''}"
        for i, sg in enumerate(mission.subgoals)
    )
    return f"""The {mission.title!r} mission in a procedurally generated house.

    ## Description
    The agent must {mission.title}. Its subgoals, in order:

{steps}

    The whodunit query state of this mission is subgoal {mission.query + 1}.

    ## Mission Space
    Fixed: "{mission.title}".

    ## Action Space, Observation Space, Rewards, Termination
    As :class:`~marple_gym.envs.household.MarpleEnv`.

    ## Registered Configurations
    ``Marple-{mission.env_name}-v0``
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
