"""The learned belief policy and ``bip``: a short training run writes a checkpoint that loads back (and refuses
a whodunit policy's), its inputs carry the belief and not the true state, and ``bip`` answers questions."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch
from search_houses import piece, two_rooms

from marple_agents.beliefs.bip import BeliefBip, LearnedModel
from marple_agents.beliefs.policy import belief_marks, load_belief_policy, policy_vision
from marple_agents.beliefs.training import collect_samples, train_belief_policy
from marple_agents.checkpoints import CheckpointError, save_checkpoint
from marple_agents.config import ModelConfig
from marple_agents.networks import build_model
from marple_eval.beliefs.methods import BeliefObserver
from marple_eval.beliefs.scoring import score
from marple_gym.beliefs.belief import ObjectBelief
from marple_gym.beliefs.episodes import search_episode
from marple_gym.beliefs.questions.generate import QuestionSpec, make_episode, make_questions
from marple_gym.beliefs.questions.posterior import InversePlanner
from marple_gym.beliefs.questions.question import Statement
from marple_gym.world.state import CH_OBJ

SPEC = QuestionSpec(seed=5, test_houses=2, episodes_per_house=2, train_episodes=6)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    torch.set_num_threads(1)
    episodes = [make_episode(SPEC, "train", k, i) for k, i in SPEC.episodes("train")]
    out = tmp_path_factory.mktemp("belief-policy")
    return train_belief_policy(episodes, out, max_steps=15, val_fraction=0.2, seed=0)


def test_the_inputs_hide_what_lies_on_furniture_and_mark_the_belief():
    episode = search_episode(np.random.default_rng(0), two_rooms({"fridge": "apple", "table": "fork"}), goal="apple")
    trace = episode.trace()
    house, state = trace.house, trace.states[0]
    assert state.grid[2, 2, CH_OBJ] and not policy_vision(house, state)[2, 2, CH_OBJ]
    marks = belief_marks(house, ObjectBelief(1 << piece("fridge") | 1 << piece("table"), None))
    assert marks[1:4, 1:3].tolist() == [[1, 1]] * 3 and marks[6, 4] == 1 and marks.sum() == 6 + 6
    assert belief_marks(house, ObjectBelief(1 << piece("fridge"), (2, 2)))[2, 2] == 2
    samples = collect_samples([episode])
    assert len(samples) == episode.found and (samples.goal == episode.goal_code).all()


def test_a_training_run_writes_a_belief_policy_that_loads_back(trained, tmp_path):
    policy = load_belief_policy(trained.checkpoint)
    assert trained.steps == 15 and 0.0 <= trained.val_accuracy <= 1.0 and trained.val_samples > 0
    assert policy.meta["kind"] == "belief-policy" and policy.meta["steps"] == 15
    whodunit = save_checkpoint(tmp_path / "policy.pt", build_model(ModelConfig()), ModelConfig())
    with pytest.raises(CheckpointError, match="not a belief policy"):
        load_belief_policy(whodunit)


def test_bip_answers_with_the_learned_likelihood_each_distinct_input_once(trained):
    questions = make_questions(SPEC, "test", 0, 0) + make_questions(SPEC, "test", 1, 1)
    assert questions
    bip = BeliefBip(trained.checkpoint)
    answers = bip.answer_all(questions)
    assert all(a + b == pytest.approx(1.0) and 0 <= a <= 1 for a, b in answers)
    scores = score(questions, answers)
    assert scores["all"]["n"] == len(questions) and scores["all"]["brier"] <= 1.0
    # The learned model's batched answer equals asking input by input.
    episode = questions[0].episode
    planner = InversePlanner(episode, LearnedModel(bip.policy))
    goal = episode.goal_code
    steps = list(planner.evidence)[:5]
    supports, _, beliefs = planner.hypotheses(goal)
    table = [[b[t] for t in steps] for b in beliefs[:2]]
    batched = planner.model.action_probabilities(planner.trace, goal, steps, table)
    one = planner.model.action_probabilities(planner.trace, goal, steps[:1], [table[1][:1]])
    assert batched[1, 0] == pytest.approx(one[0, 0], rel=1e-5)
    assert BeliefObserver().answer(questions[0]) == pytest.approx(questions[0].normative)


@pytest.mark.slow
def test_bip_trained_on_the_training_houses_beats_chance_on_test_houses(tmp_path):
    from marple_agents.beliefs import BeliefBipPrivileged

    spec = QuestionSpec(seed=0, test_houses=3, episodes_per_house=8, train_episodes=150)
    episodes = [make_episode(spec, "train", k, i) for k, i in spec.episodes("train")]
    result = train_belief_policy(episodes, tmp_path, max_steps=600, seed=0)
    questions = [q for k, i in spec.episodes("test") for q in make_questions(spec, "test", k, i)]
    readable = score(questions, BeliefBip(result.checkpoint).answer_all(questions))
    privileged = score(questions, BeliefBipPrivileged(result.checkpoint).answer_all(questions))
    assert result.val_accuracy > 0.6 and readable["all"]["n"] >= 40
    assert readable["belief"]["accuracy"] > 0.7 and privileged["all"]["accuracy"] > 0.7


def test_bip_reads_a_uniform_belief_over_the_houses_places_and_takes_its_hypotheses_from_the_question():
    from marple_agents.beliefs import BeliefBip, BeliefBipPrivileged
    from marple_gym.beliefs.locations import locations_of
    from marple_gym.beliefs.questions.posterior import UniformPriors

    q = next(q for q in make_questions(SPEC, "test", 0, 0) if q.type.startswith("1."))
    house = q.episode.trace().house
    priors = BeliefBip.priors(None, q)
    everywhere = locations_of(house).all
    assert priors == UniformPriors(q.options[0].piece)
    supports, weights = priors.supports(house, q.episode.goal_code)
    assert supports == (everywhere, everywhere & ~(1 << q.options[0].piece)) and list(weights) == [0.5, 0.5]
    assert priors.restart(house, q.episode.goal_code) == everywhere  # not the generator's candidates
    assert BeliefBipPrivileged.priors(None, q) is None and BeliefBipPrivileged.name == "bip-privileged"
    goal_question = replace(q, options=(Statement(goal="apple"), Statement(goal="cup")), given=None)
    assert BeliefBip.priors(None, goal_question) == UniformPriors(-1)
