"""Which test pairs a study or an evaluation uses: one rule for people and models.

``marple study``, ``marple study-web`` and ``marple evaluate`` all call
:func:`select_trials`, so for the same dataset, scenarios and limit they score
exactly the same whodunit pairs; only the order and the sides shown differ
(those come from each run's seed). With a limit, the pairs of a scenario are
spread evenly over its test houses (the first pair of every house, then the
second, ...), so a small study still sees several houses.

:func:`trial_set_id` names a list of trials by content, for results files to
record and reports to compare.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
from collections.abc import Iterable, Sequence

from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.errors import MarpleError
from marple_gym.recording.records import WhodunitEpisode

log = logging.getLogger(__name__)


class SelectionError(MarpleError, ValueError):
    """No trials can be chosen as asked (no whodunit scenarios, an empty scenario, a bad limit)."""


def whodunit_scenarios(data: MarpleDataset) -> list[str]:
    """The dataset's two-agent units: the scenarios a whodunit trial can come from."""
    return [u.name for u in data.spec.units if len(u.roles) == 2]


def select_trials(
    data: MarpleDataset, scenarios: Sequence[str] = (), limit: int | None = None
) -> list[WhodunitEpisode]:
    """The test pairs of each scenario (default: every whodunit scenario), at most ``limit`` per scenario,
    spread evenly over the test houses. Deterministic: the same dataset and arguments give the same list."""
    if limit is not None and limit < 1:
        raise SelectionError(f"the trial limit must be at least 1, got {limit}")
    names = list(dict.fromkeys(scenarios)) or whodunit_scenarios(data)
    if len(names) < len(list(scenarios)):  # each trial once: a repeated scenario would count its trials again
        log.warning("a scenario is asked for more than once: its trials are taken once")
    if not names:
        raise SelectionError(f"{data.root} has no whodunit scenarios; generate one with `marple generate --scenario`")
    chosen: list[WhodunitEpisode] = []
    for name in names:
        by_house: dict[str, list[WhodunitEpisode]] = {}
        for episode in data.whodunit(name):
            by_house.setdefault(episode.trajectories[0].house_id, []).append(episode)
        rounds = itertools.zip_longest(*by_house.values())
        spread = [e for round_ in rounds for e in round_ if e is not None]
        chosen += spread[:limit] if limit is not None else spread
    if not chosen:
        raise SelectionError(f"no test pairs for {', '.join(names)} in {data.root}")
    return chosen


def trial_set_id(episode_ids: Iterable[str]) -> str:
    """A short name for a set of trials, independent of their order and of repeats (several participants)."""
    text = "\n".join(sorted(set(episode_ids)))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
