"""The human-study interface: whodunit trials shown side by side, answers on a 0-100 slider.

``marple study`` runs it; :mod:`~marple_gym.study.responses` defines the file it
writes, which ``marple_eval`` scores like any model.
"""

from marple_gym.study.responses import MODALITIES, ResponseLog
from marple_gym.study.state import StudyState
from marple_gym.study.trials import StudyError, Trial, load_episodes, make_trials, trial_order

__all__ = [
    "MODALITIES",
    "ResponseLog",
    "StudyError",
    "StudyState",
    "Trial",
    "load_episodes",
    "make_trials",
    "trial_order",
]
