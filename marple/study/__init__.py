"""The human study: whodunit trials shown side by side, answers on a 0-100 slider.

``marple study`` runs it on the desktop (or headless, with a simulated participant answering through the model
runner: :mod:`~marple.study.participant`), ``marple study-web`` builds it for the browser and ``marple
study-server`` collects the answers; :mod:`~marple.study.responses` defines the file they write, which
:mod:`~marple.study.human` scores like any method (``marple evaluate --responses``).

The web study also asks belief questions on a two-option page and rates expectation trials on a surprise
slider (:mod:`~marple.study.family_web`, built from the sets :mod:`~marple.study.families` reads), scored by
:mod:`~marple.study.family_scores` (``marple study-score``).
"""

from marple.study.responses import MODALITIES, ResponseLog
from marple.study.state import StudyState
from marple.study.trials import StudyError, StudyTrial, load_episodes, make_trials, trial_order

__all__ = [
    "MODALITIES",
    "ResponseLog",
    "StudyError",
    "StudyState",
    "StudyTrial",
    "load_episodes",
    "make_trials",
    "trial_order",
]
