"""A person's session at the desk (what ``marple study`` runs): the session opened, shown in the study window.

A new session that fails before its first answer leaves no responses file behind, so running again starts it
afresh; once answered, every answer is on disk and running again resumes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from marple.study.app import StudyApp
from marple.study.session import SessionPlan, open_session
from marple.study.state import StudyState

Script = Iterable[Sequence]
"""Scripted pygame events, one list per frame (tests)."""


def run_study(
    data: str | Path | None,
    out: str | Path,
    participant: str,
    plan: SessionPlan,
    *,
    web: str | Path | None = None,
    tile_size: int = 24,
    sound: bool = True,
    events: Script | Callable[[StudyApp], Script] | None = None,
    max_frames: int | None = None,
) -> StudyState:
    """Open ``participant``'s session (:func:`open_session`) and show it in the study window until it is done or
    closed; returns the session's state, its answers already on disk in ``out``.

    The window shows the modality the session's file records (a resumed session keeps its own). A new session
    that fails before its first answer leaves no file behind, so running again starts it afresh. For tests:
    ``events`` scripts the pygame events (one list per frame), or is a function of the app returning such a script
    (a participant that reacts to the screen); ``max_frames`` bounds the loop.
    """
    path = Path(out)
    created = not (path.exists() and path.stat().st_size > 0)
    state = open_session(data, out, participant, plan, web=web)
    try:
        app = StudyApp(state, state.log.session["modality"], tile_size=tile_size, sound=sound)
        try:
            app.run(events(app) if callable(events) else events, max_frames)
        finally:
            app.close()
    except Exception:
        if created and not state.log.answers:  # failed before the first answer: leave no file behind
            path.unlink(missing_ok=True)
        raise
    return state
