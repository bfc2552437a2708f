"""Question sets on disk: any seed and any size gives a set its own reader accepts (a question cut at step 0 once
stopped seed 3), with the balanced splits recorded in the manifest beside the episodes' shards."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from marple_gym.beliefs.questions import QuestionSpec, generate_question_set, read_question_set
from marple_gym.beliefs.questions.sets import BALANCED, read_candidates, read_training_episodes


def _round_trip(tmp_path_factory, spec: QuestionSpec) -> None:
    root = tmp_path_factory.mktemp("set") / "set"
    generate_question_set(spec, root, workers=1, progress=False)
    for split in ("test", "train"):
        for q in read_question_set(root, split) + read_candidates(root, split):
            assert 1 <= q.end_time <= q.episode.length and q.split == split
    assert len(read_training_episodes(root)) == spec.train_episodes
    manifest = json.loads((root / "manifest.json").read_text())
    assert set(BALANCED.values()) <= set(manifest["shards"]) and manifest["complete"]


@settings(max_examples=4)
@given(
    seed=st.integers(0, 10_000),
    houses=st.integers(1, 2),
    episodes=st.integers(1, 3),
    train=st.integers(0, 2),
    false_belief=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_every_seed_and_size_gives_a_set_its_own_reader_accepts(
    tmp_path_factory, seed, houses, episodes, train, false_belief
):
    spec = QuestionSpec(seed, houses, episodes, train, false_belief)
    _round_trip(tmp_path_factory, spec)


@pytest.mark.slow
@settings(max_examples=40)
@given(seed=st.integers(0, 100), houses=st.integers(1, 3), episodes=st.integers(1, 6), train=st.integers(0, 4))
def test_many_seeds_and_sizes_give_sets_their_own_reader_accepts(tmp_path_factory, seed, houses, episodes, train):
    _round_trip(tmp_path_factory, QuestionSpec(seed, houses, episodes, train))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 9, 13, 14, 17, 19, 21, 22, 28, 29, 36])
def test_the_seeds_that_once_wrote_a_question_at_step_0_give_sets_that_read_back(tmp_path_factory, seed):
    _round_trip(tmp_path_factory, QuestionSpec(seed, test_houses=3, episodes_per_house=20, train_episodes=2))
