"""The study window: both houses side by side, a step button, and the answer slider.

The loop reads one list of pygame events per frame from an event source: the
window's queue when a person takes part, a scripted list in tests (the loop
ends with the script). :class:`Layout` exposes where the buttons and the slider
are, so a script can click and drag them like a person would.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from marple.study.state import StudyState
from marple.viewers.replays import PANEL_COLORS, TrajectoryView
from marple_gym.rendering.captions import describe_sound
from marple_gym.rendering.compose import BACKGROUND, INK, MUTED, agent_title_color
from marple_gym.rendering.window import wrap_lines
from marple_gym.sound.player import StereoPlayer

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

ACCENT = (40, 100, 200)
DISABLED = (185, 185, 190)
TRACK = (205, 205, 212)


def full_question(question: str) -> str:
    """The paper's wording: "Who turned on the laundry?" -> "Which agent is more likely to have turned on ..."."""
    if question.startswith("Who "):
        return "Which agent is more likely to have " + question[4:]
    return question


def evidence_words(modality: str) -> str:
    """What the participant gets, in words, for the instructions."""
    return "what they do" if modality == "vision" else "what they do, what they say they intend, and what you hear"


def instructions(modality: str) -> list[str]:
    evidence = evidence_words(modality)
    return [
        "Two agents each carry out a household task in a copy of the same house.",
        f"You see both side by side, Agent A on the left and Agent B on the right: {evidence}.",
        "Only one of them caused what the question asks about.",
        "Step forward at your own pace with Space or the right arrow (or the Next button).",
        "Eleven times per trial you are asked which agent it was. Drag the slider:",
        "0 = definitely Agent A, 50 = cannot tell, 100 = definitely Agent B. Then press Enter or Submit.",
        "Every answer is saved at once. Esc quits; starting again with the same file resumes.",
    ]


def practice_note(count: int) -> str:
    """What the instructions say about the practice block (nothing without one)."""
    if not count:
        return ""
    trials = "a practice trial" if count == 1 else f"{count} practice trials"
    return f"First comes {trials} to get used to the task; it does not count, and afterwards you are told who it was."


@dataclass
class Layout:
    """Where everything is on screen (pixels)."""

    width: int
    height: int
    panel_size: int
    panels: tuple[tuple[int, int], tuple[int, int]]  # top-left of each house picture
    progress_y: int
    caption_top: int
    controls_top: int
    slider: tuple[int, int, int]  # x0, x1, y of the slider's track
    next_button: tuple[int, int, int, int]  # x, y, w, h
    submit_button: tuple[int, int, int, int]

    @classmethod
    def make(cls, panel_size: int, language: bool, font: int) -> Layout:
        pad = font
        top = pad + 3 * font + font  # header: trial counter and question, then the panel titles
        width = 2 * panel_size + 3 * pad
        progress_y = top + panel_size + font // 2
        caption_top = progress_y + font
        controls_top = caption_top + (4 * int(font * 1.2) if language else 0) + font
        slider_y = controls_top + 3 * font
        button_w, button_h = 8 * font, 2 * font
        return cls(
            width=width,
            height=controls_top + 7 * font,
            panel_size=panel_size,
            panels=((pad, top), (2 * pad + panel_size, top)),
            progress_y=progress_y,
            caption_top=caption_top,
            controls_top=controls_top,
            slider=(width // 2 - panel_size, width // 2 + panel_size, slider_y),
            next_button=(width // 2 - button_w // 2, controls_top + font, button_w, button_h),
            submit_button=(width // 2 - button_w // 2, slider_y + 2 * font, button_w, button_h),
        )

    def slider_x(self, value: float) -> int:
        x0, x1, _ = self.slider
        return int(round(x0 + (x1 - x0) * value / 100))

    def slider_value(self, x: float) -> float:
        x0, x1, _ = self.slider
        return (x - x0) / (x1 - x0) * 100

    def on_slider(self, pos: tuple[int, int]) -> bool:
        x0, x1, y = self.slider
        return x0 - 12 <= pos[0] <= x1 + 12 and abs(pos[1] - y) <= 16

    @staticmethod
    def inside(rect: tuple[int, int, int, int], pos: tuple[int, int]) -> bool:
        x, y, w, h = rect
        return x <= pos[0] < x + w and y <= pos[1] < y + h

    @staticmethod
    def centre(rect: tuple[int, int, int, int]) -> tuple[int, int]:
        x, y, w, h = rect
        return x + w // 2, y + h // 2


class StudyApp:
    """Runs a :class:`StudyState` in a pygame window."""

    def __init__(
        self, state: StudyState, modality: str, tile_size: int = 24, sound: bool = True, font_size: int = 20
    ) -> None:
        import pygame  # a window: loaded when the study opens one

        self.pg = pygame
        self.state = state
        self.language = modality != "vision"
        self.tile_size = int(tile_size)
        cells = max([max(t.left.house.width, t.left.house.height) for t in state.trials] + [1])
        self.layout = Layout.make(cells * self.tile_size, self.language, font_size)
        pygame.display.init()
        pygame.font.init()
        pygame.display.set_caption("MARPLE whodunit study")
        self.screen = pygame.display.set_mode((self.layout.width, self.layout.height))
        self.fonts = {k: pygame.font.Font(None, int(font_size * f)) for k, f in (("s", 1.0), ("m", 1.2), ("l", 1.5))}
        self.modality = modality
        self.player = StereoPlayer() if sound and self.language else None  # sound belongs to the audio modality
        self.clock = pygame.time.Clock()
        self.running = True
        self.dragging = False
        self._views: dict[int, tuple[TrajectoryView, TrajectoryView]] = {}
        self._surfaces: dict[tuple[int, int], tuple] = {}

    # ---- the loop ------------------------------------------------------------------------------
    def run(self, events: Iterable[Sequence] | None = None, max_frames: int | None = None) -> StudyState:
        """Until Esc, the window closes, the script ``events`` (one list per frame) ends, or ``max_frames``."""
        batches = iter(events) if events is not None else None
        frames = 0
        while self.running and (max_frames is None or frames < max_frames):
            batch = self.pg.event.get() if batches is None else next(batches, None)
            if batch is None:
                break
            for event in batch:
                self.handle(event)
            self.draw()
            if batches is None:
                self.clock.tick(30)
            frames += 1
        return self.state

    def close(self) -> None:
        self.pg.display.quit()

    # ---- input ---------------------------------------------------------------------------------
    def handle(self, event) -> None:
        pg, s, lay = self.pg, self.state, self.layout
        if event.type == pg.QUIT:
            self.running = False
        elif event.type == pg.KEYDOWN:
            self.key(event.key, bool(getattr(event, "mod", 0) & pg.KMOD_SHIFT))
        elif event.type == pg.MOUSEBUTTONDOWN and getattr(event, "button", 1) == 1:
            if s.phase == "ask" and lay.on_slider(event.pos):
                self.dragging = True
                s.set_slider(lay.slider_value(event.pos[0]))
            elif s.phase == "ask" and lay.inside(lay.submit_button, event.pos):
                s.submit()
            elif s.phase != "ask" and lay.inside(lay.next_button, event.pos):
                self._advance()
        elif event.type == pg.MOUSEMOTION and self.dragging:
            s.set_slider(lay.slider_value(event.pos[0]))
        elif event.type == pg.MOUSEBUTTONUP:
            self.dragging = False

    def key(self, key: int, shift: bool = False) -> None:
        pg, s = self.pg, self.state
        if key in (pg.K_ESCAPE,):
            self.running = False
        elif s.phase == "ask":
            if key in (pg.K_LEFT, pg.K_RIGHT):
                s.nudge((10 if shift else 1) * (1 if key == pg.K_RIGHT else -1))
            elif key in (pg.K_RETURN, pg.K_KP_ENTER):
                s.submit()
        elif key in (pg.K_SPACE, pg.K_RIGHT) or (key in (pg.K_RETURN, pg.K_KP_ENTER) and s.phase != "watch"):
            self._advance()

    def _advance(self) -> None:
        before = (self.state.position, self.state.t)
        self.state.advance()
        if self.player and (self.state.position, self.state.t) != before and self.state.trial is not None:
            left, right = self._trial_views()
            self.player.play(left.sound(self.state.t), right.sound(self.state.t))

    # ---- drawing -------------------------------------------------------------------------------
    def _trial_views(self) -> tuple[TrajectoryView, TrajectoryView]:
        trial = self.state.trial
        if trial.index not in self._views:
            self._views = {
                trial.index: (
                    TrajectoryView(trial.left, self.tile_size, PANEL_COLORS[0]),
                    TrajectoryView(trial.right, self.tile_size, PANEL_COLORS[1]),
                )
            }
        return self._views[trial.index]

    def _frames(self) -> tuple:
        """The two houses at the current step as pygame surfaces (drawn once per step)."""
        key = (self.state.trial.index, self.state.t)
        if key not in self._surfaces:
            to_surface = self.pg.surfarray.make_surface
            self._surfaces = {
                key: tuple(
                    to_surface(np.ascontiguousarray(v.frame(key[1]).transpose(1, 0, 2))) for v in self._trial_views()
                )
            }
        return self._surfaces[key]

    def draw(self) -> None:
        s = self.state
        self.screen.fill(BACKGROUND)
        if s.phase == "intro":
            note = [practice_note(len(s.practice_left))] if s.practice_left else []
            self._draw_message(["Whodunit: who caused it?"] + instructions(self.modality) + note, "Start")
        elif s.trial is None:  # resumed a session that was already complete
            self._draw_message(["All trials are done.", f"The answers are in {s.log.path}. Press Esc to close."])
        else:
            self._draw_trial()
            if s.phase == "done":
                self._draw_banner(
                    f"All trials are done. Thank you! Your answers are saved in {s.log.path.name}. Press Esc to close."
                )
        self.pg.display.flip()

    def _text(self, text: str, pos: tuple[int, int], size: str = "s", color=INK, anchor: str = "topleft") -> None:
        surface = self.fonts[size].render(text, True, color)
        rect = surface.get_rect(**{anchor: pos})
        self.screen.blit(surface, rect)

    def _draw_trial(self) -> None:
        s, lay, trial = self.state, self.layout, self.state.trial
        font = self.fonts["s"].get_height()
        if s.in_practice:
            counter = f"Practice trial {trial.index + 1} of {len(s.practice)} (not scored)"
        else:
            counter = f"Trial {trial.index + 1} of {len(s.trials)}   ({len(s.remaining)} left)"
        self._text(counter, (font, font), "s", MUTED)
        self._text(f"Step {s.t} of {trial.horizon}", (lay.width - font, font), "s", MUTED, "topright")
        self._text(full_question(trial.episode.question), (lay.width // 2, font * 2), "l", INK, "midtop")
        views = self._trial_views()
        for view, surface, (x, y), name in zip(views, self._frames(), lay.panels, ("Agent A", "Agent B")):
            self._text(name, (x + lay.panel_size // 2, y - 4), "m", agent_title_color(view.color), "midbottom")
            self.screen.blit(surface, (x, y))
            if self.language:
                self._caption(view, x)
        self._draw_progress()
        if s.phase == "watch":
            self._button(lay.next_button, "Next step  >", s.can_step)
            hint = f"Space or the right arrow: next step. Next question at step {s.next_tau}."
            self._text(hint, (lay.width // 2, lay.next_button[1] + lay.next_button[3] + 6), "s", MUTED, "midtop")
        elif s.phase == "ask":
            self._draw_slider()
        elif s.phase == "between":
            done = s.feedback or "This trial is done."
            if s.in_practice and s.position + 1 == len(s.practice):
                done += " Now the scored trials begin."
            self._text(done, (lay.width // 2, lay.controls_top), "m", INK, "midtop")
            self._button(lay.next_button, "Next trial  >", True)

    def _draw_progress(self) -> None:
        """A thin bar under the houses: how far the trial has got, with a tick at each question."""
        pg, s, lay = self.pg, self.state, self.layout
        x0, x1 = lay.panels[0][0], lay.panels[1][0] + lay.panel_size
        y = lay.progress_y
        horizon = max(s.trial.horizon, 1)
        pg.draw.line(self.screen, TRACK, (x0, y), (x1, y), 4)
        pg.draw.line(self.screen, ACCENT, (x0, y), (x0 + (x1 - x0) * min(s.t, horizon) // horizon, y), 4)
        for tau in s.trial.evidence_steps:
            x = x0 + (x1 - x0) * tau // horizon
            pg.draw.line(self.screen, ACCENT if tau <= s.t else MUTED, (x, y - 5), (x, y + 5), 2)

    def _caption(self, view: TrajectoryView, x: int) -> None:
        t, lay = self.state.t, self.layout
        line_h = int(self.fonts["s"].get_height() * 1.2)
        lines = wrap_lines(self.fonts["s"], f'"{view.intent(t)}"', lay.panel_size)[:3]
        for i, line in enumerate(lines):
            self._text(line, (x, lay.caption_top + i * line_h))
        self._text(f"Sound: {describe_sound(view.sound(t))}", (x, lay.caption_top + 3 * line_h), "s", MUTED)

    def _draw_slider(self) -> None:
        pg, s, lay = self.pg, self.state, self.layout
        x0, x1, y = lay.slider
        self._text(
            f"Your answer at step {s.t}: which agent was it?", (lay.width // 2, lay.controls_top), "m", INK, "midtop"
        )
        pg.draw.line(self.screen, TRACK, (x0, y), (x1, y), 6)
        for v in (0, 25, 50, 75, 100):
            pg.draw.line(self.screen, MUTED, (lay.slider_x(v), y - 8), (lay.slider_x(v), y + 8), 2)
        self._text("definitely Agent A (0)", (x0, y + 12), "s", agent_title_color(PANEL_COLORS[0]), "topleft")
        self._text("cannot tell (50)", (lay.slider_x(50), y + 12), "s", MUTED, "midtop")
        self._text("definitely Agent B (100)", (x1, y + 12), "s", agent_title_color(PANEL_COLORS[1]), "topright")
        hx = lay.slider_x(s.slider)
        pg.draw.circle(self.screen, ACCENT if s.touched else MUTED, (hx, y), 11)
        pg.draw.circle(self.screen, BACKGROUND, (hx, y), 5)
        self._text(str(s.slider), (hx, y - 14), "m", ACCENT if s.touched else MUTED, "midbottom")
        label = "Submit (Enter)" if s.touched else "Move the slider"
        self._button(lay.submit_button, label, s.touched)

    def _button(self, rect: tuple[int, int, int, int], label: str, enabled: bool) -> None:
        self.pg.draw.rect(self.screen, ACCENT if enabled else DISABLED, rect, border_radius=8)
        self._text(label, self.layout.centre(rect), "m", (255, 255, 255), "center")

    def _draw_message(self, lines: list[str], button: str | None = None) -> None:
        """A title, paragraphs wrapped to the window, and a button under them."""
        lay = self.layout
        line_h = int(self.fonts["m"].get_height() * 1.4)
        rows = [row for line in lines[1:] for row in wrap_lines(self.fonts["m"], line, lay.width - 8 * line_h)]
        y = max(line_h, lay.next_button[1] - line_h * (len(rows) + 3))
        self._text(lines[0], (lay.width // 2, y), "l", INK, "midtop")
        for i, row in enumerate(rows):
            self._text(row, (4 * line_h, y + (i + 2) * line_h), "m", INK)
        if button:
            self._button(lay.next_button, button, True)

    def _draw_banner(self, text: str) -> None:
        lay = self.layout
        rect = (0, lay.controls_top - 8, lay.width, lay.height - lay.controls_top + 8)
        self.pg.draw.rect(self.screen, BACKGROUND, rect)
        for i, line in enumerate(wrap_lines(self.fonts["m"], text, lay.width - 80)):
            self._text(line, (lay.width // 2, lay.controls_top + 10 + i * 30), "m", INK, "midtop")
