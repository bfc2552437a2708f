"""The trials of a study session: which whodunit pairs, in which order, which agent on which side.

Order and sides come from the session's seed through two separate streams,
so a resumed session (same seed, same list of trials) sees exactly what it saw
before. Sides are balanced: half the trials show the culprit on the left as
"Agent A", half on the right as "Agent B", in random order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.datasets.episodes import practice_pair
from marple_gym.datasets.selection import SelectionError, select_trials
from marple_gym.errors import MarpleError
from marple_gym.recording.records import Trajectory, WhodunitEpisode

_ORDER_STREAM, _SIDE_STREAM, _PRACTICE_STREAM = 0, 1, 2


class StudyError(MarpleError):
    """A study session cannot run as asked (no trials, a responses file of another session, ...)."""


@dataclass(frozen=True)
class StudyTrial:
    """One whodunit pair as shown to the participant."""

    index: int  # position in the session's order
    episode: WhodunitEpisode
    culprit_shown_as: str  # "A": the culprit is the left panel, "Agent A"; "B": the right one

    @property
    def episode_id(self) -> str:
        return self.episode.episode_id

    @property
    def left(self) -> Trajectory:
        """The trajectory shown on the left, labelled "Agent A"."""
        culprit = self.episode.culprit
        return self.episode.trajectories[culprit if self.culprit_shown_as == "A" else 1 - culprit]

    @property
    def right(self) -> Trajectory:
        """The trajectory shown on the right, labelled "Agent B"."""
        culprit = self.episode.culprit
        return self.episode.trajectories[1 - culprit if self.culprit_shown_as == "A" else culprit]

    @property
    def horizon(self) -> int:
        return self.episode.horizon

    @property
    def evidence_steps(self) -> list[int]:
        """tau for each of the 11 evidence points."""
        return self.episode.evidence_steps()


def fresh_seed() -> int:
    """A seed from the system's entropy, for a session or a web study given none (it is recorded in what they
    write, so the order and sides can be drawn again)."""
    return int(np.random.SeedSequence().entropy % 2**31)


def trial_order(episode_ids: Sequence[str], seed: int) -> list[str]:
    """The episode ids in the session's random order."""
    order = np.random.default_rng([seed, _ORDER_STREAM]).permutation(len(episode_ids))
    return [episode_ids[i] for i in order.tolist()]


def culprit_sides(n: int, seed: int, stream: int = _SIDE_STREAM) -> list[str]:
    """Where the culprit appears in each of ``n`` trials ("A" or "B"), balanced, in random order."""
    sides = np.array(["A", "B"] * (n // 2) + (["A"] if n % 2 else []))
    rng = np.random.default_rng([seed, stream])
    if n % 2:  # the odd trial's side is a coin flip too
        sides[-1] = rng.choice(["A", "B"])
    return rng.permutation(sides).tolist()


def make_trials(episodes: Sequence[WhodunitEpisode], order: Sequence[str], seed: int) -> list[StudyTrial]:
    """Trials for ``episodes`` in the given ``order`` of episode ids, with seeded balanced sides."""
    by_id = {e.episode_id: e for e in episodes}
    missing = [i for i in order if i not in by_id]
    if missing:
        raise StudyError(f"the dataset lacks trial(s) {missing[:3]} of this session; is it the same dataset?")
    sides = culprit_sides(len(order), seed)
    return [StudyTrial(i, by_id[eid], side) for i, (eid, side) in enumerate(zip(order, sides))]


def who_it_was(trial: StudyTrial) -> str:
    """The answer of a practice trial in words: "In this practice trial, Agent B (right) picked up the pillow."."""
    agent = "Agent A (left)" if trial.culprit_shown_as == "A" else "Agent B (right)"
    question = trial.episode.question
    deed = question[4:].rstrip("?") if question.startswith("Who ") else "did it"
    return f"In this practice trial, {agent} {deed}."


def practice_trials(episodes: Sequence[WhodunitEpisode], seed: int) -> list[StudyTrial]:
    """The practice trials, in the given order, with their own seeded balanced sides."""
    sides = culprit_sides(len(episodes), seed, _PRACTICE_STREAM)
    return [StudyTrial(i, episode, side) for i, (episode, side) in enumerate(zip(episodes, sides))]


def practice_episodes(data: MarpleDataset, scenarios: Sequence[str], count: int) -> list[WhodunitEpisode]:
    """``count`` practice pairs, taking the ``scenarios`` in turn (in name order, so that any order of the
    same scenarios gives the same pairs), each from a house no trial is scored in
    (:func:`~marple_gym.datasets.generate.practice_pair`)."""
    names = sorted(set(scenarios))
    if count and not names:
        raise StudyError("practice trials need a scenario to draw them from")
    return [practice_pair(data.spec, names[i % len(names)], i // len(names)) for i in range(count)]


def load_episodes(
    data: MarpleDataset, scenarios: Sequence[str] = (), limit: int | None = None
) -> list[WhodunitEpisode]:
    """The study's trials: exactly those ``marple evaluate`` scores for the same dataset, scenarios and limit
    (:func:`~marple_gym.datasets.selection.select_trials`); the session's seed then orders them."""
    try:
        return select_trials(data, scenarios, limit)
    except SelectionError as exc:
        raise StudyError(str(exc)) from None
