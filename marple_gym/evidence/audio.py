"""Audio evidence: the symbolic sound token each action makes.

The action-to-sound mapping is many-to-one:

* ``footstep``: every navigation action (left, right, forward), whether or not
  the agent could move;
* ``pickup_<object>``, ``drop_<object>``: picking up or putting down an object;
* ``toggle_on_<thing>``, ``toggle_off_<thing>``, ``open_<thing>``,
  ``close_<thing>``, ``clean_<thing>``: changing a piece of furniture, a door or
  an object;
* ``idle_<appliance>``: idling at a running laundry, shower or television (they
  hum);
* ``silence``: an interaction that failed, or idling anywhere else.

Token ids are stable: they follow the asset library's order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from marple_gym.world.actions import NUM_ACTIONS, Action, Outcome
from marple_gym.world.assets import ASSETS, DUSTY_BIT, OPEN_BIT, STAIN_BIT, TOGGLE_BIT
from marple_gym.world.batched_state import BatchedState, BatchOutcome, state_at
from marple_gym.world.house import House
from marple_gym.world.house_batch import HouseBatch
from marple_gym.world.state import WorldState

SILENCE = 0
FOOTSTEP = 1

_NAVIGATION = (int(Action.left), int(Action.right), int(Action.forward))


def _sounds_of(name: str, mask: int, idle_sound: bool) -> list[str]:
    out = []
    if mask & TOGGLE_BIT:
        out += [f"toggle_on_{name}", f"toggle_off_{name}"]
    if mask & OPEN_BIT:
        out += [f"open_{name}", f"close_{name}"]
    if mask & (DUSTY_BIT | STAIN_BIT):
        out.append(f"clean_{name}")
    if idle_sound:
        out.append(f"idle_{name}")
    return out


@dataclass(frozen=True)
class AudioVocabulary:
    """The sound tokens, in a fixed order."""

    tokens: tuple[str, ...]

    @classmethod
    def from_assets(cls) -> AudioVocabulary:
        tokens = ["silence", "footstep", "open_door", "close_door"]
        for f in ASSETS.furniture:
            tokens += _sounds_of(f.name, f.mask, f.idle_sound)
        for o in ASSETS.objects:
            tokens += [f"pickup_{o.name}", f"drop_{o.name}"] + _sounds_of(o.name, o.mask, False)
        return cls(tuple(dict.fromkeys(tokens)))

    def __len__(self) -> int:
        return len(self.tokens)

    @cached_property
    def index(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.tokens)}

    @cached_property
    def action_of_token(self) -> tuple[tuple[int, ...], ...]:
        """For each token, the actions that can make it."""
        out = []
        for token in self.tokens:
            if token == "silence":
                out.append(tuple(int(a) for a in Action if int(a) not in _NAVIGATION))
            elif token == "footstep":
                out.append(_NAVIGATION)
            else:
                verb = token.split("_", 1)[0]
                out.append((int(Action[verb]),))
        return tuple(out)

    @cached_property
    def likelihood(self) -> np.ndarray:
        """(n_tokens, 10) float32: P(token | action) up to the state, as 1 (possible) or 0.

        Used for audio refinement, P(a | vision, audio) ~ P(audio | a) P(a | vision):
        the row of the heard token masks out the actions that cannot make it.
        """
        out = np.zeros((len(self.tokens), NUM_ACTIONS), dtype=np.float32)
        for i, actions in enumerate(self.action_of_token):
            out[i, list(actions)] = 1.0
        return out


AUDIO = AudioVocabulary.from_assets()
"""The shared audio vocabulary."""


def audio_token(outcome: Outcome | None, house: House, state: WorldState) -> int:
    """The sound token of an action outcome (``state`` is the state after the action)."""
    if outcome is None:
        return SILENCE
    action = outcome.action
    if action in _NAVIGATION:
        return FOOTSTEP
    if not outcome.success:
        return SILENCE
    if action == Action.idle:
        fur = outcome.fur
        if fur >= 0:
            code = house.fur_type_list[fur]
            if ASSETS.fur_idle_sound[code] and state.fur_state[fur] & TOGGLE_BIT:
                return AUDIO.index[f"idle_{ASSETS.furniture_names[code]}"]
        return SILENCE
    if action in (Action.pickup, Action.drop) or outcome.obj >= 0:
        thing = ASSETS.object_names[house.obj_type_list[outcome.obj]]
    else:
        thing = ASSETS.furniture_names[house.fur_type_list[outcome.fur]]
    verb = Action(action).name
    if action == Action.toggle:
        verb = "toggle_on" if outcome.value else "toggle_off"
    return AUDIO.index[f"{verb}_{thing}"]


_TOGGLE_OFF = NUM_ACTIONS
"""The verb slot of ``toggle_off`` in the token tables (the other slots are the actions)."""


@lru_cache(maxsize=1)
def _token_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Token of (verb slot, object code), of (verb slot, furniture code), and idle token per furniture code."""
    verbs = [Action(a).name for a in range(NUM_ACTIONS)] + ["toggle_off"]
    verbs[Action.toggle] = "toggle_on"
    objects = np.full((len(verbs), len(ASSETS.object_names)), -1, dtype=np.int64)
    furniture = np.full((len(verbs), len(ASSETS.furniture_names)), -1, dtype=np.int64)
    for slot, verb in enumerate(verbs):
        for code, name in enumerate(ASSETS.object_names):
            objects[slot, code] = AUDIO.index.get(f"{verb}_{name}", -1)
        for code, name in enumerate(ASSETS.furniture_names):
            furniture[slot, code] = AUDIO.index.get(f"{verb}_{name}", -1)
    idle = np.array(
        [
            AUDIO.index[f"idle_{name}"] if ASSETS.fur_idle_sound[code] else SILENCE
            for code, name in enumerate(ASSETS.furniture_names)
        ],
        dtype=np.int64,
    )
    return objects, furniture, idle


_NAVIGATION_SOUND = np.array([FOOTSTEP if a in _NAVIGATION else SILENCE for a in range(NUM_ACTIONS)], dtype=np.int64)
"""The token of each action before its outcome is known: a footstep for navigation, silence for the rest."""
_FORWARD, _PICKUP, _DROP = int(Action.forward), int(Action.pickup), int(Action.drop)
_TOGGLE, _IDLE = int(Action.toggle), int(Action.idle)


def audio_tokens(outcomes: BatchOutcome, house: House | HouseBatch, batch: BatchedState) -> np.ndarray:
    """:func:`audio_token` of every episode of a batch at once (``batch`` is the state after the actions).

    ``house`` is the episodes' one house or a :class:`HouseBatch` of one house per episode.
    """
    action = outcomes.action
    tokens = _NAVIGATION_SOUND[action]
    # Only successful interactions make a sound of their own; they are few, so the tables are read for them alone.
    rows = np.flatnonzero(outcomes.success & (action > _FORWARD))
    if rows.size:
        tokens[rows] = _interaction_tokens(outcomes, HouseBatch.of(house), batch, rows)
    return tokens


def _interaction_tokens(
    outcomes: BatchOutcome, houses: HouseBatch, batch: BatchedState, rows: np.ndarray
) -> np.ndarray:
    objects, furniture, idle = _token_tables()
    action, fur, obj = outcomes.action[rows], outcomes.fur[rows], outcomes.obj[rows]
    fur_code = houses.fur_code(rows, fur)
    slot = np.where((action == _TOGGLE) & (outcomes.value[rows] == 0), _TOGGLE_OFF, action)
    on_object = (action == _PICKUP) | (action == _DROP) | (obj >= 0)
    thing = np.where(on_object, objects[slot, houses.obj_code(rows, obj)], furniture[slot, fur_code])
    humming = (fur >= 0) & ((state_at(batch.fur_state, rows, fur) & TOGGLE_BIT) > 0)
    return np.where(action == _IDLE, np.where(humming, idle[fur_code], SILENCE), thing)
