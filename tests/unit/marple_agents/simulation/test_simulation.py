"""Simulation inference: the rollout engine, agent models, and the perfect-policy upper bound."""

from __future__ import annotations

import re

import numpy as np
import pytest
from light_room import TOGGLE_ON, evidence_for, light_world

from marple_agents.simulation import PlannerAgent, PolicyAgent, SimulationMethod, query_probability
from marple_agents.simulation.agent_models import sample_rows
from marple_agents.simulation.worlds import RolloutWorlds
from marple_eval import ProtocolSettings, dataset_episodes, evaluate
from marple_eval.evidence import trial_evidence
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset
from marple_gym.missions.scenarios import get_scenario
from marple_gym.world import Action


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("sim") / "data"
    spec = DatasetSpec(
        [Unit.scenario("pillow"), Unit.scenario("laundry")], Sizes(2, 3, 1, 1), seed=11, splits=("test",)
    )
    generate_dataset(spec, root, workers=1, progress=False)
    return MarpleDataset(root)


def planner_resources(scenario: str, role: str) -> dict:
    return {"planner": get_scenario(scenario).roles[role]}


class FixedPolicy:
    """A stand-in for a learned policy: the same action distribution everywhere."""

    conditioning = "vision"

    def __init__(self, probs):
        self.probs = np.asarray(probs, dtype=np.float32)
        self.calls = []

    def action_probs(self, vision, subgoal=None):
        self.calls.append(len(vision))
        return np.repeat(self.probs[None], len(vision), axis=0)

    def subgoal_probs(self, vision):
        return None


def test_rollouts_run_in_lockstep_with_one_batched_call_per_step():
    world = light_world()
    toggler = FixedPolicy(np.eye(10)[Action.toggle])
    p = query_probability(
        world, PolicyAgent(toggler), evidence_for(world), TOGGLE_ON, steps=5, rollouts=30, rng=np.random.default_rng(0)
    )
    assert p == 1.0 and toggler.calls == [1]  # 30 rollouts in one state: one call, one distinct input


def test_the_policy_is_asked_once_per_step_and_once_per_distinct_state():
    world = light_world()
    uniform = FixedPolicy(np.full(10, 0.1))
    query_probability(
        world, PolicyAgent(uniform), evidence_for(world), TOGGLE_ON, steps=3, rollouts=200, rng=np.random.default_rng(0)
    )
    # Step 1: everyone in the start state. Step 2: one state per distinct outcome of the first action (no more
    # than the ten actions make, fewer since failed ones leave the world as it was).
    assert len(uniform.calls) == 3 and uniform.calls[0] == 1 and 1 < uniform.calls[1] <= 10


def test_rollout_probability_estimates_the_chance_of_reaching_the_query():
    world = light_world()
    uniform = FixedPolicy(np.full(10, 0.1))
    p = query_probability(
        world,
        PolicyAgent(uniform),
        evidence_for(world),
        TOGGLE_ON,
        steps=1,
        rollouts=4000,
        rng=np.random.default_rng(1),
    )
    assert p == pytest.approx(0.1, abs=0.02)  # only a toggle at step 1 reaches it
    idle = FixedPolicy(np.eye(10)[Action.idle])
    assert (
        query_probability(world, PolicyAgent(idle), evidence_for(world), TOGGLE_ON, 20, 50, np.random.default_rng(2))
        == 0.0
    )


@pytest.mark.parametrize(("steps", "query_state", "action_match"), [(1, 0.0, 1.0), (2, 1.0, 1.0)])
def test_rollouts_count_by_the_protocols_success_rule(steps, query_state, action_match):
    """A light that is on and an agent that always toggles: its first toggle switches the light off (a toggle of
    a light: the original code's action match), its second switches it on (the query state itself)."""
    from worlds import make_world

    from marple_eval.success import ActionMatchSuccess, QueryStateSuccess

    world = make_world(furniture=[{"type": "light", "pos": [3, 3], "state": {"toggleable": True}}])
    toggler = FixedPolicy(np.eye(10)[Action.toggle])
    found = {}
    for rule in (QueryStateSuccess(TOGGLE_ON), ActionMatchSuccess(TOGGLE_ON)):
        rng = np.random.default_rng(0)
        found[type(rule)] = query_probability(world, PolicyAgent(toggler), evidence_for(world), rule, steps, 20, rng)
    assert found == {QueryStateSuccess: query_state, ActionMatchSuccess: action_match}


def test_audio_refines_only_the_first_action():
    world = light_world()
    policy = FixedPolicy(np.full(10, 0.1))
    agent = PolicyAgent(policy, use_audio=True)
    # the sound heard at tau is "toggle_on_light": only a toggle could make it
    p = query_probability(
        world, agent, evidence_for(world), TOGGLE_ON, steps=1, rollouts=200, rng=np.random.default_rng(0)
    )
    assert p == 1.0


def test_sampling_rows_follows_the_probabilities():
    probs = np.array([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]])
    draws = np.stack([sample_rows(probs, np.random.default_rng(s)) for s in range(2000)])
    assert (draws[:, 0] == 1).all()
    assert set(draws[:, 1].tolist()) == {0, 2} and abs((draws[:, 1] == 0).mean() - 0.5) < 0.05


def test_perfect_agent_models_converge_at_T_and_are_right_early_on_an_easy_scenario(data):
    episodes = dataset_episodes(data, ["pillow", "laundry"])
    run = evaluate(
        lambda: SimulationMethod("vision", rollouts=10),
        episodes,
        ProtocolSettings(seed=0, cutoff=None),
        resources=planner_resources,
        progress=False,
    )
    final = run.matrix()[:, -1]
    assert (final > 0.99).all()  # at tau = T the culprit is known
    pillow = run.matrix("pillow")
    assert pillow[:, 3:].mean() > 0.95  # the easiest scenario: right from 30% of the evidence on


def test_the_cutoff_answers_half_where_T_plus_margin_minus_tau_exceeds_it(data):
    episode = next(e for e in data.whodunit("laundry") if e.horizon > 45)
    model = SimulationMethod("vision", rollouts=5)
    resources = planner_resources
    cut = evaluate(lambda: model, [episode], ProtocolSettings(), resources=resources, progress=False)
    uncut = evaluate(lambda: model, [episode], ProtocolSettings(cutoff=None), resources=resources, progress=False)
    taus = cut.trials[0].taus
    for k, tau in enumerate(taus):
        if episode.horizon + 10 - tau > 40:
            assert cut.trials[0].p_culprit[k] == 0.5
    assert uncut.trials[0].p_culprit[0] > 0.9  # a perfect agent model knows, if allowed to roll out far enough
    # the cut view of the uncut run is the cut run, exactly
    assert uncut.with_cutoff(40).trials[0].p_culprit == cut.trials[0].p_culprit


def test_same_seed_same_probabilities(data):
    episodes = dataset_episodes(data, ["pillow"])
    runs = [
        evaluate(
            lambda: SimulationMethod("vision", rollouts=8),
            episodes,
            ProtocolSettings(cutoff=None),
            resources=planner_resources,
            progress=False,
        )
        for _ in range(2)
    ]
    assert runs[0].matrix().tolist() == runs[1].matrix().tolist()


def test_planner_agent_samples_missions_from_preferences(data):
    episode = next(data.whodunit("laundry"))
    ids = ("agent-a", "agent-b")
    trial = trial_evidence(episode, 0, False, frozenset({"vision"}), ids)
    agent = PlannerAgent({"do_laundry": 0.5, "change_outfit": 0.5})
    worlds = RolloutWorlds([trial.agents[0].world()], 40)
    agent.reset(worlds, trial.agents[0], np.random.default_rng(0))
    names = {p.mission.name for p in agent.planners}
    assert names == {"do_laundry", "change_outfit"}
    # Each planner acts in its rollout's episode of the batch, which holds its mission progress.
    assert all(p.episode is e and p.progress is e.progress[0] for p, e in zip(agent.planners, worlds.episodes.rows))


def test_planner_rollouts_sharing_plan_requests_give_each_planner_its_own_plans(data, monkeypatch):
    """The planners of a batch share their plan requests (and shortest-path searches); the plans, the draws and
    the answers are those of planners that each pose their own."""
    from marple_agents.simulation import agent_models

    episode = next(data.whodunit("laundry"))
    trials = [trial_evidence(episode, k, False, frozenset({"vision"}), ("agent-a", "agent-b")) for k in (0, 1)]
    agents, evidence = [t.agents[0] for t in trials], trials

    def answers():
        model = PlannerAgent(get_scenario("laundry").roles["A"])
        method = SimulationMethod("vision", rollouts=12, seed=3)
        method.setup({agents[0].identity: model})
        return method.query_probabilities(agents, evidence), model

    shared, model = answers()
    assert all(p.cache is model.planners[0].cache for p in model.planners)  # one batch, one dict
    assert len(model.planners[0].cache) < len(model.planners)  # rollouts from one state pose one request

    class OwnRequests(agent_models.SharingPlanner):
        def plan_request(self):
            return agent_models.HierarchicalPlanner.plan_request(self)

    monkeypatch.setattr(agent_models, "SharingPlanner", OwnRequests)
    alone, _ = answers()
    assert shared == alone


def test_unknown_variant_and_missing_agent_models_are_reported(data):
    with pytest.raises(ValueError, match="unknown variant"):
        SimulationMethod("smell")
    episode = next(data.whodunit("pillow"))
    model = SimulationMethod("vision", rollouts=2)
    trial = trial_evidence(episode, 1, False, model.reads, ("agent-a", "agent-b"))
    with pytest.raises(ValueError, match="no agent model"):
        model.predict(trial)


class Conditioned:
    """A stand-in policy that says how it is conditioned, as a loaded checkpoint does."""

    def __init__(self, conditioning: str) -> None:
        self.conditioning = conditioning

    def action_probs(self, vision, subgoal=None):
        return np.full((len(vision), 10), 0.1)


@pytest.mark.parametrize(("variant", "conditioning", "fix"), [("vision", "language", "variant=language (or all)")])
@pytest.mark.parametrize("agent", ["policy", "mcts"])
def test_a_checkpoint_conditioned_otherwise_than_the_variant_is_refused_at_setup(variant, conditioning, fix, agent):
    model = SimulationMethod(variant, rollouts=2, agent=agent)
    resource = Conditioned(conditioning)
    with pytest.raises(
        ValueError, match=rf"'{variant}' rolls out vision-conditioned .* {conditioning}-conditioned.*{re.escape(fix)}"
    ):
        model.setup({"A": resource if agent == "policy" else {"policy": resource, "prior": {"get_snack": 1.0}}})
    assert SimulationMethod("audio", rollouts=2).setup({"A": Conditioned("vision")}) is None  # audio: vision policies


def test_decoded_subgoals_are_real_subgoals_other_than_the_one_just_achieved():
    from marple_agents.simulation.agent_models import most_likely_subgoals, subgoal_catalogue
    from marple_gym.missions import MISSIONS

    catalogue = subgoal_catalogue()
    toggle_on_light = MISSIONS["move_plant_at_night"].subgoals[0].codes
    pick_up_plant = MISSIONS["move_plant_at_night"].subgoals[1].codes
    sizes = {"action": 10, "object": 83, "furniture": 25, "room": 7}
    heads = {f: np.full((1, n), 0.01) for f, n in sizes.items()}
    for i, f in enumerate(sizes):  # the decoders are sure of "toggle the light in the Kitchen" ...
        heads[f][0, toggle_on_light[i]] = 0.6
    heads["object"][0, pick_up_plant[1]] = 0.3  # ... and see a pot plant as the runner-up object
    heads["action"][0, pick_up_plant[0]] = 0.3
    heads["room"][0, pick_up_plant[3]] = 0.3
    heads["furniture"][0, pick_up_plant[2]] = 0.3
    assert tuple(most_likely_subgoals(heads)[0]) == toggle_on_light
    after = most_likely_subgoals(heads, exclude=np.array([toggle_on_light]))
    assert tuple(after[0]) == pick_up_plant  # not "toggle the light in the Living Room", which no mission has
    assert {tuple(c) for c in catalogue} >= {toggle_on_light, pick_up_plant}


@pytest.mark.parametrize("agent_model", ["planner", "policy-audio"])
def test_all_evidence_points_in_one_batch_answer_as_one_at_a_time(data, agent_model):
    """predict_all rolls out every evidence point of a trial in one batch, with the same answers as predict."""
    episode = next(e for e in data.whodunit("laundry"))
    ids = ("agent-a", "agent-b")
    roles = ("A", "B") if episode.culprit == 0 else ("B", "A")

    def model() -> tuple[SimulationMethod, list[FixedPolicy]]:
        if agent_model == "planner":
            sim, policies = SimulationMethod("vision", rollouts=12, seed=5), []
            sim.setup({name: planner_resources("laundry", role) for name, role in zip(ids, roles)})
        else:
            sim, policies = SimulationMethod("audio", rollouts=12, seed=5), [FixedPolicy(np.full(10, 0.1)) for _ in ids]
            sim.setup(dict(zip(ids, policies)))
        return sim, policies

    batched, batched_policies = model()
    trials = [trial_evidence(episode, tau, False, batched.reads, ids) for tau in episode.evidence_steps(11)]
    together = batched.predict_all(trials)
    alone_model, alone_policies = model()
    assert together == [alone_model.predict(t) for t in trials]
    if agent_model != "planner":  # fewer, larger policy calls
        assert sum(len(p.calls) for p in batched_policies) < sum(len(p.calls) for p in alone_policies)


def test_trials_scored_together_in_one_process_answer_as_one_at_a_time(data):
    """On the CPU a process scores several trials at a time, their policy calls shared: the same answers as alone,
    and the results say how many were in flight."""
    episodes = dataset_episodes(data, ["laundry"])

    def resources(scenario: str, role: str) -> FixedPolicy:
        return FixedPolicy(np.full(10, 0.1))

    runs = {
        n: evaluate(
            lambda: SimulationMethod("vision", rollouts=6, seed=3),
            episodes,
            ProtocolSettings(cutoff=None),
            resources=resources,
            in_flight=n,
            progress=False,
        )
        for n in (1, 3)
    }
    assert runs[1].matrix().tolist() == runs[3].matrix().tolist()
    assert "trials_in_flight" not in runs[1].settings and runs[3].settings["trials_in_flight"] == 3
