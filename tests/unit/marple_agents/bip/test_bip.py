"""Inverse planning with a learned likelihood (bip): subgoal hypotheses, posteriors, and a trained policy end to end."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("lightning")

from marple.registry import make_method  # noqa: E402
from marple_agents import train_policy  # noqa: E402
from marple_agents.bip import BipMethod, BipResources  # noqa: E402
from marple_eval import ProtocolSettings, dataset_episodes, evaluate  # noqa: E402
from marple_eval.evidence import trial_evidence  # noqa: E402
from marple_eval.inverse import UniformPriors  # noqa: E402
from marple_eval.protocol import Identities  # noqa: E402
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset  # noqa: E402
from marple_gym.datasets.dataset import subgoal_codes  # noqa: E402

SCENARIO = "pillow"
MISSIONS = ("watch_movie_cozily", "watch_news_on_tv")
NAMES = Identities("tests")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("bip") / "data"
    spec = DatasetSpec([Unit.scenario(SCENARIO)], Sizes(2, 2, 8, 1), seed=3, splits=("test", "train-in"))
    generate_dataset(spec, root, workers=1, progress=False)
    return MarpleDataset(root)


class RecordingPolicy:
    """A stand-in language-conditioned policy: P(forward) depends on the subgoal's action; it records its inputs."""

    conditioning = "language"

    def __init__(self) -> None:
        self.subgoals: list[np.ndarray] = []

    def action_probs(self, vision, subgoal):
        self.subgoals.append(np.array(subgoal))
        forward = np.where(subgoal[:, 0] == 3, 0.5, 0.2)  # subgoal "pickup": forward more likely
        probs = np.repeat(((1 - forward) / 9)[:, None], 10, axis=1)
        probs[:, 2] = forward
        return probs


def setup(model, episode, policy, prior):
    ids = (NAMES(SCENARIO, "A"), NAMES(SCENARIO, "B"))
    model.setup({i: {"policy": policy, "prior": prior} for i in ids})
    return ids


def test_each_hypothesis_conditions_on_its_own_subgoals(data):
    episode = next(data.whodunit(SCENARIO))
    policy = RecordingPolicy()
    model = BipMethod(rollouts=2)
    even = dict.fromkeys(MISSIONS, 0.5)
    ids = setup(model, episode, policy, even)
    trajectory = episode.trajectories[0]
    tau = trajectory.length
    agent = trial_evidence(episode, tau, False, model.reads, ids).agents[0]
    logs = model.log_likelihoods(agent)
    # The true mission's subgoals are exactly the ones recorded with the trajectory.
    hypotheses = model.hypotheses(agent)
    assert list(hypotheses) == list(MISSIONS)
    true_codes = np.concatenate(policy.subgoals)[:tau]
    np.testing.assert_array_equal(true_codes, subgoal_codes(trajectory)[:tau])
    # Hand-computed likelihood of the true mission, and the posterior from it.
    actions = trajectory.actions.tolist()
    expected = 0.0
    for a, codes in zip(actions, true_codes):
        p_forward = 0.5 if codes[0] == 3 else 0.2
        expected += math.log(p_forward if a == 2 else (1 - p_forward) / 9)
    assert logs[MISSIONS[0]] == pytest.approx(expected)
    posterior = model.posterior(agent)
    odds = math.exp(logs[MISSIONS[0]] - logs[MISSIONS[1]])
    assert posterior[MISSIONS[0]] == pytest.approx(odds / (1 + odds))


def test_a_uniform_likelihood_leaves_the_prior(data):
    class Uniform(RecordingPolicy):
        def action_probs(self, vision, subgoal):
            return np.full((len(vision), 10), 0.1)

    episode = next(data.whodunit(SCENARIO))
    model = BipMethod(rollouts=2)
    prior = {MISSIONS[0]: 0.8, MISSIONS[1]: 0.2}
    ids = setup(model, episode, Uniform(), prior)
    agent = trial_evidence(episode, 5, False, model.reads, ids).agents[0]
    assert model.posterior(agent) == pytest.approx(prior)


def test_bip_is_registered_and_checks_its_resources():
    model = make_method("whodunit", "bip", rollouts=3)
    assert isinstance(model, BipMethod) and model.reads == frozenset({"vision"})
    with pytest.raises(ValueError, match="policy and a mission prior"):
        model.setup({"agent-x": "runs/policy.pt"})

    class VisionOnly:
        conditioning = "vision"

        def action_probs(self, vision, subgoal=None):
            return np.full((len(vision), 10), 0.1)

    with pytest.raises(ValueError, match="language-conditioned"):
        model.setup({"agent-x": {"policy": VisionOnly(), "prior": {"feed_dog": 1.0}}})
    with pytest.raises(ValueError, match="role 'B'"):
        BipResources({"A": "a.pt"}, UniformPriors())(SCENARIO, "B")


@pytest.mark.slow
def test_a_trained_policy_answers_end_to_end(data, tmp_path):
    template = str(tmp_path / "{role}" / "policy.pt")
    for role in "AB":
        train_policy(
            data.root,
            unit=SCENARIO,
            role=role,
            model="language",
            out_dir=tmp_path / role,
            max_epochs=2,
            accelerator="cpu",
            devices=1,
            progress=False,
            holdout="episodes",
            width=16,
            depth=1,
            heads=2,
            mlp_ratio=1,
            decoder_hidden=16,
            readout_depth=1,
            glimpse=0,
        )
    run = evaluate(
        lambda: BipMethod(rollouts=3),
        dataset_episodes(data, [SCENARIO]),
        ProtocolSettings(seed=0),
        resources=BipResources(template, UniformPriors()),
        progress=False,
    )
    assert run.matrix()[:, -1].min() > 0.99  # at tau = T the culprit is seen
    assert run.settings["name"] == "bip"


class CountingPolicy(RecordingPolicy):
    """The stand-in policy, counting the rows it is asked for; its answers depend on the state too."""

    def __init__(self) -> None:
        super().__init__()
        self.rows = 0

    def action_probs(self, vision, subgoal):
        self.rows += len(vision)
        probs = super().action_probs(vision, subgoal)
        probs[:, 0] += (vision[..., 6] > 0).argmax(axis=-1).max(axis=-1) % 3  # where the agent is: turn left
        return probs / probs.sum(axis=1, keepdims=True)


class NoCache:
    """What bip's rollouts asked before the cache: every row, every step."""

    def __init__(self, policy) -> None:
        self.policy = policy

    def action_probs(self, vision, subgoal=None):
        return self.policy.action_probs(vision, subgoal)


def test_bip_rollouts_reuse_answers_for_repeated_inputs(data, monkeypatch):
    """Same answers as asking for every row, from fewer rows: rollouts of every mission and evidence point
    revisit the same states."""
    import marple_agents.bip.inference as bip

    episode = max(data.whodunit(SCENARIO), key=lambda e: e.horizon)
    answers, rows = [], []
    for cache in (NoCache, bip.policy_cache):
        monkeypatch.setattr(bip, "policy_cache", cache)
        model, policy = BipMethod(rollouts=20), CountingPolicy()
        ids = setup(model, episode, policy, dict.fromkeys(MISSIONS, 0.5))
        taus = range(episode.horizon)  # up to just before the culprit reaches the query state
        answers.append(model.predict_all([trial_evidence(episode, tau, False, model.reads, ids) for tau in taus]))
        rows.append(policy.rows)
    assert answers[0] == answers[1] and len(set(answers[0])) > 2  # the same answers, and not all alike
    assert rows[1] < rows[0] / 2


def test_all_evidence_points_in_one_batch_give_the_answers_point_by_point(data):
    """The rollouts of each mission at every evidence point of a trial share one batch; each point draws from its
    own generator what it would draw alone, so the answers are those of asking point by point."""
    episode = max(data.whodunit(SCENARIO), key=lambda e: e.horizon)
    model, policy = BipMethod(rollouts=6), CountingPolicy()
    ids = setup(model, episode, policy, dict.fromkeys(MISSIONS, 0.5))
    trials = [trial_evidence(episode, tau, False, model.reads, ids) for tau in range(0, episode.horizon, 3)]
    batched = model.query_probabilities_at(trials)
    one_by_one = [tuple(model.query_probability(agent, trial) for agent in trial.agents) for trial in trials]
    assert batched == one_by_one and len(set(batched)) > 1  # the same answers, and not all alike
