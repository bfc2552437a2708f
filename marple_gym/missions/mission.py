"""Missions and subgoals as typed data, loaded from ``data/missions.json``."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from functools import cached_property
from importlib import resources

import numpy as np

from marple_gym.errors import MarpleError
from marple_gym.world.actions import Action, Outcome
from marple_gym.world.assets import ASSETS
from marple_gym.world.house import House

_STATE_OF_ACTION = {
    Action.toggle: "toggleable",
    Action.open: "openable",
    Action.close: "openable",
    Action.clean: "dustyable",
}


@dataclass(frozen=True)
class Subgoal:
    """One step of a mission: ``action`` on a target in a room.

    The target is a piece of furniture of type ``fur`` in a room of type ``room``
    and, for ``pickup`` and ``drop``, an object of type ``obj`` taken from or put
    onto that furniture. ``state`` is the (ability, value) the action produces,
    for actions that change a state. A subgoal is achieved by the agent's own
    successful action that matches it (see :meth:`matches`).
    """

    action: Action
    fur: str
    room: str
    obj: str | None = None
    state: tuple[str, bool] | None = None
    skippable: bool = False

    @property
    def name(self) -> str:
        """Compact id in the paper's style, e.g. ``toggle-on-light-Kitchen``."""
        verb = self.action.name
        if self.action == Action.toggle and self.state is not None:
            verb += "-on" if self.state[1] else "-off"
        parts = [verb] + ([self.obj] if self.obj else []) + [self.fur, self.room]
        return "-".join(parts)

    @cached_property
    def codes(self) -> tuple[int, int, int, int]:
        """(action, object, furniture, room) codes, object 0 for none: how datasets and policies name it."""
        action, fur, room, obj, _ = self._codes
        return action, obj, fur, room

    @cached_property
    def _codes(self) -> tuple[int, int, int, int, int]:
        value = -1 if self.state is None else int(self.state[1])
        obj = ASSETS.object_code[self.obj] if self.obj else 0
        return int(self.action), ASSETS.furniture_code[self.fur], ASSETS.room_code[self.room], obj, value

    def matches(self, outcome: Outcome, house: House) -> bool:
        """Did this action outcome achieve the subgoal?"""
        if not outcome.success:
            return False
        action, fur_code, room_code, obj_code, value = self._codes
        if outcome.action != action or outcome.fur < 0:
            return False
        if house.fur_type_list[outcome.fur] != fur_code or house.room_type_at[outcome.y][outcome.x] != room_code:
            return False
        if obj_code and (outcome.obj < 0 or house.obj_type_list[outcome.obj] != obj_code):
            return False
        return value < 0 or outcome.value == value

    def __post_init__(self) -> None:
        if self.action in _STATE_OF_ACTION and (self.state is None or self.state[0] != _STATE_OF_ACTION[self.action]):
            raise ValueError(
                f"subgoal {self.name}: action {self.action.name} must produce a {_STATE_OF_ACTION[self.action]} state"
            )
        if (self.action in (Action.pickup, Action.drop)) != (self.obj is not None):
            raise ValueError(f"subgoal {self.name}: pickup and drop (and only they) name an object")


@dataclass(frozen=True)
class Mission:
    """An ordered list of subgoals; ``query`` indexes the whodunit query subgoal."""

    name: str
    title: str
    subgoals: tuple[Subgoal, ...]
    query: int

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        """The dataclass's hash, worked out once: every reset hashes the env's missions (to look up what their
        houses need), and hashing a mission hashes each of its subgoals."""
        return hash((self.name, self.title, self.subgoals, self.query))

    def __getstate__(self) -> dict:
        # Strings hash differently in each process: a mission sent to another works its hash out there.
        return {k: v for k, v in vars(self).items() if k != "_hash"}

    @property
    def query_subgoal(self) -> Subgoal:
        return self.subgoals[self.query]

    @property
    def env_name(self) -> str:
        """CamelCase name used in env ids, e.g. ``DoLaundry``."""
        return "".join(part.capitalize() for part in self.name.split("_")).replace("Tv", "TV")

    @property
    def required_indices(self) -> tuple[int, ...]:
        return tuple(i for i, s in enumerate(self.subgoals) if not s.skippable)


def _subgoal(spec: dict) -> Subgoal:
    state = spec.get("state")
    return Subgoal(
        action=Action[spec["action"]],
        fur=spec["fur"],
        room=spec["room"],
        obj=spec.get("obj"),
        state=None if state is None else (state[0], bool(state[1])),
        skippable=bool(spec.get("skippable", False)),
    )


def _load() -> dict[str, Mission]:
    text = resources.files("marple_gym.missions").joinpath("data/missions.json").read_text()
    data = json.loads(text)["missions"]
    return {
        name: Mission(name, spec["title"], tuple(_subgoal(s) for s in spec["subgoals"]), spec["query"])
        for name, spec in data.items()
    }


SUBGOAL_NVEC: tuple[int, int, int, int] = (
    len(Action),
    len(ASSETS.object_names),
    len(ASSETS.furniture_names),
    len(ASSETS.room_types) + 1,
)
"""How many values each of a subgoal's (action, object, furniture, room) codes can take."""


def subgoal_codes(subgoal: Subgoal | None) -> np.ndarray:
    """A subgoal's (action, object, furniture, room) codes as an int64 array; all 0 for none (mission done)."""
    return np.array(subgoal.codes if subgoal is not None else (0, 0, 0, 0), dtype=np.int64)


MISSIONS: dict[str, Mission] = _load()
"""The ten missions, by name (``do_laundry``, ``change_outfit``, ...)."""


class UnknownMissionError(MarpleError, KeyError):
    """A mission name that is not in the mission table."""


def get_mission(name: str) -> Mission:
    """Look up a mission by name, with a helpful error for typos."""
    try:
        return MISSIONS[name]
    except KeyError:
        close = difflib.get_close_matches(name, MISSIONS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UnknownMissionError(f"unknown mission {name!r}{hint}; known missions: {', '.join(MISSIONS)}") from None
