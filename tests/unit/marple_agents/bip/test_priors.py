"""Label-free mission priors: every method that takes one (ideal, bip, the MCTS agent model) starts from the same
uniform prior over the scenario's missions, and reads each agent's missions from its actions alone."""

from __future__ import annotations

import math

import numpy as np
import pytest
from light_room import evidence_after
from worlds import make_world

from marple_agents.bip import BipMethod
from marple_agents.search import PuctSettings
from marple_agents.simulation import MCTSAgent
from marple_agents.simulation.mcts import share_rows
from marple_agents.simulation.worlds import RolloutWorlds
from marple_eval.evidence import QueryRules, TrialEvidence
from marple_eval.inverse import IdealObserver, UniformPriors, mission_priors
from marple_eval.report import prior_only
from marple_eval.results import RunResults, TrialResult
from marple_gym.missions import MISSIONS
from marple_gym.missions.scenarios import get_scenario
from marple_gym.world import Action

# Agent A switches the light on first (get_night_snack); B opens the fridge and never touches the light.
SCENARIO = "get_night_snack-vs-get_snack"
L, F = int(Action.left), int(Action.forward)
IDS = ("agent-a", "agent-b")


def kitchen():
    """The kitchen of test_inverse: a fridge to the east, a light in the north-west corner, the agent at (2, 5)
    facing east. A first move left (north) has probability 0.4 under get_snack and 0.9 under get_night_snack
    (hand-computed there from the planner's shortest paths)."""
    fridge = {"type": "electric_refrigerator", "pos": [5, 1], "state": {"openable": False}}
    light = {"type": "light", "pos": [1, 1], "state": {"toggleable": False}}
    return make_world([fridge, light], agent=(2, 5, 0))


def facing_the_light():
    """The same kitchen with the agent beside the light and facing it: get_night_snack's first action switches
    it on (the query state), get_snack never does."""
    fridge = {"type": "electric_refrigerator", "pos": [5, 1], "state": {"openable": False}}
    light = {"type": "light", "pos": [1, 1], "state": {"toggleable": False}}
    return make_world([fridge, light], agent=(1, 2, 3))


def test_the_default_prior_is_uniform_over_the_scenarios_missions_for_every_agent():
    even = {"change_outfit": 0.5, "do_laundry": 0.5}
    assert UniformPriors()("laundry", "A") == UniformPriors()("laundry", "B") == even
    assert UniformPriors()("feed_dog-vs-do_laundry@0.8", "A") == {"do_laundry": 0.5, "feed_dog": 0.5}
    assert UniformPriors("all")("laundry", "A") == dict.fromkeys(sorted(MISSIONS), 0.1)
    assert mission_priors("uniform") == UniformPriors() and mission_priors("uniform-all") == UniformPriors("all")
    with pytest.raises(ValueError, match="needs the dataset"):
        mission_priors("labels")
    with pytest.raises(ValueError, match="unknown mission prior"):
        mission_priors("oracle")


def test_the_ideal_observer_from_the_label_free_prior_gives_the_hand_computed_posterior():
    model = IdealObserver(rollouts=1)
    model.setup({IDS[0]: UniformPriors()(SCENARIO, "A")})
    posterior = model.posterior(evidence_after(kitchen(), [L], IDS[0]))
    assert posterior["get_snack"] == pytest.approx(0.4 / (0.4 + 0.9))
    posterior = model.posterior(evidence_after(kitchen(), [L, F], IDS[0]))
    assert posterior["get_snack"] == pytest.approx(0.4 / (0.4 + 0.8))


class SubgoalPolicy:
    """A stand-in language-conditioned policy: P(left) is 0.6 under a toggle subgoal, 0.3 under an open one, 0.1
    otherwise; the rest spread evenly."""

    conditioning = "language"

    def action_probs(self, vision, subgoal):
        action = np.asarray(subgoal)[:, 0]
        left = np.select([action == Action.toggle, action == Action.open], [0.6, 0.3], 0.1)
        probs = np.repeat(((1 - left) / 9)[:, None], 10, axis=1)
        probs[:, L] = left
        return probs.astype(np.float32)


def test_bip_from_the_label_free_prior_gives_the_hand_computed_posterior():
    model = BipMethod(rollouts=1)
    model.setup({IDS[0]: {"policy": SubgoalPolicy(), "prior": UniformPriors()(SCENARIO, "A")}})
    # get_night_snack works on "toggle the light" first, get_snack on "open the fridge": P(left) 0.6 and 0.3.
    posterior = model.posterior(evidence_after(kitchen(), [L], IDS[0]))
    assert posterior["get_snack"] == pytest.approx(0.3 / (0.6 + 0.3))
    posterior = model.posterior(evidence_after(kitchen(), [L, L], IDS[0]))
    assert posterior["get_snack"] == pytest.approx(0.3**2 / (0.6**2 + 0.3**2), rel=1e-5)


class Switcher(SubgoalPolicy):
    """Toggles whenever its subgoal is a toggle (and never otherwise)."""

    def action_probs(self, vision, subgoal):
        toggle = np.asarray(subgoal)[:, 0] == Action.toggle
        probs = np.where(toggle[:, None], 0.0, 1 / 9).astype(np.float32).repeat(10, axis=1)
        probs[:, Action.toggle] = toggle
        return probs


class BlindPolicy:
    conditioning = "vision"

    def action_probs(self, vision, subgoal=None):
        return np.full((len(vision), 10), 0.1, dtype=np.float32)


def test_the_mcts_agent_model_shares_its_rollouts_by_the_hand_computed_posterior():
    """Each rollout's mission comes from the posterior under the agent model's own action distribution: here a
    search made to say P(left) = 0.8 on get_night_snack and 0.2 on get_snack at every step."""
    prior = UniformPriors()(SCENARIO, "A")
    agent = MCTSAgent(BlindPolicy(), prior, PuctSettings(simulations=4))
    assert list(agent.prior) == ["get_night_snack", "get_snack"]

    def search(house, states, mission, index, subgoals=None):
        left = np.where(mission == 0, 0.8, 0.2)
        probs = np.repeat(((1 - left) / 9)[:, None], 10, axis=1)
        probs[:, L] = left
        return probs

    agent.search.policy = search
    evidence = evidence_after(kitchen(), [L, L], IDS[0])
    worlds = RolloutWorlds([evidence.world()], 20)
    agent.reset(worlds, evidence, np.random.default_rng(0))
    night = 0.5 * 0.8**2 / (0.5 * 0.8**2 + 0.5 * 0.2**2)  # 0.941: 18.8 of 20 rows, 19 by the largest remainder
    counts = np.bincount(worlds.episodes.progress[0].mission, minlength=2)
    np.testing.assert_array_equal(counts, share_rows(20, [night, 1 - night]))
    assert counts.tolist() == [19, 1]


def test_without_search_the_mcts_agent_model_keeps_the_prior():
    """K = 0 is the policy, which ignores the mission: the actions say nothing about it, the rows follow the prior."""
    agent = MCTSAgent(BlindPolicy(), UniformPriors()(SCENARIO, "A"), PuctSettings(simulations=0))
    evidence = evidence_after(kitchen(), [L, L, F], IDS[0])
    worlds = RolloutWorlds([evidence.world()], 20)
    agent.reset(worlds, evidence, np.random.default_rng(0))
    assert np.bincount(worlds.episodes.progress[0].mission, minlength=2).tolist() == [10, 10]


def softmax_first(a: float, b: float, eta: float = 5.0) -> float:
    return 1.0 / (1.0 + math.exp(eta * (b - a)))


@pytest.mark.parametrize(
    ("prior_a", "prior_b", "accuracy"),
    [
        # the label-free default: both agents alike before they act, so chance
        ({"get_night_snack": 0.5, "get_snack": 0.5}, {"get_night_snack": 0.5, "get_snack": 0.5}, 0.5),
        # the training labels at preference 1.0: told each agent's mission, right before anyone moves
        ({"get_night_snack": 1.0}, {"get_snack": 1.0}, softmax_first(1.0, 0.0)),
        # the training labels at preference 0.8
        (
            {"get_night_snack": 0.8, "get_snack": 0.2},
            {"get_night_snack": 0.2, "get_snack": 0.8},
            softmax_first(0.8, 0.2),
        ),
    ],
)
def test_accuracy_at_tau_0_is_what_the_prior_alone_says(prior_a, prior_b, accuracy):
    """Both agents stand facing the light: on get_night_snack the first action switches it on, on get_snack it is
    never switched. Before any evidence P(query | agent) is the prior's weight on get_night_snack, and the
    answer the protocol's softmax of the two: the accuracy at tau = 0 is the prior's, for ideal and for bip."""
    world = facing_the_light()
    scenario = get_scenario(SCENARIO)
    agents = tuple(evidence_after(world, [], identity, label) for identity, label in zip(IDS, "AB"))
    trial = TrialEvidence(scenario.question, scenario.query, SCENARIO, 5, 0, agents, QueryRules())
    ideal = IdealObserver(rollouts=3)
    ideal.setup(dict(zip(IDS, (prior_a, prior_b))))
    assert ideal.predict(trial)[0] == pytest.approx(accuracy)
    bip = BipMethod(rollouts=10)  # m in all, shared out by the prior: 5 and 5, 10 and 0, 8 and 2
    bip.setup({i: {"policy": Switcher(), "prior": p} for i, p in zip(IDS, (prior_a, prior_b))})
    assert bip.predict(trial)[0] == pytest.approx(accuracy)


def test_reports_show_the_accuracy_at_tau_0_beside_the_evidence_needed():
    trials = [
        TrialResult(f"t{i}", "s", 10, list(range(11)), [p0, *[1.0] * 10]) for i, p0 in enumerate((0.5, 1.0, 0.5, 1.0))
    ]
    run = RunResults("m", {}, trials)
    assert prior_only(run).startswith("0.75 [")
    assert run.summary()["overall"]["mean"][0] == pytest.approx(0.75)
