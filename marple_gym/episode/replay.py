"""Replaying recorded actions: the one way every consumer rebuilds an episode from its start and its actions.

Datasets' testimonies and worlds, the evaluation's evidence (one suspect alone
or every agent in a shared house), the perfect agent models' mission histories
and the inverse planners' likelihoods all step a recorded episode forward
through :func:`replay`, that is through :meth:`EpisodeState.advance`, the
transition the env and the recorder applied when the actions were taken.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from marple_gym.episode.state import AgentStep, EpisodeState
from marple_gym.world.house import House


def replay(
    house: House, episode: EpisodeState, actions: Sequence[int] | Sequence[Sequence[int]] | np.ndarray
) -> Iterator[tuple[AgentStep, ...]]:
    """Advance ``episode`` (in place) by each of ``actions`` in turn, yielding what each joint step did.

    ``actions`` holds one action per step for an episode of one acting agent,
    or one row of actions (one per acting agent) per step.
    """
    joint = np.asarray(actions, dtype=np.int64)
    for row in (joint[:, None] if joint.ndim == 1 else joint).tolist():
        yield episode.advance(house, row)
