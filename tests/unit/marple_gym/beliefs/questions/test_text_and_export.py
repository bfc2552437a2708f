"""The text condition and the MMToM-QA export: the text tells what a person needs, the export has exactly the
release's fields and types, MMToM-QA's own way of reading the file works on it, and it reads back whole."""

from __future__ import annotations

import json

import numpy as np
import pytest
from search_houses import piece, two_rooms

from marple_gym.beliefs.episodes import false_belief_episode, search_episode
from marple_gym.beliefs.questions.export import (
    BELIEFS,
    MMTOM_FIELDS,
    QUESTIONS,
    check_mmtom_row,
    check_mmtom_rows,
    read_questions,
    write_questions,
)
from marple_gym.beliefs.questions.generate import QuestionSpec, make_questions
from marple_gym.beliefs.questions.moments import episode_questions
from marple_gym.beliefs.questions.question import QuestionError
from marple_gym.beliefs.questions.text import describe_house, narrate, object_phrase, question_text
from marple_gym.generation import generate_world

CONTENTS = {"fridge": "apple", "kitchen cabinet": "plate", "table": "fork", "living cabinet": "remote"}


@pytest.fixture(scope="module")
def questions():
    config = two_rooms(CONTENTS)
    prior = [piece("fridge"), piece("kitchen cabinet"), piece("table")]
    episode = search_episode(np.random.default_rng(0), config, goal="apple", prior=prior, episode_id="e")
    sally = false_belief_episode(np.random.default_rng(3), episode_id="sally-anne")
    rng = np.random.default_rng(0)
    return episode_questions(episode, rng, per_type=2) + episode_questions(sally, rng, names=("Carol", "David"))


def test_the_house_is_described_room_by_room_with_every_container_s_contents():
    world = generate_world(two_rooms({**CONTENTS, "sofa": "water"}), np.random.default_rng(0))
    text = describe_house(world.house, world.state)
    assert text.startswith("The apartment has 2 rooms: a kitchen and a living room.")
    assert "Inside the fridge there is an apple." in text and "On the table there is a fork." in text
    assert "Inside the cabinet there is a remote." in text and "On the sofa there is some water." in text
    assert object_phrase("knife", 2) == "two knives" and object_phrase("strawberry", 3) == "three strawberries"


def test_a_question_reads_as_mmtom_qa_asks_it(questions):
    q = next(q for q in questions if q.type == "1.1" and q.end_time == 9)
    text = question_text(q)
    head, rest = text.split(" \nActions taken by Alice: ")
    actions, question = rest.split(" \nQuestion: ")
    assert head.startswith("What's inside the apartment: The apartment has 2 rooms")
    assert actions == "Alice is in the living room. She walks to the kitchen and goes to the cabinet in the kitchen."
    assert question.startswith("If Alice has been trying to get the ")
    assert "Alice thinks that there is a" in question and "inside the cabinet in the kitchen." in question
    assert question.endswith("Please respond with either a or b.")


def test_the_narration_names_each_piece_with_its_room_and_tells_where_the_searcher_heads_not_where_it_goes(
    questions,
):
    episode = questions[0].episode
    assert narrate(episode, 4, ("Alice",)) == "Alice is in the living room. She heads for the door to the kitchen."
    # At the cut the searcher faces the cabinet: told; the fridge it opens next: not told.
    before = narrate(episode, 18, ("Alice",))
    assert before.endswith("opens it, closes it and goes to the fridge in the kitchen.")
    assert "fridge" not in narrate(episode, 17, ("Alice",)).split("closes it")[1].replace("passes the fridge", "")


def test_the_sally_anne_story_is_told_with_both_agents_and_no_it_without_its_piece(questions):
    q = next(q for q in questions if q.episode.kind == "false-belief")
    actions = narrate(q.episode, q.episode.length, ("Carol", "David"))
    assert actions.startswith("Carol is in the kitchen. David is in the living room.")
    # Carol puts the object away herself; David moves it while she waits; every sentence names its piece before
    # "it".
    assert "Carol" in actions and "takes a dustpan from it" in actions and "puts a dustpan inside it" in actions
    assert actions.index("Carol passes") < actions.index("David walks")
    for sentence in actions.split(". ")[2:]:
        words = sentence.split(", ")
        assert " it" not in words[0] or "the " in words[0], sentence


def test_the_export_has_exactly_mmtom_qas_fields_and_reads_back_equal(questions, tmp_path):
    write_questions(questions, tmp_path / "set")
    assert check_mmtom_rows(tmp_path / "set" / QUESTIONS) == len(questions)
    rows = [json.loads(line) for line in (tmp_path / "set" / QUESTIONS).read_text().splitlines()]
    assert all(set(r) == set(MMTOM_FIELDS) and all(type(r[k]) is t for k, t in MMTOM_FIELDS.items()) for r in rows)
    assert read_questions(tmp_path / "set") == questions
    # What MMToM-QA's evaluation reads of each line: the text, the answer, the type, the inputs and the cut.
    correct: dict[str, int] = {}
    for vqa in rows:
        prompt = vqa["question"] + "\nAnswer: "
        key = f"{vqa['test']} + type {vqa['question_type']}"
        correct[key] = correct.get(key, 0) + (vqa["answer"] == "a")
        assert prompt.count("\nQuestion:") == 1 and vqa["end_time"] >= vqa["start_time"]
    assert {k.split(" + ")[0] for k in correct} == {"['init_graph', 'actions']"}
    assert {float(k.split("type ")[1]) for k in correct} <= {1.1, 1.2, 1.3, 2.1, 2.2, 2.3, 2.4}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.pop("answer_list"), "answer_list: missing"),
        (lambda r: r.update(question_type="1.1"), "question_type: expected a JSON float"),
        (lambda r: r.update(question_type=3.1), "question_type: expected one of"),
        (lambda r: r.update(answer="c"), "answer: expected one of"),
        (lambda r: r.update(episode=1.0), "episode: expected a JSON int"),
        (lambda r: r.update(video="x.mp4"), "video: unknown key"),
    ],
)
def test_a_line_off_the_release_format_is_refused_naming_the_field(questions, change, message):
    from marple_gym.beliefs.questions.export import mmtom_row

    row = mmtom_row(questions[0], 0)
    check_mmtom_row(row)
    change(row)
    with pytest.raises(QuestionError, match=message):
        check_mmtom_row(row, "questions.jsonl", "line 3")


def test_an_edited_question_file_is_refused_naming_file_and_line(questions, tmp_path):
    folder = write_questions(questions[:3], tmp_path / "set")
    lines = (folder / QUESTIONS).read_text().splitlines()
    row = json.loads(lines[1])
    row["answer"] = "b" if row["answer"] == "a" else "a"
    lines[1] = json.dumps(row)
    (folder / QUESTIONS).write_text("\n".join(lines) + "\n")
    with pytest.raises(QuestionError, match=r"questions.jsonl: line 2: does not match"):
        read_questions(folder)
    (folder / BELIEFS).write_text((folder / BELIEFS).read_text().replace('"type": "', '"type": "9', 1))
    with pytest.raises(QuestionError, match=r"beliefs.jsonl: line 1.type: expected one of"):
        read_questions(folder)


def test_questions_are_a_pure_function_of_the_spec_and_their_index():
    spec = QuestionSpec(seed=3, test_houses=2, episodes_per_house=2, false_belief=0.5)
    first = make_questions(spec, "test", 1, 1)
    assert first == make_questions(spec, "test", 1, 1)
    assert all(q.episode.id == "test/h001/0001" and q.split == "test" for q in first)
    assert make_questions(spec, "train", 0, 0) != first
    with pytest.raises(ValueError, match="split must be one of"):
        make_questions(spec, "dev", 0, 0)
    with pytest.raises(ValueError, match="unknown question types"):
        QuestionSpec(types=("3.1",))


def test_a_posterior_that_rounds_above_one_is_written_within_zero_and_one_and_reads_back(tmp_path):
    from marple_gym.beliefs.questions import QuestionSpec, make_questions, read_questions, write_questions

    questions = make_questions(QuestionSpec(seed=0), "test", 2, 16)  # its 1.2 question's P(a) summed to 1 + 2e-16
    assert all(0.0 <= q.posterior <= 1.0 for q in questions)
    assert read_questions(write_questions(questions, tmp_path)) == questions
