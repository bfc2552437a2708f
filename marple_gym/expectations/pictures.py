"""Expectation trials as a person sees them: frames with the occluder drawn, a still of each episode with the
agent's trail, and whole trials as a sheet or an animation.

Every picture is what an onlooker sees: the occluder covers its cells (and
whatever walks behind them) until a test lifts it at its end. A goal object is
drawn on a round badge :data:`BADGE` times a tile across, ringed, so that it
reads at a glance over the cells round it; a cell the agent passed through as
no agent can (AGENT's type 2.5) is marked with a cross; the header names the
trial's objects.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from marple_gym.evidence import Visibility
from marple_gym.expectations.scenarios import EXPECTATION_SCENARIOS
from marple_gym.expectations.trial import Episode, EpisodeEvidence, Trial
from marple_gym.rendering.compose import INK, Panel, compose
from marple_gym.rendering.frames import render_grid, spread_steps
from marple_gym.rendering.legend import object_picture
from marple_gym.rendering.palette import AGENT_COLORS
from marple_gym.world.house import House
from marple_gym.world.state import CH_AGENT, CH_OBJ, CH_OBJ_STATE

TRAIL = AGENT_COLORS["red"]
TILE = 32
"""The default tile size of the pictures, in pixels."""
BADGE = 1.35
"""How many tiles across a goal object's badge is."""
FRAMES = 8
"""Frames of each episode a vision-language model is shown by default (as many as a belief question's)."""


def episode_frames(episode: Episode, tile_size: int = TILE) -> list[np.ndarray]:
    """One frame per step as the onlooker sees it; a reveal's last frame shows what the occluder hid."""
    visibility = episode.stage.visibility()
    frames = [_drawn(episode, state.grid, tile_size, visibility.hidden) for state in episode.states]
    if episode.reveal:
        frames[-1] = _drawn(episode, episode.states[-1].grid, tile_size, None)
    return frames


def evidence_frames(evidence: EpisodeEvidence, count: int = FRAMES, tile_size: int = TILE) -> list[np.ndarray]:
    """``count`` frames spread evenly over an episode, the first and last included, drawn from what the onlooker
    sees (:class:`~marple_gym.expectations.trial.EpisodeEvidence`: the occluder over its cells; a reveal's last
    frame shows what it hid): the pictures a vision-language model is shown of one video."""
    frames = []
    for t in spread_steps(0, evidence.steps, count):
        if t == evidence.steps and evidence.revealed is not None:
            frames.append(_draw(evidence.revealed, evidence.house, tile_size, None))
        else:
            frames.append(_draw(evidence.vision[t], evidence.house, tile_size, evidence.visibility))
    return frames


def _drawn(episode: Episode, grid: np.ndarray, tile_size: int, hidden: np.ndarray | None) -> np.ndarray:
    """``grid`` of ``episode`` drawn as the onlooker sees it (``hidden``: the occluder's cells, None once
    lifted)."""
    return _draw(grid, episode.stage.house, tile_size, None if hidden is None else episode.stage.visibility())


def _draw(grid: np.ndarray, house: House, tile_size: int, visibility: Visibility | None) -> np.ndarray:
    """``grid`` drawn as the onlooker sees it (``visibility``: the occluder's, None once lifted), each goal object
    it shows on a badge."""
    hidden = None if visibility is None else visibility.hidden
    frame = render_grid(grid, house, tile_size, labels=False, visibility=visibility)
    ys, xs = np.nonzero((grid[..., CH_OBJ] > 0) & (grid[..., CH_AGENT] == 0))
    for x, y in zip(xs.tolist(), ys.tolist()):
        if hidden is None or not hidden[y, x]:
            _badge(frame, (x, y), int(grid[y, x, CH_OBJ]), int(grid[y, x, CH_OBJ_STATE]) - 1, tile_size)
    return frame


def _badge(frame: np.ndarray, cell: tuple[int, int], code: int, bits: int, tile_size: int) -> None:
    """Draw the object of type ``code`` large on a round badge, ringed, centred on ``cell`` (clipped to the
    frame)."""
    size = int(round(tile_size * BADGE))
    picture = object_picture(code, max(bits, 0), size)
    yy, xx = np.mgrid[0:size, 0:size]
    r = np.hypot(xx - (size - 1) / 2, yy - (size - 1) / 2)
    inside, ring = r <= size / 2 - 2, (r > size / 2 - 2) & (r <= size / 2)
    top = cell[1] * tile_size + tile_size // 2 - size // 2
    left = cell[0] * tile_size + tile_size // 2 - size // 2
    y0, x0 = max(top, 0), max(left, 0)
    y1, x1 = min(top + size, frame.shape[0]), min(left + size, frame.shape[1])
    window = frame[y0:y1, x0:x1]
    part = (slice(y0 - top, y1 - top), slice(x0 - left, x1 - left))
    window[inside[part]] = picture[part][inside[part]]
    window[ring[part]] = INK


def episode_still(episode: Episode, tile_size: int = TILE, trail: Episode | None = None) -> np.ndarray:
    """The episode's first frame with the trail of every cell the onlooker saw the agent reach, its last cell
    ringed, and a cross on each cell it passed through as no agent can (a test that lifts the occluder shows
    what it hid). ``trail``: the episode whose cells are drawn (default: this one; a test that takes up a
    familiarisation episode shows that episode's way on what the lift showed)."""
    first = episode.states[0].grid
    frame = _drawn(episode, first, tile_size, None if episode.reveal else episode.stage.visibility().hidden)
    walked = trail or episode
    hidden = walked.stage.visibility().hidden
    seen = []
    for state in walked.states[1:]:
        x, y = state.agent_pos[0].tolist()
        if not hidden[y, x] and (x, y) not in seen and (x, y) != tuple(walked.stage.agent[:2]):
            seen.append((x, y))
    t = tile_size
    yy, xx = np.mgrid[0:t, 0:t]
    r2 = (xx - t / 2 + 0.5) ** 2 + (yy - t / 2 + 0.5) ** 2
    dot, ring = r2 <= (t * 0.16) ** 2, (r2 <= (t * 0.34) ** 2) & (r2 >= (t * 0.24) ** 2)
    cross = (np.abs(xx - yy) <= t * 0.06) | (np.abs(xx + yy - t + 1) <= t * 0.06)
    cross &= r2 <= (t * 0.45) ** 2
    for i, (x, y) in enumerate(seen):
        cell = frame[y * t : (y + 1) * t, x * t : (x + 1) * t]
        cell[cross if (x, y) in episode.through else ring if i == len(seen) - 1 else dot] = TRAIL
    return frame


def titles(trial: Trial) -> list[tuple[str, Episode]]:
    """Each episode of the trial with its title, in the order a person sees them."""
    n = len(trial.familiarisation)
    out = [(f"Familiarisation {i + 1} of {n}", e) for i, e in enumerate(trial.familiarisation)]
    out += [(f"Test: {name}" + (", the screen lifted" if e.reveal else ""), e) for name, e in trial.tests.items()]
    return out


def header(trial: Trial) -> list[str]:
    """The lines above a trial's pictures: its scenario and type, and the objects it shows."""
    scenario = EXPECTATION_SCENARIOS[trial.key.scenario]
    episodes = list(trial.familiarisation) + list(trial.tests.values())
    kinds = list(dict.fromkeys(kind.replace("_", " ") for e in episodes for kind, _ in e.stage.objects))
    return [f"{scenario.title}, type {trial.key.type}", "objects: " + ", ".join(kinds)]


def trial_sheet(trial: Trial, tile_size: int = TILE) -> np.ndarray:
    """The whole trial in one picture: a still of every episode side by side, titled, under a header."""
    panels = [
        Panel(_padded(episode_still(e, tile_size, _taken_up(trial, e)), trial, tile_size), title)
        for title, e in titles(trial)
    ]
    return compose(panels, header=header(trial))


def _taken_up(trial: Trial, episode: Episode) -> Episode | None:
    """The familiarisation episode a test takes up where it ended (``continues``), else None."""
    return None if episode.continues is None else trial.familiarisation[episode.continues]


def trial_animation(trial: Trial, tile_size: int = TILE, hold: int = 3) -> list[np.ndarray]:
    """The trial as a person watches it: every episode step by step, each ending with a pause of ``hold``
    frames; frames of one size, ready for :func:`marple_gym.rendering.animation.save_animation`."""
    out = []
    for title, episode in titles(trial):
        frames = [_padded(f, trial, tile_size) for f in episode_frames(episode, tile_size)]
        for frame in frames + [frames[-1]] * hold:
            out.append(compose([Panel(frame, title)], header=header(trial)))
    return out


def _padded(frame: np.ndarray, trial: Trial, tile_size: int) -> np.ndarray:
    """``frame`` on a blank canvas the size of the trial's largest stage, so all its pictures match."""
    episodes: Sequence[Episode] = list(trial.familiarisation) + list(trial.tests.values())
    h = max(e.stage.height for e in episodes) * tile_size
    w = max(e.stage.width for e in episodes) * tile_size
    out = np.full((h, w, 3), 246, dtype=np.uint8)
    out[: frame.shape[0], : frame.shape[1]] = frame
    return out
