"""The human-study interface: whodunit trials shown side by side, answers on a 0-100 slider.

``marple study`` runs it; :mod:`~marple.study.responses` defines the file it
writes, which ``marple_eval`` scores like any model.
"""

from marple.study.responses import MODALITIES, ResponseLog
from marple.study.state import StudyState
from marple.study.trials import StudyError, Trial, load_episodes, make_trials, trial_order

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
