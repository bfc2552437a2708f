"""Recording episodes: what a dataset stores of one, and how the planners' episodes are recorded.

* ``records``: :class:`Trajectory` (one agent's recorded episode) and
  :class:`WhodunitEpisode` (a test pair), rebuilt through the episode's replay.
* ``recorder``: :func:`record_trajectory`, one planner's episode recorded step by step.
* ``shared_house``: many planners acting at once in one house, every agent
  recorded (:class:`SharedEpisode`, :func:`run_shared_episode`, :func:`generate_shared_episode`).
* ``role_episodes``: a dataset unit's roles placed in one house and recorded acting together.

Below the envs and the datasets, above the planner and the episode.
"""

from marple_gym.recording.recorder import record_trajectory
from marple_gym.recording.records import SubgoalSpan, Trajectory, WhodunitEpisode
from marple_gym.recording.shared_house import SharedEpisode, generate_shared_episode, run_shared_episode

__all__ = [
    "SharedEpisode",
    "SubgoalSpan",
    "Trajectory",
    "WhodunitEpisode",
    "generate_shared_episode",
    "record_trajectory",
    "run_shared_episode",
]
