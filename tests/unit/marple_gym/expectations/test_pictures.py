"""Trials drawn as a person sees them: the occluder hides its cells until a test lifts it."""

from __future__ import annotations

import numpy as np
from expectation_trials import agent_of, chosen, hand_stage

from marple_gym.expectations.pictures import episode_frames, episode_still, trial_animation, trial_sheet
from marple_gym.expectations.scenarios import make_trial
from marple_gym.expectations.trial import Episode, TrialKey
from marple_gym.rendering.tiles import occluder_tile

T = 8


def tile(frame, x, y):
    return frame[y * T : (y + 1) * T, x * T : (x + 1) * T]


def test_the_occluder_covers_its_cells_until_a_reveal_lifts_it():
    stage = hand_stage([("apple", (6, 2))], chairs=[(x, 5) for x in range(4, 9)], occluder=[(6, 5), (6, 6)])
    run = chosen(stage, agent_of({"apple": 40.0}))
    frames = episode_frames(run, T)
    assert len(frames) == len(run.actions) + 1
    assert all(np.array_equal(tile(f, 6, 5), occluder_tile(T)) for f in frames)
    revealed = episode_frames(Episode(stage, run.actions, reveal=True, continues=0), T)
    assert not np.array_equal(tile(revealed[-1], 6, 5), occluder_tile(T))  # the chair is shown at the end
    assert np.array_equal(revealed[-2], frames[-2])
    assert episode_still(run, T).shape == frames[0].shape


def test_a_trial_sheet_and_animation_have_one_size_throughout():
    trial = make_trial(TrialKey("cost_reward_trade_offs", "4.1", "test", 0))
    sheet = trial_sheet(trial, T)
    frames = trial_animation(trial, T, hold=1)
    assert sheet.ndim == 3 and len({f.shape for f in frames}) == 1
    assert len(frames) == sum(len(e.actions) + 2 for e in list(trial.familiarisation) + list(trial.tests.values()))
