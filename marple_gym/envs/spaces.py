"""The observation and action spaces, declared once for every env and every docstring."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from marple_gym.envs.text_space import TextSpace
from marple_gym.episode.observe import OBSERVATION_KEYS
from marple_gym.evidence.audio import AUDIO
from marple_gym.evidence.language import MAX_TEXT_LENGTH, TEXT_CHARSET
from marple_gym.missions.mission import SUBGOAL_NVEC
from marple_gym.validation import describe
from marple_gym.world.actions import NUM_ACTIONS
from marple_gym.world.assets import ASSETS
from marple_gym.world.state import HANDS, NUM_CHANNELS

_CHARSET = "".join(sorted(TEXT_CHARSET))

_MEANING = {
    "image": "the symbolic vision array (room type, furniture type and state, object type, state and id, "
    "agent id and direction per cell)",
    "direction": "0 east, 1 south, 2 west, 3 north",
    "carrying": "object type codes in the two hands (0 = empty), the object ``drop`` puts down next first",
    "mission": "the mission's title",
    "intent": "the sentence for the subgoal the agent works on",
    "audio": "the sound token of the last action (silence after reset)",
    "subgoal": "the current subgoal's (action, object, furniture, room) codes (all 0 once the mission is done): "
    "the intent as numbers, for networks and vector envs",
}


def action_space() -> spaces.Discrete:
    """``Discrete(10)``: the ten actions of :class:`marple_gym.Action`."""
    return spaces.Discrete(NUM_ACTIONS)


def action_index(value: Any, who: str = "the action") -> int:
    """``value`` as an index into :func:`action_space`: a Python or numpy integer (or a 0-d integer array) in
    0..9. A bool, a float (even 1.0), a string or an index out of range is refused with a message naming ``who``,
    never rounded or cast into some action."""
    if type(value) is int and 0 <= value < NUM_ACTIONS:  # the common case, every step: no further checks
        return value
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise TypeError(
            f"{who} must be an integer action 0..{NUM_ACTIONS - 1}, got {describe(value)} ({type(value).__name__})"
        )
    if not 0 <= value < NUM_ACTIONS:
        raise ValueError(f"{who} must be an action 0..{NUM_ACTIONS - 1}, got {value}")
    return int(value)


def modality_space(key: str, height: int, width: int, view: int | None = None) -> spaces.Space:
    """The space of one observation key for a ``height`` x ``width`` house (``view``: an egocentric image)."""
    if key == "image":
        rows, cols = (height, width) if view is None else (view, view)
        return spaces.Box(0, 255, (rows, cols, NUM_CHANNELS), dtype=np.uint8)
    if key == "direction":
        return spaces.Discrete(4)
    if key == "carrying":
        return spaces.MultiDiscrete([len(ASSETS.object_names)] * HANDS)
    if key in ("mission", "intent"):
        # A Text that survives async vector envs' shared memory (see marple_gym.envs.text_space).
        return TextSpace(max_length=MAX_TEXT_LENGTH, min_length=1, charset=_CHARSET)
    if key == "audio":
        return spaces.Discrete(len(AUDIO))
    if key == "subgoal":
        return spaces.MultiDiscrete(SUBGOAL_NVEC)
    raise ValueError(f"unknown observation key {key!r}; choose from {OBSERVATION_KEYS}")


def observation_space(keys: Sequence[str], height: int, width: int, view: int | None = None) -> spaces.Dict:
    """The ``Dict`` space of the chosen observation keys."""
    return spaces.Dict({k: modality_space(k, height, width, view) for k in keys})


def _shown(space: spaces.Space) -> str:
    """A space as a reader would construct it."""
    if isinstance(space, spaces.Text):  # TextSpace too
        return f"Text(max_length={space.max_length})"
    if isinstance(space, spaces.MultiDiscrete):
        return f"MultiDiscrete({space.nvec.tolist()})"
    return repr(space)


def fill_observation_space(doc: str, height: int, width: int) -> str:
    """``doc`` with its ``<observation space>`` line replaced by :func:`describe_observation_space` (same indent)."""
    match = re.search(r"^([ \t]*)<observation space>$", doc, flags=re.MULTILINE)
    if match is None:
        return doc
    return doc[: match.start()] + describe_observation_space(height, width, match.group(1)) + doc[match.end() :]


def describe_observation_space(height: int, width: int, indent: str = "") -> str:
    """One docstring bullet per observation key, naming the space exactly as declared."""
    lines = []
    for key in OBSERVATION_KEYS:
        space = modality_space(key, height, width)
        lines.append(f"{indent}- ``{key}``: ``{_shown(space)}``, {_MEANING[key]}.")
    return "\n".join(lines)
