"""Episodes: the only way into the world.

One episode (:class:`EpisodeState`) and a batch of episodes
(:class:`EpisodeBatch`), with the same verbs: ``start``, ``advance`` (the
world's rules, then each acting agent's mission progress), ``observe`` and
``copy``; :func:`replay` steps a recorded episode forward. Above the world core
and the missions, below every consumer (the Gymnasium envs, the planner and its
recorder, the rollouts, the inverse planners, the evaluation's evidence, the
viewers): no module outside this package imports the world's executors
(``world.rules``, ``world.batch``).
"""

from marple_gym.episode.batch import BatchStep, EpisodeBatch
from marple_gym.episode.observe import ALL_KEYS, OBSERVATION_KEYS, RECORD_KEYS, observe
from marple_gym.episode.replay import replay
from marple_gym.episode.state import AgentStep, EpisodeState, SnapshotMismatchError

__all__ = [
    "ALL_KEYS",
    "AgentStep",
    "BatchStep",
    "EpisodeBatch",
    "EpisodeState",
    "OBSERVATION_KEYS",
    "RECORD_KEYS",
    "SnapshotMismatchError",
    "observe",
    "replay",
]
