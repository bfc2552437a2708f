"""The shortcut panel: its rules answer as methods do, its classifier finds a cue planted in the training questions
and nothing in balanced ones, and a set whose panel fails is marked so beside its manifest and in its table."""

from __future__ import annotations

import json

import numpy as np
import pytest

from marple_eval.beliefs.panel import (
    ShortcutRule,
    TextClassifier,
    TextQuestion,
    check_set,
    cross_fitted,
    fit_logistic,
    format_verdict,
    panel_methods,
    panel_scores,
    verdict,
)
from marple_eval.beliefs.scoring import format_table
from marple_gym.beliefs.questions import QuestionSpec, generate_question_set, read_panel
from marple_gym.beliefs.questions.sets import PANEL

HOUSE = (
    "What's inside the apartment: The apartment has 1 rooms: a kitchen.\n"
    "In the kitchen there are a fridge and a cabinet. Inside the fridge there is an apple. "
    "Inside the cabinet there is a plate. \n"
)
PIECES = ("the fridge in the kitchen", "the cabinet in the kitchen")


def belief_question(n: int, there_is_right: bool, right_first: bool, kind: str = "1.1") -> TextQuestion:
    """A belief question about piece ``n % 2``, its "there is" statement right or not, in either order."""
    piece = PIECES[n % 2]
    yes = f"Alice thinks that there is an apple inside {piece}."
    no = f"Alice thinks that there isn't any apple inside {piece}."
    right, wrong = (yes, no) if there_is_right else (no, yes)
    a, b = (right, wrong) if right_first else (wrong, right)
    actions = f"Alice is in the kitchen. She goes to {PIECES[(n // 2) % 2]}."
    text = (
        f"{HOUSE}Actions taken by Alice: {actions} \nQuestion: If Alice has been trying to get an apple, which one "
        f"of the following statements is more likely to be true? (a) {a} (b) {b} Please respond with either a or b."
    )
    return TextQuestion(text, kind, 0 if right_first else 1, f"episode-{n // 4}")


def questions(n: int, planted: bool, seed: int) -> list[TextQuestion]:
    """``n`` questions whose answer is "there is" always (``planted``) or half the time, in a random order."""
    rng = np.random.default_rng(seed)
    return [belief_question(i, planted or bool(i % 2), bool(rng.random() < 0.5)) for i in range(n)]


def test_a_rule_answers_as_a_method_does_and_says_what_it_reads():
    rule = ShortcutRule("always there is")
    q = belief_question(0, there_is_right=True, right_first=False)
    assert rule.answer(q) == (0.0, 1.0) and rule.role == "shortcut" and rule.reads == {"options"}
    assert ShortcutRule("the premise's object").answer(q) == (0.5, 0.5)  # both options name the apple: abstains
    assert {m.name for m in panel_methods()} >= {"always (a)", "last target", "longer option"}
    with pytest.raises(ValueError, match="unknown shortcut rule"):
        ShortcutRule("coin")


def test_the_logistic_regression_recovers_a_separating_direction():
    rng = np.random.default_rng(0)
    x = np.column_stack([np.ones(400), rng.normal(size=400)])
    y = (x[:, 1] + 0.3 * rng.normal(size=400) > 0).astype(float)
    w = fit_logistic(x, y, penalty=1.0)
    assert w[1] > 2 and abs(w[0]) < 0.5


def test_the_classifier_finds_a_cue_planted_in_its_training_questions_and_nothing_in_balanced_ones():
    planted = TextClassifier().fit(questions(120, planted=True, seed=1))
    test = questions(80, planted=True, seed=2)
    right = [np.argmax(planted.answer(q)) == q.answer for q in test]
    assert np.mean(right) == 1.0 and planted.role == "shortcut"
    balanced = TextClassifier().fit(questions(120, planted=False, seed=1))
    test = questions(80, planted=False, seed=2)
    right = [np.argmax(balanced.answer(q)) == q.answer for q in test]
    assert 0.3 < np.mean(right) < 0.7
    with pytest.raises(ValueError, match="training questions"):
        TextClassifier().fit([])
    with pytest.raises(RuntimeError, match="fit"):
        TextClassifier().answer(test[0])


def test_without_a_training_split_the_classifier_is_cross_fitted_over_episodes():
    qs = questions(80, planted=True, seed=3)
    answers = cross_fitted(qs)
    assert np.mean([np.argmax(a) == q.answer for a, q in zip(answers, qs)]) == 1.0
    assert "text classifier (cross-fitted)" in panel_scores(qs)


def test_a_planted_cue_fails_the_panel_and_the_verdict_names_the_rule_and_type():
    scores = panel_scores(questions(80, planted=True, seed=4), questions(80, planted=True, seed=5))
    result = verdict(scores)
    assert not result["passes"]
    failing = {(f["rule"], f["type"]) for f in result["failures"]}
    assert ("always there is", "1.1") in failing and ("text classifier", "1.1") in failing
    line = format_verdict(result)
    assert line.startswith("shortcut panel: **fails**") and "always there is on 1.1: 1.00" in line
    assert "| 1.1 true belief, short-term | 80 |" in format_table(scores)


@pytest.fixture(scope="module")
def tiny_set(tmp_path_factory):
    root = tmp_path_factory.mktemp("panel") / "set"
    spec = QuestionSpec(seed=0, test_houses=2, episodes_per_house=6, train_episodes=12, false_belief=0.5)
    generate_question_set(spec, root, workers=1, progress=False)
    return root


def test_a_sets_verdict_is_recorded_beside_its_manifest(tiny_set):
    assert read_panel(tiny_set) is None
    result = check_set(tiny_set)
    recorded = read_panel(tiny_set)
    assert recorded == json.loads(json.dumps(result)) and (tiny_set / PANEL).is_file()
    assert set(recorded["scores"]) == {m.name for m in panel_methods()} | {"text classifier"}
    assert recorded["passes"] == (not recorded["failures"] and not recorded["undecided"])
