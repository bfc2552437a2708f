"""What a participant is doing at any moment of a session, without any drawing.

Phases: ``intro`` (instructions) -> per trial ``ask`` / ``watch`` alternating
(an answer is asked at each evidence point tau, the participant steps forward
between them at their own pace) -> ``between`` (the trial is done) -> ... ->
``done``. The app maps keys and clicks onto the methods here; tests can call
them directly.

A session may begin with practice trials (the habituation block the paper's
participants had): they run exactly like the scored trials, their answers are
recorded with ``"block": "practice"`` and scoring leaves them out; after each,
the ``between`` phase can say who it was (:attr:`StudyState.feedback`).

Trials already fully answered in the responses file are skipped; in a trial
answered in part, the participant watches from the start again and is asked
only at the evidence points still open. Several evidence points can share one
tau (horizons under 10 steps): one answer there fills all of them, because the
participant saw the same evidence.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from marple.study.responses import ResponseLog
from marple.study.trials import StudyTrial, who_it_was

START_SLIDER = 50


class StudyState:
    """The session's position: trial, step, phase and slider."""

    def __init__(
        self,
        trials: Sequence[StudyTrial],
        log: ResponseLog,
        clock: Callable[[], float] = time.monotonic,
        practice: Sequence[StudyTrial] = (),
    ) -> None:
        self.trials = list(trials)  # the scored trials
        self.practice = list(practice)  # shown first, not scored
        self.sequence = [*self.practice, *self.trials]  # what the participant goes through, in order
        self.log = log
        self.clock = clock  # seconds; response times are measured with it
        self.asked_at = 0.0  # when the current question appeared
        self.position = -1  # index into trials
        self.t = 0
        self.phase = "intro"
        self.slider = START_SLIDER
        self.touched = False  # has the slider been set at this evidence point?
        self._open: list[int] = []  # evidence points of the current trial still to answer

    # ---- where we are --------------------------------------------------------------------------
    @property
    def trial(self) -> StudyTrial | None:
        return self.sequence[self.position] if 0 <= self.position < len(self.sequence) else None

    @property
    def in_practice(self) -> bool:
        """Is the current trial a practice trial?"""
        return 0 <= self.position < len(self.practice)

    @property
    def remaining(self) -> list[StudyTrial]:
        """Scored trials not yet fully answered (the current one included)."""
        return [t for t in self.trials if len(self.log.answered(t.episode_id)) < len(t.evidence_steps)]

    @property
    def practice_left(self) -> list[StudyTrial]:
        """Practice trials not yet fully answered."""
        return [t for t in self.practice if len(self.log.answered(t.episode_id)) < len(t.evidence_steps)]

    @property
    def feedback(self) -> str | None:
        """After a practice trial: who it was, in words (None otherwise)."""
        if self.phase != "between" or not self.in_practice:
            return None
        return who_it_was(self.trial)

    @property
    def next_tau(self) -> int | None:
        """The step of the next evidence point still to answer in this trial."""
        return self.trial.evidence_steps[self._open[0]] if self._open and self.trial else None

    @property
    def open_point(self) -> int | None:
        """The evidence point (0..10) asked for now or next in this trial."""
        return self._open[0] if self._open else None

    @property
    def can_step(self) -> bool:
        return self.phase == "watch" and self.next_tau is not None and self.t < self.next_tau

    # ---- actions -------------------------------------------------------------------------------
    def advance(self) -> None:
        """The "next" action: leave the intro or a finished trial, or step forward while watching."""
        if self.phase in ("intro", "between"):
            self._next_trial()
        elif self.can_step:
            self.t += 1
            self._maybe_ask()

    def set_slider(self, value: float) -> None:
        """Move the slider (clamped to 0..100); counts as touching it."""
        if self.phase == "ask":
            self.slider = int(round(min(max(value, 0), 100)))
            self.touched = True

    def nudge(self, delta: int) -> None:
        self.set_slider(self.slider + delta)

    def submit(self) -> bool:
        """Record the slider for every open evidence point at this step; False when not possible yet."""
        if self.phase != "ask" or not self.touched:
            return False
        trial = self.trial
        rt_ms = round((self.clock() - self.asked_at) * 1000)
        while self._open and trial.evidence_steps[self._open[0]] == self.t:
            self.log.record(trial, self._open.pop(0), self.slider, rt_ms, practice=self.in_practice)
        self.touched = False
        if not self._open:
            self.phase = "between" if self._next_open_trial() is not None else "done"
        else:
            self.phase = "watch"
        return True

    # ---- internals -----------------------------------------------------------------------------
    def _next_open_trial(self) -> int | None:
        for i in range(self.position + 1, len(self.sequence)):
            trial = self.sequence[i]
            if len(self.log.answered(trial.episode_id)) < len(trial.evidence_steps):
                return i
        return None

    def _next_trial(self) -> None:
        nxt = self._next_open_trial()
        if nxt is None:
            self.phase = "done"
            return
        self.position, self.t = nxt, 0
        trial = self.sequence[nxt]
        answered = self.log.answered(trial.episode_id)
        self._open = [k for k in range(len(trial.evidence_steps)) if k not in answered]
        # Resuming mid-trial, the slider starts where the participant left it.
        self.slider = answered[max(answered)] if answered else START_SLIDER
        self.phase = "watch"
        self._maybe_ask()

    def _maybe_ask(self) -> None:
        if self.next_tau == self.t:
            self.phase = "ask"
            self.touched = False
            self.asked_at = self.clock()
