"""Question sets as pure functions of a spec and an index: houses, episodes and questions, any shard in any order.

A :class:`QuestionSpec` fixes everything (seed, house config, how agents perceive and slip, how many houses
and episodes, the share of Sally-Anne episodes, the question types and the decisiveness threshold). Then:

* :func:`house_config` ``(spec, split, k)``: house ``k`` of a split, explicit (``"test"``: the test houses;
  ``"train"``: training houses, a new one for every episode, never a test house);
* :func:`make_episode` ``(spec, split, k, i)``: episode ``i`` in that house (``"search"`` or, with probability
  ``false_belief``, ``"false-belief"``; a Sally-Anne setup the house cannot stage is drawn again, and a house
  with no second container gets a search episode);
* :func:`make_questions` ``(spec, split, k, i)``: that episode's candidate questions
  (:func:`~marple_gym.beliefs.questions.moments.episode_questions`);
* :func:`generate_questions` ``(spec, split)``: a split's questions, its episodes' candidates balanced
  (:func:`~marple_gym.beliefs.questions.balance.balance_split`): every type as many, none answerable from the
  cues.

Each is a function of its arguments alone (its generator seeded from the spec's seed, the split, the house
and the episode), so a sharded, resumable writer only has to cut the index ranges and record them.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from marple_gym.beliefs.episodes import (
    EXCLUSION,
    EpisodeError,
    SearchEpisode,
    false_belief_episode,
    search_episode,
)
from marple_gym.beliefs.houses import apartment_config
from marple_gym.beliefs.questions.balance import balance_split
from marple_gym.beliefs.questions.moments import PER_TYPE, episode_questions
from marple_gym.beliefs.questions.question import DECISIVE, QUESTION_TYPES, BeliefQuestion
from marple_gym.beliefs.questions.text import PEOPLE
from marple_gym.beliefs.search import SearchSettings
from marple_gym.generation.config import AgentSpec, HouseConfig
from marple_gym.generation.generator import generate_world

SPLITS = ("test", "train")
MAX_REDRAWS = 20
"""How often a Sally-Anne setup that did not go as planned is drawn again before the episode is a search."""
_SPLIT_CODE = {"test": 1, "train": 2}
_HOUSE, _EPISODE, _QUESTIONS, _BALANCE = 0, 1, 2, 3


PRESETS: dict[str, dict[str, Any]] = {
    "small": {},
    "quick": {"test_houses": 4, "episodes_per_house": 10, "train_episodes": 40, "false_belief": 0.5},
}
"""Sizes by preset: ``small`` is the default set (24 test houses x 20 episodes, 200 training episodes: about 100
questions of every type in the test split); ``quick`` a set that checks the pipeline in seconds and has every type
for most seeds, with too few questions of each to compare methods."""


@dataclass(frozen=True)
class QuestionSpec:
    """Everything a question set is a function of (see the module docs)."""

    seed: int = 0
    test_houses: int = 24
    episodes_per_house: int = 20
    train_episodes: int = 200
    false_belief: float = 0.25
    perception: str = "room"
    lapse: float = 0.05
    exclusion: float = EXCLUSION
    types: tuple[str, ...] = tuple(QUESTION_TYPES)
    threshold: float = DECISIVE
    per_type: int = PER_TYPE
    """Candidates of each type and cell an episode may give (:func:`~marple_gym.beliefs.questions.moments.episode_questions`)."""
    config: dict[str, Any] | None = field(default=None, compare=True)
    """A house config in the plain form (None: the apartment, :func:`~marple_gym.beliefs.houses.apartment_config`)."""

    def __post_init__(self) -> None:
        SearchSettings(self.perception, lapse=self.lapse)  # refuses a bad perception or lapse now
        unknown = [t for t in self.types if t not in QUESTION_TYPES]
        if unknown:
            raise ValueError(f"unknown question types {unknown}; choose from {', '.join(QUESTION_TYPES)}")
        if not 0.5 < self.threshold <= 1.0 or not 0.0 <= self.false_belief <= 1.0 or self.per_type < 1:
            raise ValueError("need 0.5 < threshold <= 1, 0 <= false_belief <= 1 and per_type >= 1")
        if self.test_houses < 0 or self.episodes_per_house < 0 or self.train_episodes < 0:
            raise ValueError("house and episode counts must be >= 0")

    @property
    def settings(self) -> SearchSettings:
        return SearchSettings(self.perception, lapse=self.lapse)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "types": list(self.types)}

    def episodes(self, split: str) -> list[tuple[int, int]]:
        """(house, episode) of every episode of a split, in order."""
        _check_split(split)
        if split == "test":
            return [(k, i) for k in range(self.test_houses) for i in range(self.episodes_per_house)]
        return [(i, 0) for i in range(self.train_episodes)]


def _check_split(split: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")


def _rng(spec: QuestionSpec, what: int, split: str, *keys: int) -> np.random.Generator:
    return np.random.default_rng([spec.seed, zlib.crc32(b"beliefs"), what, _SPLIT_CODE[split], *keys])


def house_config(spec: QuestionSpec, split: str, k: int) -> HouseConfig:
    """The explicit config of house ``k`` of ``split`` (its agents unplaced: each episode draws their starts)."""
    _check_split(split)
    base = apartment_config(agents=2) if spec.config is None else HouseConfig.load(spec.config)
    world = generate_world(base, _rng(spec, _HOUSE, split, k))
    explicit = world.house.source["config"]
    return replace(explicit, agents=[AgentSpec(a.name, color=a.color) for a in base.agents])


def make_episode(spec: QuestionSpec, split: str, k: int, i: int) -> SearchEpisode:
    """Episode ``i`` in house ``k`` of ``split`` (see the module docs)."""
    house = house_config(spec, split, k)
    episode_id = f"{split}/h{k:03d}/{i:04d}"
    sally_anne = len(house.agents) >= 2 and _rng(spec, _EPISODE, split, k, i).random() < spec.false_belief
    if sally_anne:
        for redraw in range(MAX_REDRAWS):
            try:
                return false_belief_episode(
                    _rng(spec, _EPISODE, split, k, i, 1, redraw),
                    house,
                    spec.settings,
                    exclusion=spec.exclusion,
                    episode_id=episode_id,
                    seed=i,
                )
            except EpisodeError:
                continue
    alone = replace(house, agents=house.agents[:1])
    return search_episode(
        _rng(spec, _EPISODE, split, k, i, 0),
        alone,
        spec.settings,
        exclusion=spec.exclusion,
        episode_id=episode_id,
        seed=i,
    )


def names_for(spec: QuestionSpec, episode: SearchEpisode) -> tuple[str, ...]:
    """The agents' names in the text, drawn once per episode."""
    rng = np.random.default_rng([spec.seed, zlib.crc32(episode.id.encode())])
    order = rng.permutation(len(PEOPLE)).tolist()
    return tuple(PEOPLE[j][0] for j in order)


def make_questions(
    spec: QuestionSpec, split: str, k: int, i: int, episode: SearchEpisode | None = None
) -> list[BeliefQuestion]:
    """The candidate questions of episode ``i`` in house ``k`` of ``split`` (``episode``: that episode, if made
    already), before a split is balanced."""
    episode = make_episode(spec, split, k, i) if episode is None else episode
    rng = _rng(spec, _QUESTIONS, split, k, i)
    return episode_questions(
        episode,
        rng,
        spec.types,
        threshold=spec.threshold,
        per_type=spec.per_type,
        split=split,
        names=names_for(spec, episode),
    )


def generate_questions(
    spec: QuestionSpec, split: str = "test", episodes: Sequence[tuple[int, int]] | None = None
) -> list[BeliefQuestion]:
    """The balanced questions of a split's episodes (default: all of them, :meth:`QuestionSpec.episodes`)."""
    found = [
        q
        for k, i in (spec.episodes(split) if episodes is None else episodes)
        for q in make_questions(spec, split, k, i)
    ]
    return balance_split(found, balance_rng(spec, split))


def balance_rng(spec: QuestionSpec, split: str) -> np.random.Generator:
    """The generator that balances a split (seeded from the spec's seed and the split)."""
    return _rng(spec, _BALANCE, split)
