"""The symbolic and frames conditions: every state up to the cut, and pictures in which closed containers
keep their contents to themselves."""

from __future__ import annotations

import numpy as np
import pytest
from search_houses import piece, two_rooms

from marple_gym.beliefs.episodes import search_episode
from marple_gym.beliefs.questions.conditions import actions, frame_steps, frames, scene_graphs, vision_arrays
from marple_gym.beliefs.questions.moments import episode_questions
from marple_gym.rendering import render_frame


@pytest.fixture(scope="module")
def question():
    config = two_rooms({"fridge": "apple", "kitchen cabinet": "plate", "sofa": "remote"})
    prior = [piece("fridge"), piece("kitchen cabinet"), piece("table")]
    episode = search_episode(np.random.default_rng(0), config, goal="apple", prior=prior, episode_id="e")
    return episode_questions(episode, np.random.default_rng(0), ["1.1"])[0]


def test_the_symbolic_condition_holds_every_state_and_action_up_to_the_cut(question):
    arrays = vision_arrays(question)
    trace = question.episode.trace()
    assert arrays.shape == (question.end_time + 1, 9, 17, 8)
    assert np.array_equal(arrays[-1], trace.states[question.end_time].grid)
    assert actions(question).shape == (question.end_time, 1)
    first, last = scene_graphs(question)
    assert "apple_1" in first and "plate_1" in last
    with pytest.raises(ValueError, match="outside the question's steps"):
        scene_graphs(question, [question.end_time + 1])


def test_frames_spread_over_the_clip_and_hide_what_closed_containers_hold(question):
    steps = frame_steps(question, 4)
    assert steps[0] == 0 and steps[-1] == question.end_time and len(steps) == 4
    pictures = frames(question, 4, tile_size=8)
    assert len(pictures) == 4 and pictures[0].shape == (9 * 8, 17 * 8, 3)
    trace = question.episode.trace()
    from marple_gym.world.world import World

    everything = render_frame(World(trace.house, trace.states[0]), 8)
    fridge = (slice(2 * 8, 3 * 8), slice(2 * 8, 3 * 8))  # the apple's cell, (2, 2), inside the closed fridge
    assert not np.array_equal(pictures[0][fridge], everything[fridge])
    sofa = (slice(6 * 8, 7 * 8), slice(12 * 8, 13 * 8))  # the remote on the sofa stays in sight
    assert np.array_equal(pictures[0][sofa], everything[sofa])
