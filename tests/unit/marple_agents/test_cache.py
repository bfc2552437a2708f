"""The process's policy caches: one per set of weights, shared by every run, answering as the policy would."""

from __future__ import annotations

import numpy as np
import pytest

from marple_agents.cache import PolicyCache, clear_policy_caches, policy_cache
from marple_agents.simulation import SimulationMethod
from marple_eval.evidence import trial_evidence
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset

IDS = ("agent-a", "agent-b")


@pytest.fixture(scope="module")
def episode(tmp_path_factory):
    root = tmp_path_factory.mktemp("cache") / "data"
    spec = DatasetSpec([Unit.scenario("laundry")], Sizes(1, 1, 1, 1), seed=4, splits=("test",))
    generate_dataset(spec, root, workers=1, progress=False)
    return next(MarpleDataset(root).whodunit("laundry"))


class RowPolicy:
    """A stand-in policy whose answer for each row depends on that row alone (its vision and subgoal), so a cache
    that hands a row another row's answer, or another policy's, changes what the rollouts draw. It counts the
    rows it is asked."""

    def __init__(self, conditioning: str = "vision", digest: str | None = "weights-1", salt: int = 0) -> None:
        self.conditioning = conditioning
        self.digest = digest
        self.device, self.precision = "cpu", "fp32"
        self.salt = salt
        self.rows = self.decoded = 0

    def _weights(self, vision: np.ndarray, width: int) -> np.ndarray:
        flat = vision.reshape(len(vision), -1).astype(np.int64)
        logits = np.sin(flat @ np.arange(1, flat.shape[1] + 1)[:, None] * (np.arange(width) + 1 + self.salt) / 97)
        return np.exp(3 * logits).astype(np.float32)

    def action_probs(self, vision, subgoal=None):
        self.rows += len(vision)
        w = self._weights(vision, 10)
        if subgoal is not None:
            w = w * (1 + (np.asarray(subgoal)[:, :1] % 3)).astype(np.float32)
        return w / w.sum(axis=1, keepdims=True)

    def subgoal_probs(self, vision):
        self.decoded += len(vision)
        heads = {}
        for field, width in (("action", 10), ("object", 83), ("furniture", 25), ("room", 7)):
            w = self._weights(vision, width)
            heads[field] = w / w.sum(axis=1, keepdims=True)
        return heads


def answers(variant: str, policy: RowPolicy, episode) -> list:
    model = SimulationMethod(variant, rollouts=6, seed=3)
    model.setup(dict.fromkeys(IDS, policy))
    trials = [trial_evidence(episode, tau, False, model.reads, IDS) for tau in episode.evidence_steps(11)]
    return model.predict_all(trials)


@pytest.mark.parametrize("first, then", [("vision", "audio"), ("language", "all")])
def test_a_run_after_another_with_the_same_weights_asks_little_and_answers_as_alone(episode, first, then):
    conditioning = "language" if then == "all" else "vision"
    clear_policy_caches()
    alone_policy = RowPolicy(conditioning)
    alone = answers(then, alone_policy, episode)
    clear_policy_caches()
    answers(first, RowPolicy(conditioning), episode)  # fills the cache of these weights
    shared_policy = RowPolicy(conditioning)  # the same weights loaded again, as another run would
    assert answers(then, shared_policy, episode) == alone  # the same answers ...
    assert shared_policy.rows < alone_policy.rows / 2  # ... mostly from the first run's rows


def test_other_weights_share_nothing(episode):
    clear_policy_caches()
    answers("vision", RowPolicy(digest="weights-1"), episode)
    other = RowPolicy(digest="weights-2", salt=5)
    fresh = answers("vision", other, episode)
    clear_policy_caches()
    assert answers("vision", RowPolicy(digest="weights-2", salt=5), episode) == fresh
    assert other.rows > 0
    assert policy_cache(RowPolicy(digest=None)) is not policy_cache(RowPolicy(digest=None))  # unnamed: its own


def test_a_cache_that_fills_up_starts_afresh_and_still_answers_as_the_policy(episode):
    policy = RowPolicy(digest=None)
    cache = PolicyCache(policy, capacity=20_000)  # about a hundred rows
    rng = np.random.default_rng(0)
    vision = rng.integers(0, 3, size=(400, 5, 5, 8), dtype=np.uint8)
    for start in range(0, 400, 50):
        rows = vision[rng.integers(0, start + 50, size=80)]
        np.testing.assert_array_equal(cache.action_probs(rows), policy.action_probs(rows).astype(np.float64))
        assert cache.nbytes <= 20_000


def test_the_decoders_are_asked_once_per_distinct_grid_and_answer_as_the_policy():
    policy = RowPolicy("language", digest=None)
    cache = policy_cache(policy)
    rng = np.random.default_rng(1)
    grids = rng.integers(0, 3, size=(12, 5, 5, 8), dtype=np.uint8)
    asked = (rng.integers(0, 6, size=30), rng.integers(0, 12, size=30))
    for picks in asked:
        heads, expected = cache.subgoal_probs(grids[picks]), policy.subgoal_probs(grids[picks])
        assert heads.keys() == expected.keys()
        for field in expected:
            np.testing.assert_array_equal(heads[field], expected[field])
    assert cache.decoder_rows_asked == len(set(np.concatenate(asked).tolist()))  # each grid once, in any batch
    assert policy_cache(RowPolicy("vision", digest=None)).subgoal_probs(grids) is None
