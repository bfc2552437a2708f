"""Expectation trials as a person sees them: frames with the occluder drawn, a still of each episode with the
agent's trail, and whole trials as a sheet or an animation.

Every picture is what an onlooker sees: the occluder covers its cells (and
whatever walks behind them) until a test lifts it at its end.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from marple_gym.expectations.scenarios import EXPECTATION_SCENARIOS
from marple_gym.expectations.trial import Episode, EpisodeEvidence, Trial
from marple_gym.rendering.compose import Panel, compose
from marple_gym.rendering.frames import render_grid, spread_steps
from marple_gym.rendering.palette import AGENT_COLORS

TRAIL = AGENT_COLORS["red"]
FRAMES = 8
"""Frames of each episode a vision-language model is shown by default (as many as a belief question's)."""


def episode_frames(episode: Episode, tile_size: int = 24) -> list[np.ndarray]:
    """One frame per step as the onlooker sees it; a reveal's last frame shows what the occluder hid."""
    house = episode.stage.house
    visibility = episode.stage.visibility()
    frames = [
        render_grid(state.grid, house, tile_size, labels=False, visibility=visibility) for state in episode.states
    ]
    if episode.reveal:
        frames[-1] = render_grid(episode.states[-1].grid, house, tile_size, labels=False)
    return frames


def evidence_frames(evidence: EpisodeEvidence, count: int = FRAMES, tile_size: int = 24) -> list[np.ndarray]:
    """``count`` frames spread evenly over an episode, the first and last included, drawn from what the onlooker
    sees (:class:`~marple_gym.expectations.trial.EpisodeEvidence`: the occluder over its cells; a reveal's last
    frame shows what it hid): the pictures a vision-language model is shown of one video."""
    frames = []
    for t in spread_steps(0, evidence.steps, count):
        if t == evidence.steps and evidence.revealed is not None:
            frames.append(render_grid(evidence.revealed, evidence.house, tile_size, labels=False))
        else:
            grid = evidence.vision[t]
            frames.append(render_grid(grid, evidence.house, tile_size, labels=False, visibility=evidence.visibility))
    return frames


def episode_still(episode: Episode, tile_size: int = 24) -> np.ndarray:
    """The episode's first frame with the trail of every cell the onlooker saw the agent reach, its last cell
    ringed (a test that lifts the occluder shows what it hid)."""
    house = episode.stage.house
    first = episode.states[0].grid
    frame = render_grid(
        first, house, tile_size, labels=False, visibility=None if episode.reveal else episode.stage.visibility()
    )
    hidden = episode.stage.visibility().hidden
    seen = []
    for state in episode.states[1:]:
        x, y = state.agent_pos[0].tolist()
        if not hidden[y, x] and (x, y) not in seen and (x, y) != tuple(episode.stage.agent[:2]):
            seen.append((x, y))
    t = tile_size
    yy, xx = np.mgrid[0:t, 0:t]
    r2 = (xx - t / 2 + 0.5) ** 2 + (yy - t / 2 + 0.5) ** 2
    dot, ring = r2 <= (t * 0.16) ** 2, (r2 <= (t * 0.34) ** 2) & (r2 >= (t * 0.24) ** 2)
    for i, (x, y) in enumerate(seen):
        cell = frame[y * t : (y + 1) * t, x * t : (x + 1) * t]
        cell[ring if i == len(seen) - 1 else dot] = TRAIL
    return frame


def titles(trial: Trial) -> list[tuple[str, Episode]]:
    """Each episode of the trial with its title, in the order a person sees them."""
    n = len(trial.familiarisation)
    out = [(f"Familiarisation {i + 1} of {n}", e) for i, e in enumerate(trial.familiarisation)]
    out += [(f"Test: {name}", e) for name, e in trial.tests.items()]
    return out


def trial_sheet(trial: Trial, tile_size: int = 24) -> np.ndarray:
    """The whole trial in one picture: a still of every episode side by side, titled, under a header."""
    scenario = EXPECTATION_SCENARIOS[trial.key.scenario]
    panels = [Panel(_padded(episode_still(e, tile_size), trial, tile_size), title) for title, e in titles(trial)]
    return compose(panels, header=[f"{scenario.title}, type {trial.key.type}"])


def trial_animation(trial: Trial, tile_size: int = 24, hold: int = 3) -> list[np.ndarray]:
    """The trial as a person watches it: every episode step by step, each ending with a pause of ``hold``
    frames; frames of one size, ready for :func:`marple_gym.rendering.animation.save_animation`."""
    scenario = EXPECTATION_SCENARIOS[trial.key.scenario]
    header = [f"{scenario.title}, type {trial.key.type}"]
    out = []
    for title, episode in titles(trial):
        frames = [_padded(f, trial, tile_size) for f in episode_frames(episode, tile_size)]
        for frame in frames + [frames[-1]] * hold:
            out.append(compose([Panel(frame, title)], header=header))
    return out


def _padded(frame: np.ndarray, trial: Trial, tile_size: int) -> np.ndarray:
    """``frame`` on a blank canvas the size of the trial's largest stage, so all its pictures match."""
    episodes: Sequence[Episode] = list(trial.familiarisation) + list(trial.tests.values())
    h = max(e.stage.height for e in episodes) * tile_size
    w = max(e.stage.width for e in episodes) * tile_size
    out = np.full((h, w, 3), 246, dtype=np.uint8)
    out[: frame.shape[0], : frame.shape[1]] = frame
    return out
