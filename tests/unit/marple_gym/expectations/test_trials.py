"""Expectation trials: made from their seeds alone and the same every time, split as AGENT splits, acted out
through the episode, and shown to raters without their labels."""

from __future__ import annotations

import numpy as np
import pytest

from marple_eval.expectations.methods import presentation_order
from marple_gym.expectations.scenarios import EXPECTATION_SCENARIOS, all_types, make_trial, trial_keys
from marple_gym.expectations.trial import Episode, TrialError, TrialKey
from marple_gym.generation.stage import Stage

TYPES = all_types()


@pytest.fixture(scope="module")
def test_trials():
    return {t: make_trial(TrialKey(EXPECTATION_SCENARIOS_OF[t], t, "test", 3), seed=11) for t in TYPES}


EXPECTATION_SCENARIOS_OF = {t: s.name for s in EXPECTATION_SCENARIOS.values() for t in s.types}


@pytest.mark.parametrize("kind", TYPES)
def test_a_trial_replays_exactly_from_its_seed(kind, test_trials):
    trial = test_trials[kind]
    again = make_trial(trial.key, seed=11)
    assert again == trial
    assert again.familiarisation[0].vision().tobytes() == trial.familiarisation[0].vision().tobytes()
    other = make_trial(trial.key, seed=12)
    assert other != trial


@pytest.mark.parametrize("kind", TYPES)
def test_every_episode_is_one_run_of_the_world_rules(kind, test_trials):
    trial = test_trials[kind]
    for episode in list(trial.familiarisation) + list(trial.tests.values()):
        states = episode.states  # replays through the episode transition; a failed action would raise
        assert len(states) == len(episode.actions) + 1
        assert Stage.from_dict(episode.stage.to_dict()) == episode.stage


def test_an_action_that_fails_on_replay_is_an_error():
    trial = make_trial(TrialKey(EXPECTATION_SCENARIOS_OF["1.1"], "1.1", "test", 0))
    stage = trial.expected.stage
    broken = Episode(stage, (2,) * 40)  # forward into the wall, sooner or later
    with pytest.raises(TrialError, match="fails when replayed"):
        _ = broken.states


def test_training_splits_hold_the_expected_test_only_and_test_splits_both():
    kind = TYPES[0]
    train = make_trial(TrialKey(EXPECTATION_SCENARIOS_OF[kind], kind, "train", 0))
    assert train.surprising is None and list(train.tests) == ["expected"]
    test = make_trial(TrialKey(EXPECTATION_SCENARIOS_OF[kind], kind, "test", 0))
    assert list(test.tests) == ["expected", "surprising"]
    assert train != test  # each split draws its own trials
    keys = trial_keys("validation", 2, [kind])
    assert [k.id for k in keys] == [f"{EXPECTATION_SCENARIOS_OF[kind]}/{kind}/validation/0000{i}" for i in (0, 1)]
    with pytest.raises(ValueError, match="unknown split"):
        trial_keys("dev", 1)
    with pytest.raises(ValueError, match="no trial type"):
        make_trial(TrialKey("goal_preferences", "9.9", "test", 0))


def test_a_rater_sees_the_tests_unlabelled_in_an_order_drawn_per_trial():
    trials = [make_trial(k) for k in trial_keys("test", 12, [TYPES[0]])]
    orders = [tuple(presentation_order(t, seed=0)) for t in trials]
    assert set(orders) == {("expected", "surprising"), ("surprising", "expected")}
    assert orders == [tuple(presentation_order(t, seed=0)) for t in trials]  # the same seed, the same order
    view = trials[0].view(orders[0])
    assert len(view.tests) == 2 and not hasattr(view, "key") and not hasattr(view.tests[0], "name")
    with pytest.raises(ValueError, match="once each"):
        trials[0].view(["expected", "expected"])


def test_evidence_is_read_only():
    trial = make_trial(TrialKey(EXPECTATION_SCENARIOS_OF[TYPES[0]], TYPES[0], "test", 0))
    evidence = trial.view().tests[0]
    with pytest.raises(ValueError):
        evidence.vision[0, 0, 0, 0] = 1
    assert evidence.poses[0] == trial.expected.stage.agent
    assert np.array_equal(evidence.vision, trial.expected.vision())  # nothing hidden here


@pytest.mark.parametrize("key", [TrialKey("action_efficiency", "2.5", "test", 0),
                                 TrialKey("action_efficiency", "2.4", "test", 1)])  # fmt: skip
def test_a_way_through_chairs_or_a_wall_is_shown_on_its_own_stage_at_every_step(key):
    episode = make_trial(key, seed=2).surprising
    assert episode.through
    first = episode.stage.world().state
    inside = 0
    for t, state in enumerate(episode.states):
        assert np.array_equal(state.fur_state, first.fur_state)  # the stage's furniture, standing
        x, y = state.agent_pos[0].tolist()
        inside += (x, y) in episode.through
        for cx, cy in episode.through:
            assert np.array_equal(state.grid[cy, cx, :3], first.grid[cy, cx, :3])
        episode.evidence().scene_graph(t)  # the house and the state agree
    assert inside  # the agent stood where the chairs or the wall stand


@pytest.mark.parametrize("kind", ["3.1", "3.2"])
def test_unobserved_constraints_tests_show_only_the_lift_and_only_the_familiarisation_tells_them_apart(kind):
    """Each couple: the detour, whose surprising lift makes it a waste (or, 3.2, a lower wall and a doorway wall
    in turn), and a run made where that lift stands, which crosses the full line; both end on one pose, and the
    two trials' tests are the same two lifts with the roles swapped."""
    from marple_gym.expectations import stages

    trials = [make_trial(k, seed=3) for k in trial_keys("test", 4, [kind])]
    for c, (detour, other) in enumerate((trials[0:2], trials[2:4])):
        (run,), (straight,) = detour.familiarisation, other.familiarisation
        for trial in (detour, other):
            for test in trial.tests.values():
                assert test.reveal and test.continues == 0 and test.actions == trial.familiarisation[0].actions[-1:]
                assert test.stage.agent == detour.expected.stage.agent  # where both runs left the agent
        assert (detour.expected, detour.surprising) == (other.surprising, other.expected)
        lined, shown = detour.expected.stage, detour.surprising.stage
        behind = {c for c in shown.obstacles if c in shown.occluder}
        line = {c for c in lined.obstacles if c in lined.occluder}
        assert stages.episode_cost(run) >= stages.goal_cost(shown, shown.objects[0][1]) + 1  # a waste there
        assert not stages.crossing(run, shown).through and stages.crossing(straight, lined).through
        if kind == "3.1":
            assert not behind
        else:  # a lower wall (two chairs fewer) and a doorway wall (more chairs than the line), couple by couple
            assert len(behind) == len(line) - 2 if c % 2 == 0 else len(behind) > len(line)
