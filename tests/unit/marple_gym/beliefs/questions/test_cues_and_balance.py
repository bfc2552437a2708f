"""The cues a surface reader takes from a question's words, the shortcut rules built on them (each wins and loses
where it must on hand-written questions), and the balancing that leaves every rule at exactly one half."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from marple_gym.beliefs.questions.balance import SIGNED, balance_split, cell
from marple_gym.beliefs.questions.cues import RULES, CueError, places, read_text
from marple_gym.beliefs.questions.generate import PRESETS, QuestionSpec, make_questions
from marple_gym.beliefs.questions.question import QUESTION_TYPES
from marple_gym.world.assets import ASSETS

HOUSE = (
    "What's inside the apartment: The apartment has 2 rooms: a kitchen and a living room.\n"
    "In the kitchen there are a fridge, a cabinet and a table. Inside the fridge there is an apple. "
    "Inside the cabinet there are a plate and some water. On the table there is a fork.\n"
    "In the living room there are a cabinet and a sofa. Inside the cabinet there is a remote. "
    "The sofa has nothing on it. \n"
)


def text(actions: str, premise: str, a: str, b: str) -> str:
    return (
        f"{HOUSE}Actions taken by Alice: {actions} \nQuestion: {premise}, which one of the following statements is "
        f"more likely to be true? (a) {a} (b) {b} Please respond with either a or b."
    )


def belief(a_there: bool, piece: str, actions: str, thing: str = "apple") -> str:
    yes = f"Alice thinks that there is an {thing} inside {piece}."
    no = f"Alice thinks that there isn't any {thing} inside {piece}."
    return text(actions, f"If Alice has been trying to get an {thing}", *((yes, no) if a_there else (no, yes)))


PIECE = "the sofa in the living room"
GOES_TO_FRIDGE = "Alice is in the living room. She walks to the kitchen and goes to the fridge in the kitchen."
CLOSED_CABINET = "Alice is in the kitchen. She goes to the cabinet in the kitchen, opens it and closes it."


def test_a_reading_picks_out_the_options_the_premise_and_the_last_target():
    r = read_text(belief(True, "the fridge in the kitchen", GOES_TO_FRIDGE))
    assert r.is_belief and (r.options[0].positive, r.options[1].positive) == (True, False)
    assert r.options[0].piece == "the fridge in the kitchen" and r.options[0].object == "apple"
    assert (r.target, r.verb, r.premise_object) == ("the fridge in the kitchen", "goes to", "apple")
    assert r.house["the cabinet in the kitchen"] == ("plate", "water")
    assert r.house["the cabinet in the living room"] == ("remote",)
    # "it" is the piece the clause before named; an earlier version's heading counts as a target too.
    assert read_text(belief(True, "the sofa in the living room", CLOSED_CABINET)).target == "the cabinet in the kitchen"
    old = "Alice is in the kitchen. She opens it and walks towards the sofa in the living room."
    assert read_text(belief(True, "the sofa in the living room", old)).target == "the sofa in the living room"
    with pytest.raises(CueError, match="options"):
        read_text(HOUSE + "Actions taken by Alice: x \nQuestion: Which?")


@pytest.mark.parametrize(
    ("rule", "question", "right", "choice"),
    [
        ("always (a)", belief(True, "the fridge in the kitchen", GOES_TO_FRIDGE), 0, 0),
        ("always there is", belief(False, "the fridge in the kitchen", GOES_TO_FRIDGE), 1, 1),
        ("always there is", belief(False, "the cabinet in the kitchen", CLOSED_CABINET), 0, 1),
        # The last target: "there is" for the container named last, "there isn't" for any other.
        ("last target", belief(True, "the fridge in the kitchen", GOES_TO_FRIDGE), 0, 0),
        ("last target", belief(True, "the cabinet in the kitchen", CLOSED_CABINET), 1, 0),
        ("last target", belief(True, "the cabinet in the living room", GOES_TO_FRIDGE), 1, 1),
        # ...and for a goal, the object the description puts in it.
        (
            "last target",
            text(GOES_TO_FRIDGE, "If Alice thinks there isn't an apple inside the fridge in the kitchen",
                 "Alice has been trying to get a remote.", "Alice has been trying to get an apple."),
            0, 1,
        ),
        (
            "the premise's object",
            text(GOES_TO_FRIDGE, "If Alice thinks there isn't an apple inside the fridge in the kitchen",
                 "Alice has been trying to get an apple.", "Alice has been trying to get a remote."),
            1, 0,
        ),
        (
            "longer option",
            text(GOES_TO_FRIDGE, "Hmm", "Alice has been trying to get a remote.", "Alice has been trying to get a fork."),
            1, 0,
        ),
        (
            "more words from the narration",
            text("Alice is in the kitchen. She goes to the table in the kitchen and takes a fork from it.", "Hmm",
                 "Alice has been trying to get an apple.", "Alice has been trying to get a fork."),
            1, 1,
        ),
    ],
)  # fmt: skip
def test_each_rule_chooses_by_its_cue_alone_right_or_wrong(rule, question, right, choice):
    """Each rule picks the option its cue names, whether or not it is the right one (``right``: the answer a
    question like it would have): it wins on some of these cases and loses on others."""
    assert RULES[rule](read_text(question)) == choice


def test_every_rule_both_wins_and_loses_on_the_hand_written_cases():
    cases = test_each_rule_chooses_by_its_cue_alone_right_or_wrong.pytestmark[0].args[1]
    outcomes = collections.defaultdict(set)
    for rule, _, right, choice in cases:
        outcomes[rule].add(choice == right)
    assert all(outcomes[r] == {True, False} for r in ("always there is", "last target"))


def test_the_object_that_could_be_in_more_places_is_counted_from_the_described_house_and_what_goes_where():
    r = read_text(text(GOES_TO_FRIDGE, "Hmm", "Alice has been trying to get the apple.",
                       "Alice has been trying to get the remote."))  # fmt: skip
    assert r.pieces == (("electric_refrigerator", "Kitchen"), ("cabinet", "Kitchen"), ("table", "Kitchen"),
                        ("cabinet", "LivingRoom"), ("sofa", "LivingRoom"))  # fmt: skip
    counts = [places(r, o.object) for o in r.options]
    expected = []
    for thing in ("apple", "remote"):
        kind = ASSETS.object_type(thing)
        expected.append(sum(kind.category in ASSETS.furniture_type(f).accepts and room in kind.rooms
                            for f, room in r.pieces))  # fmt: skip
    assert counts == expected and counts[0] != counts[1]
    assert RULES["the object that could be in more places"](r) == int(counts[1] > counts[0])
    assert RULES["the object that could be in more places"](read_text(belief(True, PIECE, GOES_TO_FRIDGE))) is None


def test_a_rule_abstains_where_its_cue_says_nothing():
    goal = text(CLOSED_CABINET, "Hmm", "Alice has been trying to get an apple.", "Alice has been trying to get a fork.")
    r = read_text(goal)
    assert RULES["always there is"](r) is None  # no polarity in a goal question
    assert RULES["the premise's object"](r) is None  # no premise
    assert RULES["last target"](r) is None  # neither object in the cabinet just closed
    assert RULES["longer option"](read_text(belief(True, "the sofa in the living room", "Alice waits."))) == 1


@pytest.fixture(scope="module")
def pool():
    spec = QuestionSpec(seed=0, **PRESETS["quick"])
    return [q for k, i in spec.episodes("test") for q in make_questions(spec, "test", k, i)]


def test_a_balanced_split_leaves_every_rule_at_exactly_one_half_on_every_type(pool):
    balanced = balance_split(pool, np.random.default_rng(0))
    counts = collections.Counter(q.type for q in balanced)
    assert set(counts) == set(QUESTION_TYPES) and len(set(counts.values())) == 1  # every type, as many
    for kind in QUESTION_TYPES:
        group = [q for q in balanced if q.type == kind]
        assert sum(q.answer == 0 for q in group) * 2 == len(group)  # always (a): one half
        for k, name in enumerate(SIGNED):
            signs = [cell(q)[1][k] for q in group]
            assert signs.count(1) == signs.count(-1), (kind, name)  # right exactly as often as wrong
    cuts = [(q.episode.id, q.type, q.end_time) for q in balanced]
    assert len(cuts) == len(set(cuts))  # at most one question of a type at a moment
    assert balance_split(pool, np.random.default_rng(0)) == balanced


def test_a_balanced_split_keeps_only_what_it_can_pair(pool):
    one_sided = [q for q in pool if q.type == "1.2" and q.options[q.answer].inside]
    assert one_sided and balance_split(one_sided, np.random.default_rng(0)) == []
    assert len(balance_split(pool, np.random.default_rng(0), limit=4)) == 4 * len(QUESTION_TYPES)
