"""Episodes: the typed state of one episode, its one transition, and its observations.

Above the world core and the missions, below every consumer (the Gymnasium env,
the planner's recorder, the rollouts, the viewers).
"""

from marple_gym.episode.observe import ALL_KEYS, OBSERVATION_KEYS, RECORD_KEYS, observe
from marple_gym.episode.state import EpisodeState, SnapshotMismatchError
from marple_gym.episode.transition import AgentStep, advance, step

__all__ = [
    "ALL_KEYS",
    "AgentStep",
    "EpisodeState",
    "OBSERVATION_KEYS",
    "RECORD_KEYS",
    "SnapshotMismatchError",
    "advance",
    "observe",
    "step",
]
