"""The MCTS agent model (our extension): batched PUCT search over the true world, in simulation and in bip."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from light_room import evidence_for
from worlds import make_world

from marple.registry import make_method
from marple_agents.bip import BipMethod
from marple_agents.search import MissionSearch, PuctSettings, run_search, visit_policy
from marple_agents.search.puct import MAX_SIMULATIONS
from marple_agents.simulation import MCTSAgent, SimulationMethod, query_probability
from marple_agents.simulation.agent_models import PolicyConditioning
from marple_agents.simulation.mcts import share_rows
from marple_agents.simulation.rollouts import query_probabilities
from marple_eval import ProtocolSettings, dataset_episodes, evaluate
from marple_eval.evidence import trial_evidence
from marple_eval.protocol import Identities
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset
from marple_gym.missions import Subgoal
from marple_gym.missions.batch import DONE_CODES, MissionTable
from marple_gym.missions.mission import Mission, get_mission
from marple_gym.missions.scenarios import get_scenario
from marple_gym.world import Action
from marple_gym.world.batched_state import BatchedState
from marple_gym.world.rules import apply_action

SCENARIO = "laundry"
IDS = ("agent-a", "agent-b")
TOGGLE_ON = Subgoal(Action.toggle, "light", "Kitchen", state=("toggleable", True))
SWITCH_ON_THE_LIGHT = Mission("switch_on_the_light", "Switch on the light", (TOGGLE_ON,), 0)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("search") / "data"
    spec = DatasetSpec([Unit.scenario(SCENARIO)], Sizes(2, 2, 4, 1), seed=11, splits=("test", "train-in"))
    generate_dataset(spec, root, workers=1, progress=False)
    return MarpleDataset(root)


class FixedPolicy:
    """A stand-in for a learned policy: the same action distribution everywhere; it counts the rows it is asked."""

    def __init__(self, probs, conditioning: str = "vision") -> None:
        self.probs = np.asarray(probs, dtype=np.float32)
        self.conditioning = conditioning
        self.rows = 0

    def action_probs(self, vision, subgoal=None):
        self.rows += len(vision)
        return np.repeat(self.probs[None], len(vision), axis=0)


LEANING = np.array([0.05, 0.05, 0.4, 0.1, 0.05, 0.1, 0.05, 0.05, 0.05, 0.1])
"""A policy that mostly walks forward: not uniform, so that K = 0 is seen to give exactly this."""


class IntentPolicy(FixedPolicy):
    """A stand-in policy whose answers depend on what it is given: its action distribution on the subgoal's codes,
    its decoders' subgoal on the vision grid (so that conditioning on another subgoal, or decoding at another state,
    changes the draws). It says it is conditioned as ``variant`` rolls policies out."""

    SIZES = {"action": 10, "object": 83, "furniture": 25, "room": 7}

    def __init__(self, variant: str = "language") -> None:
        super().__init__(LEANING, "language" if variant in ("language", "all") else "vision")
        self.subgoals_seen: list[np.ndarray | None] = []

    def action_probs(self, vision, subgoal=None):
        self.rows += len(vision)
        self.subgoals_seen.append(None if subgoal is None else np.array(subgoal))
        codes = np.zeros((len(vision), 4)) if subgoal is None else np.asarray(subgoal, dtype=np.float64)
        logits = 2.0 * np.cos(np.arange(10)[None] * (1.0 + codes @ [1.0, 0.37, 0.11, 0.53])[:, None])
        probs = np.exp(logits)
        return (probs / probs.sum(axis=1, keepdims=True)).astype(np.float32)

    def subgoal_probs(self, vision):
        score = vision.reshape(len(vision), -1).astype(np.int64).sum(axis=1)
        heads = {}
        for i, (field, size) in enumerate(self.SIZES.items()):
            head = np.ones((len(vision), size))
            head[np.arange(len(vision)), (score * (i + 3)) % size] += 5.0
            heads[field] = head / head.sum(axis=1, keepdims=True)
        return heads


def uniform_prior(vision, subgoals):
    return np.full((len(vision), 10), 0.1)


# ---- the search itself ------------------------------------------------------------------------------------------


def test_no_simulation_gives_the_prior_exactly():
    world = make_world(furniture=[{"type": "light", "pos": [6, 3], "state": {"toggleable": False}}])
    table = MissionTable([SWITCH_ON_THE_LIGHT])
    policy = FixedPolicy(LEANING)
    search = MissionSearch(table, lambda v, s: policy.action_probs(v, s), PuctSettings(simulations=0))
    states = BatchedState.repeat(world.state, 3)
    probs = search.policy(world.house, states, np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64))
    np.testing.assert_array_equal(probs, np.repeat(LEANING[None], 3, axis=0).astype(np.float32))
    # The generic search agrees: no simulation, the prior.
    tree = run_search(np.repeat(LEANING[None], 2, axis=0), np.zeros(2), None, PuctSettings(simulations=0))
    np.testing.assert_allclose(visit_policy(tree), np.repeat(LEANING[None], 2, axis=0))


def test_many_simulations_with_a_uniform_prior_find_the_shortest_way_to_the_light():
    """Facing north, the light three cells east of the cell beside it: turn right once (not left three times),
    three steps forward, toggle. Following the search's most visited action takes exactly that path."""
    world = make_world(furniture=[{"type": "light", "pos": [6, 3], "state": {"toggleable": False}}], agent=(2, 3, 3))
    search = MissionSearch(MissionTable([SWITCH_ON_THE_LIGHT]), uniform_prior, PuctSettings(simulations=200))
    taken = []
    for _ in range(5):
        probs = search.policy(world.house, BatchedState.repeat(world.state, 1), np.zeros(1, int), np.zeros(1, int))
        taken.append(int(probs[0].argmax()))
        apply_action(world.house, world.state, 0, int(taken[-1]))
    assert taken == [Action.right, Action.forward, Action.forward, Action.forward, Action.toggle]
    assert world.state.fur_state[0] & 1  # the light is on


def test_the_mission_pulls_the_search_and_a_complete_one_leaves_it_to_the_prior():
    """The reward is the mission's progress: on the light's mission the search toggles it; once the mission is
    complete nothing is worth more than anything else. (The question asked: the next test.)"""
    world = make_world(furniture=[{"type": "light", "pos": [6, 3], "state": {"toggleable": False}}], agent=(5, 3, 0))
    search = MissionSearch(MissionTable([SWITCH_ON_THE_LIGHT]), uniform_prior, PuctSettings(simulations=64))
    one = (np.zeros(1, int), np.zeros(1, int))
    on_mission = search.policy(world.house, BatchedState.repeat(world.state, 1), *one)
    assert on_mission[0].argmax() == Action.toggle
    done = search.policy(world.house, BatchedState.repeat(world.state, 1), np.zeros(1, int), np.ones(1, int))
    # The mission is complete: nothing is worth more than anything else, so the search keeps to the prior's spread.
    assert done[0].max() < 0.5


def kitchen_facing_the_light():
    """A kitchen with a closed fridge on the east side and a light in the north-west corner, the agent beside the
    light and facing it: get_night_snack switches the light on first, get_snack opens the fridge and never
    touches the light."""
    fridge = {"type": "electric_refrigerator", "pos": [5, 1], "state": {"openable": False}}
    return make_world([fridge, {"type": "light", "pos": [1, 1], "state": {"toggleable": False}}], agent=(1, 2, 3))


class RecordedMCTSAgent(MCTSAgent):
    """The MCTS agent model, keeping the action each rollout row took at each step."""

    def reset_groups(self, worlds, evidences, rngs) -> None:
        super().reset_groups(worlds, evidences, rngs)
        self.taken: dict[int, list[int]] = {}

    def act(self, active, rng):
        actions = super().act(active, rng)
        for row, action in zip(np.asarray(active).tolist(), np.asarray(actions).tolist()):
            self.taken.setdefault(row, []).append(action)
        return actions


def test_the_search_never_heads_for_the_query_state():
    """P(query | agent) must measure whether an agent *would* reach the query state, not whether it could: the
    search never sees the question. Its rollouts are the same whichever query is asked (the query only decides
    where a rollout stops counting), and what pulls them is the agent's own mission: the culprit's (on the light)
    reach the light more with more search, the innocent's (on the fridge) do not follow."""
    world = kitchen_facing_the_light()
    evidence = evidence_for(world)
    blind = FixedPolicy(np.full(10, 0.1))
    absent = Subgoal(Action.toggle, "television", "LivingRoom", state=("toggleable", True))  # not in this house

    # One rollout per group, each with its own generator: a rollout that stops draws nothing more from anyone's.
    rollouts = {}
    for name, query in (("light", TOGGLE_ON), ("absent", absent)):
        agent = RecordedMCTSAgent(blind, {"get_snack": 1.0}, PuctSettings(simulations=8))
        rngs = [np.random.default_rng([7, i]) for i in range(24)]
        found = query_probabilities([world] * 24, agent, [evidence] * 24, query, [6] * 24, 1, rngs)
        rollouts[name] = (found, agent.taken)
    (reached, light), (nothing, whole) = rollouts["light"], rollouts["absent"]
    assert 0 < sum(reached) < 24 and sum(nothing) == 0  # the light was in reach, and switched on by some rollouts
    for row, taken in light.items():
        assert taken == whole[row][: len(taken)]  # the same actions, as far as the rollout went
        if len(taken) < len(whole[row]):  # stopped early: it had switched the light on, with its last action
            assert reached[row] == 1
        if reached[row]:
            assert taken[-1] == Action.toggle

    reach = {}
    for mission in ("get_night_snack", "get_snack"):
        for k in (0, 16, 64):
            agent = MCTSAgent(blind, {mission: 1.0}, PuctSettings(simulations=k))
            reach[mission, k] = query_probability(world, agent, evidence, TOGGLE_ON, 4, 100, np.random.default_rng(3))
    assert reach["get_night_snack", 0] == reach["get_snack", 0]  # no search: the same blind policy, the same draws
    assert reach["get_night_snack", 16] > 0.7 and reach["get_night_snack", 64] > 0.9
    # The innocent agent's reach stays near its blind policy's (it toggles only as the prior does, on its way).
    assert all(reach["get_snack", k] < reach["get_snack", 0] + 0.1 < 0.5 for k in (16, 64))


def test_deeper_nodes_give_the_prior_the_subgoal_the_policy_agent_would_follow():
    """Past the root, a language prior is given the subgoal the policy agent's rule reaches along the node's path:
    the intent until a step achieves it, then the decoders' next subgoal. After the toggle that completes the
    mission, that is the decoded one, where the mission's own subgoals (bip's way) say "done"."""
    world = make_world(furniture=[{"type": "light", "pos": [6, 3], "state": {"toggleable": False}}], agent=(5, 3, 0))
    toggled = world.clone()
    apply_action(toggled.house, toggled.state, 0, int(Action.toggle))
    conditioning = PolicyConditioning(IntentPolicy(), use_language=True)
    intent = np.array([TOGGLE_ON.codes])
    decoded = tuple(conditioning.decoded(toggled.state.grid[None], achieved=intent)[0].tolist())
    assert decoded not in {TOGGLE_ON.codes, DONE_CODES}

    def given_after_the_toggle(follow) -> list[tuple[int, ...]]:
        """The subgoal codes the prior was given at every node whose world is the lit one."""
        seen = []

        def prior(vision, subgoals):
            seen.extend(tuple(c) for v, c in zip(vision, subgoals.tolist()) if np.array_equal(v, toggled.state.grid))
            return np.full((len(vision), 10), 0.1)

        search = MissionSearch(MissionTable([SWITCH_ON_THE_LIGHT]), prior, PuctSettings(simulations=16), follow)
        one = (np.zeros(1, int), np.zeros(1, int))
        search.policy(world.house, BatchedState.repeat(world.state, 1), *one, None if follow is None else intent)
        return seen

    def follow(codes, houses, states, outcomes):
        return conditioning.moved_on(codes, houses, outcomes, np.arange(len(codes)), lambda r: states.grid[r])

    # The toggle was searched (and steps that change nothing after it), each node given the decoded subgoal.
    lit = given_after_the_toggle(follow)
    assert lit and set(lit) == {decoded}
    assert set(given_after_the_toggle(None)) == {DONE_CODES}
    with pytest.raises(ValueError, match="follow rule"):
        MissionSearch(MissionTable([SWITCH_ON_THE_LIGHT]), uniform_prior, PuctSettings()).policy(
            world.house, BatchedState.repeat(world.state, 1), *(np.zeros(1, int),) * 2, intent
        )


def test_the_visit_policy_mixes_the_prior_as_one_visit():
    def expand(parent, action, node):  # a bandit: action 3 pays 1, the rest nothing; every leaf is worth 0
        return np.full((1, 4), 0.25), np.zeros(1), (action == 3).astype(float)

    tree = run_search(np.full((1, 4), 0.25), np.zeros(1), expand, PuctSettings(simulations=20))
    policy = visit_policy(tree)
    visits = tree.root_visits()
    assert visits.sum() == 20 and visits[0].argmax() == 3
    np.testing.assert_allclose(policy, (0.25 + visits) / 21)
    assert policy.sum() == pytest.approx(1.0)


def test_rows_are_shared_among_missions_in_proportion_to_the_prior():
    assert share_rows(20, [0.8, 0.2]).tolist() == [16, 4]
    assert share_rows(3, [0.5, 0.5]).tolist() == [2, 1]
    assert share_rows(7, [1.0]).tolist() == [7]


@pytest.mark.parametrize("value", [1.5, True, "true", "16", 1e9, 16.0, -1, MAX_SIMULATIONS + 1, None])
def test_simulations_must_be_a_whole_number_within_the_bound(value):
    message = rf"simulations must be a whole number from 0 to {MAX_SIMULATIONS}, got"
    for build in (PuctSettings, partial(SimulationMethod, agent="mcts"), partial(BipMethod, agent="mcts")):
        with pytest.raises(ValueError, match=message):
            build(simulations=value)


def test_the_method_is_named_for_the_simulations_it_runs():
    assert SimulationMethod(agent="mcts", simulations=np.int64(8)).name == "simulation-mcts8-vision"
    assert BipMethod(agent="mcts", simulations=MAX_SIMULATIONS).name == f"bip-mcts{MAX_SIMULATIONS}"
    assert PuctSettings(simulations=np.int32(4)).simulations.__class__ is int  # written to results as 4


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="simulations"):
        PuctSettings(simulations=-1)
    with pytest.raises(ValueError, match="discount"):
        PuctSettings(discount=0)
    with pytest.raises(ValueError, match="unknown agent model 'tree'"):
        SimulationMethod(agent="tree")
    with pytest.raises(ValueError, match="mission prior"):
        MCTSAgent(FixedPolicy(LEANING), {"do_laundry": 0.0})
    with pytest.raises(ValueError, match="policy checkpoint and a mission prior"):
        SimulationMethod(agent="mcts").setup({"agent-x": "runs/policy.pt"})


# ---- in simulation inference ------------------------------------------------------------------------------------


def mcts_model(simulations: int, variant: str = "vision", **kw) -> SimulationMethod:
    return SimulationMethod(variant, rollouts=6, seed=5, agent="mcts", simulations=simulations, **kw)


def setup(model, episode, policy_for=lambda: FixedPolicy(LEANING)):
    roles = ("A", "B") if episode.culprit == 0 else ("B", "A")
    prior = {role: get_scenario(SCENARIO).roles[role] for role in "AB"}
    model.setup({i: {"policy": policy_for(), "prior": prior[r]} for i, r in zip(IDS, roles)})
    return model


def trials_of(model, episode):
    return [trial_evidence(episode, tau, False, model.reads, IDS) for tau in episode.evidence_steps(11)]


def test_mcts_with_no_simulation_answers_exactly_as_the_policy(data):
    episode = next(data.whodunit(SCENARIO))
    searched = setup(mcts_model(0), episode)
    plain = SimulationMethod("vision", rollouts=6, seed=5)
    plain.setup({i: FixedPolicy(LEANING) for i in IDS})
    trials = trials_of(plain, episode)
    assert searched.predict_all(trials) == plain.predict_all(trials)


@pytest.mark.parametrize("variant", ["vision", "audio", "language", "all"])
def test_mcts_with_no_simulation_answers_exactly_as_the_policy_in_every_variant(data, variant):
    """K = 0 is the learned policy given exactly what the plain policy agent gives it: for a language-conditioned
    policy, the observed latest intent (then the decoders' next subgoal), not the mission prior's subgoals."""
    episode = next(data.whodunit(SCENARIO))
    searched = setup(mcts_model(0, variant), episode, lambda: IntentPolicy(variant))
    plain = SimulationMethod(variant, rollouts=6, seed=5)
    plain.setup({i: IntentPolicy(variant) for i in IDS})
    trials = trials_of(plain, episode)
    assert searched.predict_all(trials) == plain.predict_all(trials)
    for identity in IDS:  # the very same inputs, call by call (the answers alone could agree by chance)
        mine, theirs = (m.agents[identity].policy.subgoals_seen for m in (searched, plain))
        assert len(mine) == len(theirs) > 0
        for a, b in zip(mine, theirs):
            assert (a is None) == (b is None) and (a is None or np.array_equal(a, b))


def test_mcts_rollouts_same_seed_same_answers_and_batched_as_one_at_a_time(data):
    episode = next(data.whodunit(SCENARIO))
    first = setup(mcts_model(3), episode)
    trials = trials_of(first, episode)
    together = first.predict_all(trials)
    assert together == setup(mcts_model(3), episode).predict_all(trials)
    alone = setup(mcts_model(3), episode)
    assert together == [alone.predict(t) for t in trials]
    assert first.settings()["agent"] == "mcts" and first.settings()["simulations"] == 3
    assert first.name == "simulation-mcts3-vision"


def test_more_search_moves_the_culprit_toward_the_planner(data):
    """The learned policy here is blind (uniform): with search over its own mission, the culprit reaches the query
    state more often, as the perfect agent model (the planner) does."""
    episode = next(data.whodunit(SCENARIO))
    culprit = IDS[episode.culprit]
    reach = {}
    for k in (0, 16):
        model = setup(mcts_model(k), episode, lambda: FixedPolicy(np.full(10, 0.1)))
        trials = trials_of(model, episode)[-4:]
        agents = [next(a for a in t.agents if a.identity == culprit) for t in trials]
        reach[k] = sum(model.query_probabilities(agents, trials))
    assert reach[16] > reach[0]


def test_a_language_policy_is_given_the_intent_in_simulation_and_the_missions_subgoals_in_bip(data):
    """In simulation the search's root starts from what the policy agent gives the policy (the latest intent seen
    at tau); bip's rollouts (``mission_subgoals``) give it the mission's current subgoal at every node."""
    episode = next(data.whodunit(SCENARIO))
    policy = IntentPolicy()
    model = setup(mcts_model(2, "language"), episode, lambda: policy)
    trial = trials_of(model, episode)[0]
    agent = trial.agents[0]
    intent = agent.subgoals[-1]
    assert intent[0] >= 0  # the agent is not done: the intent is what it is given
    model.query_probabilities([agent], [trial])
    np.testing.assert_array_equal(policy.subgoals_seen[0], intent[None])  # step 1: every rollout at one root

    other = "B" if episode.culprit == 0 else "A"  # bip weighs every mission: here one the agent is not on
    (mission,) = get_scenario(SCENARIO).roles[other]
    allowed = {sg.codes for sg in get_mission(mission).subgoals} | {DONE_CODES}
    assert tuple(intent.tolist()) not in allowed
    bips = IntentPolicy()
    searched = MCTSAgent(bips, {mission: 1.0}, PuctSettings(simulations=2), use_language=True, mission_subgoals=True)
    world, _ = agent.replay()
    query_probability(world, searched, agent, trial.query, 6, 4, np.random.default_rng(0))
    assert {tuple(row) for rows in bips.subgoals_seen for row in rows.tolist()} <= allowed


# ---- in bip ---------------------------------------------------------------------------------------------------------


class SubgoalPolicy:
    """A stand-in language-conditioned policy: P(forward) depends on the subgoal's action."""

    conditioning = "language"

    def action_probs(self, vision, subgoal):
        forward = np.where(subgoal[:, 0] == 3, 0.5, 0.2)
        probs = np.repeat(((1 - forward) / 9)[:, None], 10, axis=1)
        probs[:, 2] = forward
        return probs


def bip_setup(model, prior):
    names = Identities("tests")
    ids = (names(SCENARIO, "A"), names(SCENARIO, "B"))
    model.setup({i: {"policy": SubgoalPolicy(), "prior": prior} for i in ids})
    return ids


def test_bip_with_the_mcts_likelihood(data):
    episode = next(data.whodunit(SCENARIO))
    prior = {m: 0.5 for m in ("do_laundry", "feed_dog")}
    plain, searched0, searched = BipMethod(rollouts=2), BipMethod(rollouts=2, agent="mcts", simulations=0), None
    ids = bip_setup(plain, prior)
    bip_setup(searched0, prior)
    agent = trial_evidence(episode, 6, False, plain.reads, ids).agents[0]
    assert searched0.log_likelihoods(agent) == plain.log_likelihoods(agent)  # K = 0: the policy's likelihood
    searched = make_method("whodunit", "bip", rollouts=2, agent="mcts", simulations=4)
    assert searched.name == "bip-mcts4" and searched.settings()["simulations"] == 4
    bip_setup(searched, prior)
    logs = searched.log_likelihoods(agent)
    assert set(logs) == set(prior) and all(np.isfinite(list(logs.values())))
    run = evaluate(
        lambda: make_method("whodunit", "bip", rollouts=2, agent="mcts", simulations=2),
        dataset_episodes(data, [SCENARIO], 1),
        ProtocolSettings(seed=0),
        resources=lambda scenario, role: {"policy": SubgoalPolicy(), "prior": prior},
        progress=False,
    )
    p = run.matrix()
    assert p.shape == (1, 11) and ((p >= 0) & (p <= 1)).all() and p[0, -1] > 0.9  # at T the culprit is seen


# ---- the benchmark row and the command line ---------------------------------------------------------------------


def test_the_benchmark_has_an_mcts_row_named_as_our_extension_when_asked(tmp_path):
    from marple.benchmark import BenchmarkConfig
    from marple.benchmark.pipeline import inference_runs
    from marple.benchmark.presets import PRESETS
    from marple.runner import MethodRun, uses_learned_policies, uses_priors

    assert not [run for run in inference_runs(BenchmarkConfig(PRESETS["small"], tmp_path)) if run.key == "mcts"]
    cfg = BenchmarkConfig.from_options("small", out=str(tmp_path), variants="vision,language", mcts=16)
    (row,) = [run for run in inference_runs(cfg) if run.key == "mcts"]
    assert row.name == "simulation-mcts16-in-seed0" and "our extension" in row.method
    assert uses_priors(MethodRun(row.model, row.kwargs)) and uses_learned_policies(MethodRun(row.model, row.kwargs))
    assert row.kwargs["agent"] == "mcts" and row.kwargs["simulations"] == 16 and row.kwargs["variant"] == "vision"
    assert all(path.endswith("in/{role}-vision/policy.pt") for path in row.agents.values())
    without = BenchmarkConfig(cfg.preset, tmp_path, variants=("language",))  # no vision-only models: no row
    assert not [run for run in inference_runs(without) if run.key == "mcts"]


@pytest.mark.slow
def test_marple_evaluate_with_the_mcts_agent_model(data, tmp_path, capsys):
    pytest.importorskip("lightning")
    from marple.cli.main import main
    from marple_agents import train_policy

    for role in "AB":
        tiny = {"width": 16, "depth": 1, "heads": 2, "mlp_ratio": 1, "decoder_hidden": 16, "readout_depth": 1}
        train_policy(
            data.root,
            unit=SCENARIO,
            role=role,
            model="vision",
            out_dir=tmp_path / role,
            max_steps=2,
            accelerator="cpu",
            devices=1,
            progress=False,
            holdout="episodes",
            glimpse=0,
            **tiny,
        )
    out = tmp_path / "mcts.json"
    args = ["evaluate", "--data", str(data.root), "--model", "simulation", "--limit", "1", "--out", str(out)]
    args += ["--model-arg", "agent=mcts", "--model-arg", "simulations=2", "--model-arg", "rollouts=3"]
    args += ["--train-split", "in", "--no-progress", "--agent", f"A={tmp_path}/A/policy.pt"]
    assert main([*args, "--agent", f"B={tmp_path}/B/policy.pt"]) == 0
    import json

    settings = json.loads(out.read_text())["settings"]
    assert settings["name"] == "simulation-mcts2-vision" and settings["simulations"] == 2
    assert settings["mission_priors"][SCENARIO]["A"]["source"].endswith("train-in/A")
