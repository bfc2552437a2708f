"""What the learned model sees of a trial: each step as a small stack of masks, each action as a class.

A step becomes a (CHANNELS, SIZE, SIZE) float32 array over the house's cells
(houses up to SIZE x SIZE, laid in the top-left corner): walls, doors, floor,
furniture and obstacles, each of the trial's object types in a slot of its own
(slot k: the k-th type to appear in the trial, AGENT's colour codes, so one
agent's preference is the same slot in every episode), the agent's cell and
heading, and the cells the occluder hides. Everything comes from the evidence
an onlooker has (:class:`~marple_gym.expectations.trial.EpisodeEvidence`): the
hidden cells read as hidden. A test that lifts the occluder is read with what
the lift showed filled in at every step (AGENT's reconstruction), so the model
judges the run against what was really there; a test that shows a
familiarisation episode again (``continues``) is read as that episode's run so
filled in. Without the familiarisation, a test is read as it is.

Actions are classes 0-4 (left, right, forward, pickup, idle); an action the
occluder hides is :data:`UNSEEN`, left out of losses and surprises.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from marple_gym.expectations.trial import EpisodeEvidence, TrialView
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS, DOOR, FIRST_FURNITURE, WALL
from marple_gym.world.state import CH_AGENT, CH_AGENT_DIR, CH_FUR, CH_OBJ, CH_ROOM

SIZE = 16
"""The largest house side the model reads (the trial families' houses are at most 13 x 10)."""
SLOTS = 3
"""Object-type slots: a trial holds at most this many object types."""
CHANNELS = 5 + SLOTS + 1 + 4 + 1
"""wall, door, floor, furniture, obstacle-free floor mask; the object slots; agent; its heading (4); hidden."""
ACTIONS = (int(Action.left), int(Action.right), int(Action.forward), int(Action.pickup), int(Action.idle))
"""The actions the model predicts, as classes 0..4."""
UNSEEN = -1


class FeatureError(ValueError):
    """A trial the model cannot read (a house larger than :data:`SIZE`, too many object types)."""


def object_slots(episodes: Sequence[EpisodeEvidence]) -> dict[int, int]:
    """Object type code -> slot, in order of first appearance over ``episodes``."""
    slots: dict[int, int] = {}
    for episode in episodes:
        for grid in (episode.vision[0], episode.revealed) if episode.revealed is not None else (episode.vision[0],):
            for code in np.unique(grid[..., CH_OBJ]).tolist():
                if code and code not in slots:
                    slots[code] = len(slots)
    if len(slots) > SLOTS:
        names = [ASSETS.object_names[c] for c in slots]
        raise FeatureError(f"a trial of {len(slots)} object types ({names}); the model reads at most {SLOTS}")
    return slots


def episode_features(
    episode: EpisodeEvidence, slots: dict[int, int], revealed: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(states, actions): (T + 1, CHANNELS, SIZE, SIZE) float32 and (T,) int64 classes (:data:`UNSEEN` for a
    hidden action); ``revealed``: what a lift showed behind the episode's occluder (default: its own lift)."""
    vision = episode.vision
    h, w = vision.shape[1:3]
    if h > SIZE or w > SIZE:
        raise FeatureError(f"a {w} x {h} house is larger than the {SIZE} x {SIZE} the model reads")
    hidden = np.broadcast_to(episode.hidden, vision.shape[:3])
    revealed = episode.revealed if revealed is None else revealed
    if revealed is not None:  # the lift shows what was there all along: fill it in at every step
        vision = vision.copy()
        static = revealed.copy()
        static[..., CH_AGENT] = static[..., CH_AGENT_DIR] = 0
        vision[:, episode.hidden] = static[episode.hidden]
        hidden = np.zeros_like(hidden)
    out = np.zeros((len(vision), CHANNELS, SIZE, SIZE), dtype=np.float32)
    fur, obj = vision[..., CH_FUR], vision[..., CH_OBJ]
    out[:, 0, :h, :w] = fur == WALL
    out[:, 1, :h, :w] = fur == DOOR
    out[:, 2, :h, :w] = vision[..., CH_ROOM] > 0
    out[:, 3, :h, :w] = fur >= FIRST_FURNITURE
    out[:, 4, :h, :w] = (vision[..., CH_ROOM] > 0) & (fur == 0) & (obj == 0)
    for code, slot in slots.items():
        out[:, 5 + slot, :h, :w] = (obj == code) & (vision[..., CH_AGENT] == 0)
    agent = 5 + SLOTS
    out[:, agent, :h, :w] = vision[..., CH_AGENT] > 0
    for d in range(4):
        out[:, agent + 1 + d, :h, :w] = vision[..., CH_AGENT_DIR] == d + 1
    out[:, agent + 5, :h, :w] = hidden
    actions = np.array([UNSEEN if a is None else ACTIONS.index(a) for a in episode.actions], dtype=np.int64)
    return out, actions


def trial_features(
    view: TrialView, familiarisation: bool = True
) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[tuple[np.ndarray, np.ndarray]]]:
    """The features of every familiarisation episode and every test of ``view``; without ``familiarisation``,
    none of the familiarisation's, and each test's slots numbered from that test alone (so that nothing of the
    familiarisation, not even which object it showed first, reaches the model)."""
    if not familiarisation:
        return [], [episode_features(e, object_slots([e])) for e in view.tests]
    slots = object_slots(list(view.familiarisation) + list(view.tests))
    return [episode_features(e, slots) for e in view.familiarisation], [
        _test_features(view, e, slots) for e in view.tests
    ]


def _test_features(view: TrialView, test: EpisodeEvidence, slots: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A test's features; a test that shows a familiarisation episode again with its occluder lifted (the
    unobserved constraints' lift) is read as that episode's run with what the lift showed filled in, so the model
    judges the run it saw against what was behind the occluder."""
    if test.continues is None:
        return episode_features(test, slots)
    return episode_features(view.familiarisation[test.continues], slots, test.revealed)


def stack(episodes: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Episodes padded to one length: states (N, T, C, S, S) (each step's state before its action), actions
    (N, T) with padding :data:`UNSEEN`, and the (N, T) mask of real steps."""
    longest = max(len(a) for _, a in episodes)
    n = len(episodes)
    states = np.zeros((n, longest, CHANNELS, SIZE, SIZE), dtype=np.float32)
    actions = np.full((n, longest), UNSEEN, dtype=np.int64)
    mask = np.zeros((n, longest), dtype=bool)
    for i, (s, a) in enumerate(episodes):
        states[i, : len(a)] = s[:-1]
        actions[i, : len(a)] = a
        mask[i, : len(a)] = True
    return states, actions, mask
