"""The learned surprise rater: reads only what an onlooker sees, trains with Lightning on the project's device
setting on one thread, the same every run, and is saved and loaded whole; its test-only form (the shortcut
panel's learned rule) reads nothing of the familiarisation."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from marple_agents.device import DeviceError
from marple_agents.tomnet import TestOnlyToMnetMethod, ToMnetConfig, ToMnetMethod, train_tomnet
from marple_agents.tomnet.features import CHANNELS, SIZE, UNSEEN, episode_features, object_slots, trial_features
from marple_agents.tomnet.generalisation import run_generalisation
from marple_eval.expectations.methods import rate_trials
from marple_eval.expectations.scoring import pooled
from marple_gym.expectations.scenarios import make_trial, trial_keys
from marple_gym.expectations.trial import TrialKey

TINY = ToMnetConfig(width=16, character=4, epochs=1, batch_size=8)
TYPES = ["1.1", "3.1", "4.1"]


@pytest.fixture(scope="module")
def trials():
    train = [make_trial(k) for k in trial_keys("train", 4, TYPES)]
    test = [make_trial(k) for k in trial_keys("test", 2, TYPES)]
    return train, test


@pytest.fixture(scope="module")
def model(trials):
    return train_tomnet(trials[0], TINY, device="cpu")


def test_features_hide_what_the_occluder_hides_until_a_reveal_fills_it_in():
    trial = make_trial(TrialKey("unobserved_constraints", "3.1", "test", 0))
    view = trial.view()
    slots = object_slots(list(view.familiarisation) + list(view.tests))
    states, actions = episode_features(view.familiarisation[0], slots)
    assert states.shape == (len(actions) + 1, CHANNELS, SIZE, SIZE)
    hidden = states[0, -1].astype(bool)
    assert hidden.any() and not states[:, 3][:, hidden].any()  # no furniture shows behind the occluder
    assert UNSEEN in actions  # the steps behind it are not given
    _, ((revealed, again),) = trial_features(trial.view(["expected"]))  # the lift: the run with what it showed
    assert np.array_equal(again, actions) and len(revealed) == len(states)
    assert revealed[:, 3].sum() > states[:, 3].sum() and not revealed[:, -1].any()  # the chairs, at every step


def test_without_the_familiarisation_a_couples_two_lifts_read_the_same_in_either_role():
    first, second = (make_trial(TrialKey("unobserved_constraints", "3.2", "test", i)) for i in (0, 1))
    for a, b in (
        (first.view(["expected"]), second.view(["surprising"])),
        (first.view(["surprising"]), second.view(["expected"])),
    ):
        (_, [(states_a, actions_a)]), (_, [(states_b, actions_b)]) = (trial_features(v, False) for v in (a, b))
        assert np.array_equal(states_a, states_b) and np.array_equal(actions_a, actions_b)
    with_fam = [trial_features(v)[1][0][0] for v in (first.view(["expected"]), second.view(["surprising"]))]
    assert not np.array_equal(*with_fam)  # only the familiarisation tells them apart


def test_a_trained_model_rates_every_test_with_a_finite_surprise(trials, model):
    ratings = rate_trials(model, trials[1])
    assert len(ratings) == len(trials[1])
    assert all(np.isfinite([r.expected, r.surprising]).all() for r in ratings)


def test_training_is_the_same_every_run_on_a_cpu(trials, model):
    again = train_tomnet(trials[0], TINY, device="cpu")
    view = trials[1][0].view()
    assert again.rate(view) == pytest.approx(model.rate(view), abs=1e-6)


def test_a_saved_model_loads_to_the_same_ratings(trials, model, tmp_path):
    path = model.save(tmp_path / "tomnet.pt")
    loaded = ToMnetMethod.load(path, device="cpu")
    view = trials[1][1].view()
    assert loaded.rate(view) == pytest.approx(model.rate(view))
    assert loaded.settings()["device"] == "cpu" and loaded.config == TINY


def test_the_device_setting_is_the_projects(trials):
    if not torch.cuda.is_available():
        with pytest.raises(DeviceError, match="no GPU"):
            train_tomnet(trials[0][:2], TINY, device="cuda")
    assert ToMnetMethod.load.__doc__ and train_tomnet(
        trials[0][:2], TINY, device=torch.device("cpu")
    ).device == torch.device("cpu")


def test_a_generalisation_test_trains_one_model_per_split(trials):
    results = list(run_generalisation("leave_one_type_out", trials[0], trials[1], TINY, device="cpu"))
    assert results == []  # one type per scenario here: nothing to leave out
    results = list(run_generalisation("leave_one_scenario_out", trials[0], trials[1], TINY, device="cpu"))
    assert [split.test for split, _ in results] == [("1.1",), ("3.1",), ("4.1",)]
    table = pooled(results)
    assert table["all"].trials == len(trials[1])


def test_training_makes_the_expected_tests_more_likely_and_leaves_the_thread_count_as_it_was():
    train = [make_trial(k) for k in trial_keys("train", 12, ["2.5"])]
    test = [make_trial(k) for k in trial_keys("test", 6, ["2.5"])]
    config = ToMnetConfig(width=16, character=4, epochs=0, batch_size=8)
    before = torch.get_num_threads()
    untrained = train_tomnet(train, config, device="cpu")
    trained = train_tomnet(train, replace(config, epochs=6), device="cpu")
    assert torch.get_num_threads() == before
    surprise = [np.mean([m.rate(t.view(["expected"]))[0] for t in test]) for m in (untrained, trained)]
    assert surprise[1] < surprise[0]


def test_the_test_only_model_reads_nothing_of_the_familiarisation(trials):
    config = replace(TINY, familiarisation=False)
    model = train_tomnet(trials[0], config, device="cpu")
    assert isinstance(model, TestOnlyToMnetMethod) and model.role == "shortcut" and model.reads == {"test"}
    trial = trials[1][0]
    other = trials[1][-1]  # another trial's familiarisation, before this trial's tests
    swapped = type(trial.view())(other.view().familiarisation, trial.view().tests)
    assert model.rate(swapped) == model.rate(trial.view())
    assert not hasattr(model.net, "rnn")  # no character net to read one with


def test_a_file_that_is_not_a_rater_is_refused_with_its_name(tmp_path):
    from marple_agents.checkpoints import CheckpointError

    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    for path in (junk, tmp_path / "missing.pt"):
        with pytest.raises(CheckpointError, match=str(path.name)):
            ToMnetMethod.load(path, device="cpu")
