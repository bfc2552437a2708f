"""Whodunit with N suspects: scenarios as data, generation, and the protocol's answers over N."""

from __future__ import annotations

import json

import numpy as np
import pytest

from marple.cli.main import main
from marple_eval.evidence import QueryRules
from marple_eval.methods.reference import DistanceMethod, UniformMethod
from marple_eval.methods.whodunit import WhodunitMethod, combine_query_probabilities, combine_suspects
from marple_eval.protocol import ProtocolSettings, evaluate, placements, score_trial
from marple_eval.results import RunResults
from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.datasets.generate import generate_dataset
from marple_gym.datasets.spec import DatasetSpec, Sizes, Unit
from marple_gym.missions.scenarios import ScenarioError, get_scenario
from marple_gym.missions.suspects import (
    DEFAULT_SUSPECTS,
    MAX_SUSPECTS,
    SUSPECT_SCENARIOS,
    SuspectScenario,
    suspect_scenario,
    suspect_scenarios,
)
from marple_gym.recording.records import first_producer

TEST_ONLY = Sizes(test_houses=2, test_per_house=4, train_per_house=1, train_ood=1)


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """A three-suspect dataset (test split only) of every N-suspect scenario."""
    root = tmp_path_factory.mktemp("suspects") / "data"
    spec = DatasetSpec([Unit.scenario(s.name) for s in suspect_scenarios()], TEST_ONLY, seed=1, splits=("test",))
    generate_dataset(spec, root, workers=1, progress=False)
    return MarpleDataset(root)


def test_every_scenario_of_the_data_file_has_several_possible_culprits():
    assert DEFAULT_SUSPECTS == 3 and set(SUSPECT_SCENARIOS) == {"sandwich", "light", "television", "clothes"}
    for scenario in suspect_scenarios():
        assert scenario.suspects == 3 and scenario.labels == ("A", "B", "C")
        assert len(scenario.producers) >= 2, scenario.name
        assert scenario.question.startswith("Who ")


def test_names_choose_the_size_the_house_and_the_preference():
    s = get_scenario("clothes-4-shared@0.7")
    assert isinstance(s, SuspectScenario)
    assert (s.name, s.suspects, s.shared, s.preference) == ("clothes-4-shared@0.7", 4, True, 0.7)
    assert s.missions[:3] == ("change_outfit", "take_shower", "do_laundry")  # the listed ones first
    for label, prefs in s.roles.items():
        assert prefs[s.test_missions[label]] == 0.7 and sum(prefs.values()) == pytest.approx(1.0)
    assert get_scenario("sandwich").name == "sandwich-3"
    assert get_scenario("light-2").producers == ("A", "B")


@pytest.mark.parametrize("n", [0, 1, MAX_SUSPECTS + 1])
def test_bad_sizes_and_unknown_scenarios_are_refused(n):
    with pytest.raises(ScenarioError, match=f"2 to {MAX_SUSPECTS} suspects"):
        suspect_scenario("sandwich", n)
    with pytest.raises(ScenarioError, match="choose from sandwich, light, television, clothes"):
        suspect_scenario("laundry")
    with pytest.raises(ScenarioError, match="N-suspect scenario"):
        get_scenario("sandwhich-3")


def test_a_scenario_no_suspect_could_have_done_is_refused():
    with pytest.raises(ScenarioError, match="no suspect's mission produces"):
        SuspectScenario("x", "?", "get_snack", ("feed_dog", "do_laundry", "take_shower"))
    with pytest.raises(ScenarioError, match="mission of its own"):
        SuspectScenario("x", "?", "get_snack", ("get_snack", "get_snack", "feed_dog"))


def test_paper_units_are_recorded_as_before():
    assert "shared" not in Unit.scenario("laundry").to_json()
    unit = Unit.scenario("television-3-shared")
    assert unit.to_json()["shared"] is True and list(unit.roles) == ["A", "B", "C"]


def test_test_groups_have_one_culprit_who_produced_the_query_state_first(three):
    culprits = set()
    for name in three.units:
        episodes = list(three.whodunit(name))
        assert len(episodes) == TEST_ONLY.test_houses * TEST_ONLY.test_per_house
        for e in episodes:
            assert e.suspects == 3 and len({tr.house_id for tr in e.trajectories}) == 1
            steps = [tr.query_steps.get(e.query_mission) for tr in e.trajectories]
            assert first_producer(e.trajectories, e.query_mission) == e.culprit
            assert all(s is None or s > e.horizon for i, s in enumerate(steps) if i != e.culprit)
            culprits.add(e.culprit)
    assert culprits != {0}  # where several missions produce the state, any of them may be first


def test_uniform_scores_chance_one_third_and_answers_sum_to_one(three):
    episodes = [e for name in three.units for e in three.whodunit(name)][:6]
    run = evaluate(UniformMethod, episodes, ProtocolSettings(cutoff=None), progress=False)
    assert run.chance() == pytest.approx(1 / 3)
    assert np.allclose(run.matrix(), 1 / 3)
    distance = evaluate(DistanceMethod, episodes, ProtocolSettings(labelings="both"), progress=False)
    for trial in distance.trials:
        assert trial.suspects == 3 and len(trial.labelings) == 3
        assert sorted(lab["culprit_as"] for lab in trial.labelings) == ["A", "B", "C"]
        for lab in trial.labelings:
            assert np.allclose(np.sum([lab[k] for k in ("p_a", "p_b", "p_c")], axis=0), 1.0)


def test_placements_put_the_culprit_under_every_label_and_are_seeded():
    both = placements(ProtocolSettings(labelings="both"), "x/h00/000", 4)
    assert sorted(p.index(0) for p in both) == [0, 1, 2, 3]
    random = ProtocolSettings(seed=5)
    assert placements(random, "x/h00/001", 3) == placements(random, "x/h00/001", 3)
    assert placements(random, "x/h00/001", 2) in ([True], [False])  # two suspects: the swap, as before


def test_combination_over_n_suspects_reduces_to_the_two_suspect_rule():
    for combine in ("softmax", "ratio"):
        rules = QueryRules(combine=combine)
        assert combine_suspects((0.7, 0.2), rules) == combine_query_probabilities(0.7, 0.2, rules)
        assert combine_suspects((0.0, 0.0, 0.0), rules) == pytest.approx((1 / 3,) * 3)
    three = combine_suspects((1.0, 0.0, 0.0), QueryRules(eta=5.0))
    assert three[0] == pytest.approx(np.exp(5) / (np.exp(5) + 2))


def test_a_two_suspect_model_is_refused_a_three_suspect_trial(three):
    class TwoOnly(WhodunitMethod):
        name = "two-only"
        suspects = 2

        def predict(self, trial):
            return 0.5, 0.5

    episode = next(three.whodunit(three.units[0]))
    with pytest.raises(ValueError, match="at most 2 suspects"):
        score_trial(TwoOnly(), episode, ProtocolSettings())

    class WrongLength(TwoOnly):
        suspects = None

    with pytest.raises(ValueError, match="2 probabilities for 3 suspects"):
        score_trial(WrongLength(), episode, ProtocolSettings(cutoff=None))


def test_results_of_three_suspects_round_trip_and_cut_to_one_third(three, tmp_path):
    episodes = list(three.whodunit(three.units[0]))[:3]
    run = evaluate(DistanceMethod, episodes, ProtocolSettings(cutoff=None), progress=False, out=tmp_path / "d.json")
    loaded = RunResults.load(tmp_path / "d.json")
    assert [t.suspects for t in loaded.trials] == [3, 3, 3]
    assert loaded.matrix().tolist() == run.matrix().tolist()
    cut = loaded.with_cutoff(0)
    for trial in cut.trials:
        assert trial.p_culprit[0] == pytest.approx(1 / 3)
    data = json.loads((tmp_path / "d.json").read_text())
    data["trials"][0]["labelings"][0]["culprit_as"] = "D"
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(Exception, match="culprit_as"):
        RunResults.load(tmp_path / "bad.json")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--suspects", "1"], "expected an integer in [2, 10]"),
        (["--suspects", "11"], "expected an integer in [2, 10]"),
        (["--suspects", "3", "--scenario", "laundry"], "unknown N-suspect scenario 'laundry'"),
        (["--suspects", "3", "--mission", "get_snack"], "cannot be combined with --suspects"),
    ],
)
def test_generate_refuses_bad_suspect_options_and_writes_nothing(tmp_path, capsys, argv, message):
    out = tmp_path / "never"
    try:
        status = main(["generate", *argv, "--scale", "0.01", "--out", str(out), "--no-progress"])
    except SystemExit as exc:  # argparse refuses out-of-range numbers itself
        status = exc.code
    assert status == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_the_benchmark_pipeline_scores_every_method_on_three_suspects(tmp_path):
    from marple.benchmark.pipeline import BenchmarkConfig, run_benchmark
    from marple.benchmark.presets import BenchmarkPreset

    tiny = BenchmarkPreset(
        "tiny", Sizes(1, 2, 3, 1), trials=2, model="small", rollouts=2, splits=("in",), train={"max_steps": 2}
    )
    cfg = BenchmarkConfig(
        tiny, tmp_path / "bench", scenarios=("light-3",), variants=("vision",), workers=1, progress=False
    )
    summary = run_benchmark(cfg)
    assert cfg.roles == ["A", "B", "C"]
    assert sorted(p.parent.name for p in (cfg.out / "models").rglob("policy.pt")) == [
        "A-vision",
        "B-vision",
        "C-vision",
    ]
    assert "1/N each (chance) where" in summary
    for name in ("uniform", "distance", "perfect-agent-models", "ideal", "simulation-vision-in-seed0"):
        run = RunResults.load(cfg.out / "results" / f"{name}.json")
        assert {t.suspects for t in run.trials} == {3}, name


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """A three-suspect shared-house dataset of two scenarios (test split only)."""
    root = tmp_path_factory.mktemp("shared") / "data"
    units = [Unit.scenario("light-3-shared"), Unit.scenario("sandwich-3-shared")]
    generate_dataset(DatasetSpec(units, TEST_ONLY, seed=2, splits=("test",)), root, workers=1, progress=False)
    return MarpleDataset(root)


def test_shared_house_groups_are_one_episode_whose_first_producer_is_the_culprit(shared):
    assert shared.manifest["spec"]["units"][0]["shared"] is True
    for name in shared.units:
        for e in shared.whodunit(name):
            assert e.shared and e.suspects == 3
            assert len({tr.length for tr in e.trajectories}) == 1  # aligned on the joint steps
            assert len(e.trajectories[0].house.agents) == 3  # every agent at its start
            first = min(tr.query_steps[e.query_mission] for tr in e.trajectories if e.query_mission in tr.query_steps)
            assert e.horizon == first == e.trajectories[e.culprit].query_steps[e.query_mission]


def test_a_suspects_world_in_a_shared_house_is_the_shared_world_without_the_others(shared):
    from marple_eval.evidence import culprit_first, trial_evidence

    e = next(shared.whodunit("light-3-shared"))
    evidence = trial_evidence(e, e.horizon, (2, 0, 1), frozenset({"vision"}), ("x", "y", "z"))
    order = culprit_first(e)
    for k, agent in zip((2, 0, 1), evidence.agents):
        recorded = e.trajectories[order[k]].vision
        for t in range(agent.tau + 1):
            grid = agent.world(t).state.grid
            others = recorded[t][..., 6] > 1  # the recording shows the agent itself as 1, the others as 2, 3
            assert np.array_equal(grid[..., :3], recorded[t][..., :3])
            assert np.array_equal(grid[~others], recorded[t][~others]), (k, t)
            assert (grid[others][:, 6] == 0).all()


def test_every_reference_and_inverse_method_scores_shared_house_trials(shared):
    from marple_eval.inverse import IdealObserver

    episodes = list(shared.whodunit("sandwich-3-shared"))[:3]
    priors = {r: m for r, m in get_scenario("sandwich-3-shared").roles.items()}
    for factory, resources in ((DistanceMethod, None), (lambda: IdealObserver(rollouts=3), lambda s, r: priors[r])):
        run = evaluate(factory, episodes, ProtocolSettings(cutoff=None), resources=resources, progress=False)
        assert run.matrix().shape == (3, 11) and ((run.matrix() >= 0) & (run.matrix() <= 1)).all()


def test_simulation_with_perfect_agent_models_scores_shared_house_trials(shared):
    from marple_agents.simulation.inference import SimulationMethod
    from marple_eval.protocol import AgentResources

    episodes = list(shared.whodunit("light-3-shared"))[:2]
    resources = AgentResources(dict.fromkeys("ABC", "planner"))
    run = evaluate(
        lambda: SimulationMethod("vision", rollouts=2),
        episodes,
        ProtocolSettings(),
        resources=resources,
        progress=False,
    )
    assert {t.suspects for t in run.trials} == {3} and run.matrix().shape == (2, 11)


def test_generate_writes_a_shared_house_dataset_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "shared"
    sizes = ["--test-houses", "1", "--test-per-house", "2", "--splits", "test"]
    assert main(["generate", "--suspects", "2", "--shared", "--scenario", "light", *sizes, "--out", str(out)]) == 0
    (unit,) = json.loads((out / "manifest.json").read_text())["spec"]["units"]
    assert unit["name"] == "light-2-shared" and unit["shared"] is True and list(unit["roles"]) == ["A", "B"]
    assert [e.suspects for e in MarpleDataset(out).whodunit("light-2-shared")] == [2, 2]


def test_a_planner_whose_last_subgoals_others_did_is_done_not_stuck(tmp_path):
    # Found by the quick benchmark (this episode raised IndexError): when the others have done the rest of an
    # agent's mission, its planner completes the mission while planning and has no action left to take.
    from marple_gym.datasets.episodes import run_task
    from marple_gym.datasets.spec import ShardTask

    spec = DatasetSpec([Unit.scenario("light-3-shared")], Sizes(10, 1, 20, 20), seed=0)
    entry = run_task(spec, ShardTask("light-3-shared", "train-in", "A", 4, 6, 1), tmp_path)
    assert entry["episodes"] == 1
