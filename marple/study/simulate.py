"""Simulated participants: a headless pilot of a study, through the exact trial sequence a person gets.

A participant is a function ``answer(trial, point) -> slider`` (0..100). :func:`run_participant`
drives a :class:`~marple.study.state.StudyState` as the desktop app does (leave the intro,
step to each evidence point, set the slider, submit), so the responses file is the one a person
would leave. Participants backed by inference methods are :func:`~marple.study.participant.method_participant`'s;
:func:`simulate_session` (``marple study --simulate``) opens a session and has such a participant answer it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from marple.study.participant import Participant, method_participant
from marple.study.session import SessionPlan, open_session
from marple.study.state import StudyState


def run_participant(state: StudyState, answer: Participant) -> StudyState:
    """Answer every open evidence point of every open trial, in the session's order."""
    if state.phase == "intro":
        state.advance()
    while state.phase != "done":
        if state.phase == "ask":
            state.set_slider(float(answer(state.trial, state.open_point)))
            state.submit()
        else:
            state.advance()
    return state


def simulate_session(
    data: str | Path | None,
    out: str | Path,
    method: str,
    plan: SessionPlan,
    *,
    participant: str | None = None,
    web: str | Path | None = None,
    noise: float = 0.0,
    method_args: Mapping[str, Any] | None = None,
    agents: Mapping[str, str] | None = None,
) -> StudyState:
    """A headless pilot: the session ``plan`` (or the web study ``web``'s) opened as :func:`open_session` opens a
    person's, every trial answered by the registered whodunit method ``method``
    (:func:`~marple.study.participant.method_participant`, with Gaussian ``noise`` of that many slider points
    seeded by the session's seed, the method's arguments ``method_args`` and each role's agent model ``agents``, as
    ``marple evaluate --agent`` gives them). The participant's id defaults to ``sim-METHOD``."""
    state = open_session(data, out, participant or f"sim-{method}", plan, web=web)
    session = state.log.session
    answer = method_participant(
        method,
        noise=noise,
        seed=session["seed"],
        method_args=dict(method_args or {}),
        agents=dict(agents) if agents else None,
        data=session.get("dataset"),
    )
    return run_participant(state, answer)
