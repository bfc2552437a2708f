"""The human study: whodunit trials shown side by side, answers on a 0-100 slider.

``marple study`` runs it on the desktop (or headless, with a simulated participant answering through the model
runner: :mod:`~marple.study.participant`), ``marple study-web`` builds it for the browser and ``marple
study-server`` collects the answers; :mod:`~marple.study.responses` defines the file they write, which
:mod:`~marple.study.human` scores like any method (``marple evaluate --responses``).
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
