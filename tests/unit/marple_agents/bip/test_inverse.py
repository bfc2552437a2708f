"""Exact inverse planning: likelihoods against the planner's frequencies, hand-computed posteriors, the ideal observer."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest
from worlds import make_world

from marple_agents.simulation import SimulationMethod
from marple_eval import ProtocolSettings, dataset_episodes, evaluate
from marple_eval.evidence import UndeclaredModalityError, trial_evidence
from marple_eval.inverse import (
    IdealObserver,
    MissionPrior,
    MissionTracker,
    TrainingPriors,
    UniformPriors,
    ceiling_violations,
    estimate_prior,
    mission_posterior,
)
from marple_eval.methods.registry import make_method
from marple_eval.protocol import Identities, method_factory
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset
from marple_gym.generation import generate_world
from marple_gym.missions import MISSIONS, get_mission
from marple_gym.missions.scenarios import get_scenario
from marple_gym.planner import HierarchicalPlanner
from marple_gym.world import Action

L, R, F = int(Action.left), int(Action.right), int(Action.forward)
PREFERENCE_SCENARIO = "feed_dog-vs-do_laundry@0.8"
NAMES = Identities("tests")


def likelihood(world, mission: str, actions: list[int]) -> float:
    tracker = MissionTracker(world, get_mission(mission))
    for a in actions:
        tracker.observe_action(a)
    return math.exp(tracker.log_likelihood)


def kitchen():
    """A 7 x 5 kitchen: a 2 x 3 fridge at x 5-6, y 1-3, a light in the top-left corner; the agent at (2, 5) facing east.

    get_snack first opens the fridge. The nearest cells in front of it are (4, 3)
    and (5, 4), both 4 steps away: 6 + 4 = 10 shortest paths, 6 of them starting
    east (3 to each goal), 4 north (3 to (4, 3), 1 to (5, 4)). North is a left turn.
    get_night_snack first switches the light on, from (2, 1) (1 path, north) or
    (1, 2) (4 paths: 3 start north, 1 west). West is a U-turn: two lefts or two
    rights, by a fair coin.
    """
    return make_world(
        [
            {"type": "electric_refrigerator", "pos": [5, 1], "state": {"openable": False}},
            {"type": "light", "pos": [1, 1], "state": {"toggleable": False}},
        ],
        agent=(2, 5, 0),
    )


def test_hand_built_kitchen_first_actions():
    world = kitchen()
    assert likelihood(world, "get_snack", [F]) == pytest.approx(6 / 10)
    assert likelihood(world, "get_snack", [L]) == pytest.approx(4 / 10)
    assert likelihood(world, "get_snack", [R]) == 0.0
    assert likelihood(world, "get_night_snack", [L]) == pytest.approx(4 / 5 + 1 / 10)  # north, or a U-turn by the left
    assert likelihood(world, "get_night_snack", [R]) == pytest.approx(1 / 10)
    assert likelihood(world, "get_night_snack", [F]) == 0.0
    assert likelihood(world, "get_night_snack", [L, F]) == pytest.approx(4 / 5)
    assert likelihood(world, "get_night_snack", [L, L]) == pytest.approx(1 / 10)


def test_hand_built_kitchen_posteriors():
    world = kitchen()

    def posterior(prior: dict[str, float], actions: list[int]) -> dict[str, float]:
        logs = {m: math.log(likelihood(world, m, actions) or 1e-300) for m in prior}
        return mission_posterior(prior, logs)

    even = {"get_snack": 0.5, "get_night_snack": 0.5}
    assert posterior(even, [L])["get_snack"] == pytest.approx(0.4 / (0.4 + 0.9))
    assert posterior(even, [L, F])["get_snack"] == pytest.approx(0.4 / (0.4 + 0.8))
    assert posterior({"get_snack": 0.7, "get_night_snack": 0.3}, [L])["get_snack"] == pytest.approx(0.28 / 0.55)
    assert posterior(even, [F])["get_snack"] == pytest.approx(1.0)
    assert posterior(even, [L, L])["get_night_snack"] == pytest.approx(1.0)


@pytest.mark.parametrize(("mission", "prefix"), [("get_snack", 14), ("watch_movie_cozily", 20), ("do_laundry", 10)])
def test_exact_likelihood_matches_the_planners_frequencies(mission, prefix):
    world = generate_world(None, np.random.default_rng(3), [mission])
    rng = np.random.default_rng(11)
    n = 2000
    counts = Counter()
    for _ in range(n):
        planner = HierarchicalPlanner(world.clone(), mission=mission, rng=rng)
        actions = []
        while not planner.done and len(actions) < prefix:
            actions.append(planner.step().action)
        counts[tuple(actions)] += 1
    exact = {seq: likelihood(world, mission, list(seq)) for seq in counts}
    assert sum(exact.values()) == pytest.approx(1.0, abs=1e-9)  # every prefix the planner can take was seen
    for seq, c in counts.items():
        p = exact[seq]
        assert abs(c / n - p) < 4.5 * math.sqrt(p * (1 - p) / n) + 1e-9, (seq, c / n, p)


@pytest.mark.parametrize("mission", list(MISSIONS))
def test_every_planner_trajectory_has_positive_likelihood_under_its_mission(mission):
    rng = np.random.default_rng(7)
    for _ in range(4):
        world = generate_world(None, rng, [mission])
        start = world.clone()
        planner = HierarchicalPlanner(world, mission=mission, rng=rng)
        actions = []
        while not planner.done:
            actions.append(planner.step().action)
        tracker = MissionTracker(start, get_mission(mission))
        for a in actions:
            tracker.observe_action(a)
        assert math.isfinite(tracker.log_likelihood) and tracker.done
        assert tracker.observe_action(Action.forward) == -math.inf  # nothing comes after the mission


# ---- the observer on generated data -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("inverse") / "data"
    units = [Unit.scenario("pillow"), Unit.scenario(PREFERENCE_SCENARIO)]
    spec = DatasetSpec(units, Sizes(3, 2, 12, 1), seed=5, splits=("test", "train-in"))
    generate_dataset(spec, root, workers=1, progress=False)
    return MarpleDataset(root)


def test_priors_come_from_the_agents_training_split(data):
    prior = estimate_prior(data, PREFERENCE_SCENARIO, "A")
    assert prior.trajectories == 36
    assert set(prior.probabilities) <= {"feed_dog", "do_laundry"}
    assert prior.probabilities["feed_dog"] > 0.5  # role A prefers its own mission (0.8)
    assert estimate_prior(data, "pillow", "B").probabilities == {"watch_news_on_tv": 1.0}
    described = TrainingPriors(str(data.root)).describe([PREFERENCE_SCENARIO])
    assert described[PREFERENCE_SCENARIO]["B"]["source"].endswith(f"{PREFERENCE_SCENARIO}/train-in/B")
    with pytest.raises(ValueError, match="split"):
        TrainingPriors(str(data.root), "test")


def test_posterior_concentrates_on_the_true_mission(data):
    model = IdealObserver(rollouts=1)
    ids = (NAMES(PREFERENCE_SCENARIO, "A"), NAMES(PREFERENCE_SCENARIO, "B"))
    even = {"feed_dog": 0.5, "do_laundry": 0.5}
    model.setup({ids[0]: even, ids[1]: even})
    for episode in data.whodunit(PREFERENCE_SCENARIO):
        for agent, truth in ((0, "feed_dog"), (1, "do_laundry")):
            length = episode.trajectories[agent].length
            beliefs = []
            for tau in (0, length // 4, length // 2, length):
                evidence = trial_evidence(episode, tau, False, model.reads, ids)
                beliefs.append(model.posterior(evidence.agents[agent])[truth])
            assert beliefs[0] == pytest.approx(0.5)
            assert beliefs[-1] > 0.999 and beliefs[-1] >= beliefs[1] - 1e-9


def test_ideal_is_registered_declares_vision_and_records_its_settings():
    model = make_method("whodunit", "ideal", rollouts=10)
    assert isinstance(model, IdealObserver) and model.reads == frozenset({"vision"})
    assert model.settings()["rollouts"] == 10
    with pytest.raises(ValueError, match="rollouts"):
        IdealObserver(rollouts=0)
    with pytest.raises(ValueError, match="mission prior"):
        model.setup({"agent-x": "runs/policy.pt"})
    with pytest.raises(ValueError, match="probabilities"):
        MissionPrior({"feed_dog": 0.5}, "given", 0)


def test_ideal_reads_only_what_it_declared(data):
    episode = next(data.whodunit("pillow"))
    ids = (NAMES("pillow", "A"), NAMES("pillow", "B"))
    model = IdealObserver(rollouts=2)
    model.setup({i: {m: 1.0} for i, m in zip(ids, ("watch_movie_cozily", "watch_news_on_tv"))})
    evidence = trial_evidence(episode, 3, False, model.reads, ids)
    model.predict(evidence)
    with pytest.raises(UndeclaredModalityError):
        _ = evidence.agents[0].audio


def test_ideal_is_the_ceiling_on_a_preference_scenario(data):
    episodes = dataset_episodes(data, [PREFERENCE_SCENARIO])
    priors = TrainingPriors(str(data.root))
    roles = get_scenario(PREFERENCE_SCENARIO).roles

    def run(factory, resources=None, cutoff=40):
        settings = ProtocolSettings(seed=0, labelings="both", cutoff=cutoff)
        return evaluate(factory, episodes, settings, resources=resources, progress=False).matrix()

    def perfect(cutoff):
        planner = lambda scenario, role: {"planner": roles[role]}  # noqa: E731
        return run(lambda: SimulationMethod("vision", rollouts=20), planner, cutoff)

    # With the protocol's cutoff and combination, against the perfect agent models that share them.
    ideal = run(method_factory("ideal", rollouts=20), priors)
    assert ceiling_violations(ideal, perfect(40)) == []
    # The score-maximising answer without the cutoff, against every method without it.
    best = run(method_factory("ideal", rollouts=20, answer="map"), priors, None)
    others = (perfect(None), run(method_factory("uniform"), cutoff=None), run(method_factory("distance"), cutoff=None))
    for other in others:
        assert ceiling_violations(best, other) == []
    assert best.mean() > ideal.mean() and best[:, -1].min() == 1.0


def test_answers_turn_query_probabilities_into_the_chosen_answer():
    model = IdealObserver(answer="posterior")
    model.query_probability = lambda agent, trial: {"a": 0.8, "b": 0.4}[agent]
    trial = type("Trial", (), {"agents": ("a", "b")})()
    assert model.predict(trial) == pytest.approx((0.48 / 0.56, 0.08 / 0.56))
    model.answer = "map"
    assert model.predict(trial) == (1.0, 0.0)
    with pytest.raises(ValueError, match="answer"):
        IdealObserver(answer="vote")


def test_ceiling_violations_flags_a_method_that_beats_the_ceiling():
    ceiling = np.full((5, 3), 0.6)
    better = ceiling + np.array([0.0, 0.1, -0.2])
    assert ceiling_violations(ceiling, better) == [1]
    with pytest.raises(ValueError, match="shape"):
        ceiling_violations(ceiling, better[:, :2])


def test_cli_scores_ideal_with_a_label_free_prior_unless_the_privileged_one_is_asked_for(data, tmp_path):
    from marple.cli.main import main

    argv = ["evaluate", "--model", "ideal", "--model-arg", "rollouts=5", "--data", str(data.root), "--scenario"]
    assert main([*argv, "pillow", "--out", str(tmp_path / "ideal.json"), "--no-progress"]) == 0
    settings = json.loads((tmp_path / "ideal.json").read_text())["settings"]
    even = {"watch_movie_cozily": 0.5, "watch_news_on_tv": 0.5}
    assert settings["mission_prior"] == "uniform" and not settings["mission_prior_privileged"]
    assert settings["mission_priors"]["pillow"]["A"]["probabilities"] == even
    assert settings["mission_priors"]["pillow"]["B"]["probabilities"] == even  # the same for every agent
    out = tmp_path / "ideal-labels.json"
    assert main([*argv, "pillow", "--out", str(out), "--no-progress", "--mission-prior", "labels"]) == 0
    settings = json.loads(out.read_text())["settings"]
    assert settings["mission_prior"] == "labels" and settings["mission_prior_privileged"]
    assert settings["mission_priors"]["pillow"]["A"]["probabilities"] == {"watch_movie_cozily": 1.0}


def test_each_method_is_wired_with_its_resources_in_one_place(data):
    from marple.runner import MethodRun, method_resources
    from marple_agents.bip import BipResources
    from marple_eval.protocol import AgentResources

    def wired(model, model_args=None, agents=None, split=None):
        return method_resources(MethodRun(model, model_args or {}, agents, data.root, split, ("pillow",)))

    assert wired("distance") == (None, {})
    resources, recorded = wired("simulation", {"variant": "vision"}, {"A": "planner", "B": "planner"})
    assert isinstance(resources, AgentResources) and recorded == {}
    resources, recorded = wired("ideal")
    assert isinstance(resources, UniformPriors) and recorded["mission_prior"] == "uniform"
    assert recorded["mission_priors"]["pillow"]["A"]["probabilities"] == {
        "watch_movie_cozily": 0.5,
        "watch_news_on_tv": 0.5,
    }
    resources, recorded = method_resources(
        MethodRun("ideal", {}, None, data.root, "in", ("pillow",), mission_prior="labels")
    )
    assert isinstance(resources, TrainingPriors) and resources.split == "in" and recorded["mission_prior_privileged"]
    for model, model_args in (("bip", {}), ("simulation", {"agent": "mcts"})):
        resources, recorded = wired(model, model_args, {"A": "a.pt", "B": "b.pt"}, split="in")
        assert isinstance(resources, BipResources) and resources.policies == {"A": "a.pt", "B": "b.pt"}
        assert isinstance(resources.priors, UniformPriors) and "mission_priors" in recorded
    # The label-free priors need no dataset; the training labels do.
    assert isinstance(method_resources(MethodRun("ideal", scenarios=("pillow",)))[0], UniformPriors)
    with pytest.raises(ValueError, match="training-label prior .* it needs the dataset"):
        method_resources(MethodRun("ideal", scenarios=("pillow",), mission_prior="labels"))
