"""`marple study`: trials, the responses file, the session's states, and the app driven by scripted events."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pygame
import pytest

from marple.cli import study
from marple.cli.main import build_parser, main
from marple.study import ResponseLog, StudyError, StudyState, make_trials, trial_order
from marple.study.app import Layout, StudyApp, full_question
from marple.study.desk import run_study
from marple.study.session import SessionPlan
from marple.study.trials import culprit_sides
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset
from marple_gym.recording.records import evidence_steps


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("data")
    spec = DatasetSpec([Unit.scenario("pillow")], Sizes(1, 3, 1, 1), seed=11, splits=("test",))
    generate_dataset(spec, root, workers=1, progress=False)
    return root


@pytest.fixture(scope="module")
def episodes(data_dir):
    return list(MarpleDataset(data_dir).whodunit("pillow"))


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def new_log(path, ids, seed=7, **extra) -> ResponseLog:
    session = {
        "participant": "p01",
        "seed": seed,
        "dataset": "d",
        "scenario": "pillow",
        "modality": "vision",
        "trials": None if seed is None else trial_order(ids, seed),
        **extra,
    }
    return ResponseLog.open(path, session)


# ---- trials ------------------------------------------------------------------------------------
def test_order_and_sides_follow_the_seed_and_sides_are_balanced(episodes):
    ids = [e.episode_id for e in episodes]
    assert trial_order(ids, 3) == trial_order(ids, 3) and sorted(trial_order(ids, 3)) == sorted(ids)
    assert len({tuple(trial_order(ids, s)) for s in range(10)}) > 1
    for n in (4, 5, 50):
        sides = culprit_sides(n, seed=1)
        assert abs(sides.count("A") - sides.count("B")) <= 1
    assert culprit_sides(50, 1) == culprit_sides(50, 1) != culprit_sides(50, 2)
    trials = make_trials(episodes, trial_order(ids, 3), 3)
    for trial in trials:
        culprit = trial.episode.trajectories[trial.episode.culprit]
        assert (trial.left is culprit) == (trial.culprit_shown_as == "A")
        assert (trial.right is culprit) == (trial.culprit_shown_as == "B")
    with pytest.raises(StudyError, match="lacks"):
        make_trials(episodes, ["pillow/h07/000"], 3)


# ---- the responses file ------------------------------------------------------------------------
def test_the_file_starts_with_the_session_and_each_answer_is_on_disk_at_once(episodes, tmp_path):
    path = tmp_path / "r.jsonl"
    ids = [e.episode_id for e in episodes]
    log = new_log(path, ids)
    trial = make_trials(episodes, log.session["trials"], 7)[0]
    session = lines(path)[0]
    assert session["type"] == "session" and session["trials"] == trial_order(ids, 7) and session["seed"] == 7
    keys = {"type", "participant", "seed", "dataset", "scenario", "modality", "trials", "practice", "started"}
    assert set(session) == keys and session["practice"] == []
    log.record(trial, 3, 64)
    answer = lines(path)[1]
    assert answer == {
        **answer,
        "type": "answer",
        "episode_id": trial.episode_id,
        "evidence_point": 3,
        "tau": trial.evidence_steps[3],
        "horizon": trial.horizon,
        "slider": 64,
        "trial_index": 0,
        "culprit_shown_as": trial.culprit_shown_as,
        "scenario": "pillow",
        "participant": "p01",
    }
    with pytest.raises(ValueError):
        log.record(trial, 4, 101)


def test_resuming_keeps_the_session_drops_a_half_written_line_and_refuses_another_session(episodes, tmp_path):
    path = tmp_path / "r.jsonl"
    ids = [e.episode_id for e in episodes]
    log = new_log(path, ids)
    trial = make_trials(episodes, log.session["trials"], 7)[0]
    log.record(trial, 0, 10)
    with path.open("a") as f:
        f.write('{"type": "answer", "partic')  # the app died mid-write
    resumed = new_log(path, ids, seed=None)
    assert resumed.session["seed"] == 7 and resumed.answered(trial.episode_id) == {0: 10}
    resumed.record(trial, 1, 20)
    assert [e["type"] for e in lines(path)] == ["session", "answer", "answer"]
    with pytest.raises(StudyError, match="participant"):
        ResponseLog.open(path, {"participant": "p02", "modality": "vision"})
    with pytest.raises(StudyError, match="seed"):
        new_log(path, ids, seed=8)
    (tmp_path / "other.txt").write_text("hello\n")
    with pytest.raises(StudyError, match="other.txt: line 1: malformed JSON"):
        ResponseLog.open(tmp_path / "other.txt", {"participant": "p01"})


# ---- the session's states ----------------------------------------------------------------------
@dataclass
class ShortEpisode:
    """Just enough of a WhodunitEpisode for the state machine: a horizon under ten steps."""

    episode_id: str
    horizon: int = 4
    scenario: str = "pillow"
    culprit: int = 0
    trajectories: tuple = (None, None)
    question: str = "Who picked up the pillow?"

    def evidence_steps(self):
        return evidence_steps(self.horizon)


def test_the_state_machine_asks_at_each_evidence_point_and_one_answer_fills_shared_steps(tmp_path):
    episodes = [ShortEpisode("x/0"), ShortEpisode("x/1", horizon=12)]
    log = new_log(tmp_path / "r.jsonl", ["x/0", "x/1"], seed=0)
    state = StudyState(make_trials(episodes, log.session["trials"], 0), log)
    assert state.phase == "intro"
    state.advance()
    first = state.trial
    assert state.phase == "ask" and state.t == 0
    assert not state.submit()  # the slider must be set first
    state.set_slider(130)
    assert state.slider == 100 and state.submit()
    asked = [0]
    while state.phase != "between":
        if state.phase == "watch":
            assert state.can_step
            state.advance()
        else:
            asked.append(state.t)
            state.nudge(-5)
            state.submit()
    assert asked == sorted(set(first.evidence_steps))  # shared taus asked once
    answers = [a for a in log.answers if a["episode_id"] == first.episode_id]
    assert [a["evidence_point"] for a in answers] == list(range(11))
    assert [a["tau"] for a in answers] == first.evidence_steps
    assert answers[-1]["slider"] == 100 - 5 * (len(asked) - 1)  # each point starts from the last answer
    state.advance()
    assert state.trial is not first and state.phase == "ask"


# ---- the app, driven like a participant ----------------------------------------------------------
def key(k: int) -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=k, mod=0)


def mouse(kind: int, pos: tuple[int, int]) -> pygame.event.Event:
    if kind == pygame.MOUSEMOTION:
        return pygame.event.Event(kind, pos=pos, rel=(0, 0), buttons=(1, 0, 0))
    return pygame.event.Event(kind, pos=pos, button=1)


def participant(app: StudyApp, answers, give_up_after: int | None = None, check_file=None):
    """Event batches that react to what the app shows: click Next, step with Space, drag the slider, submit."""
    lay, given = app.layout, 0
    while app.state.phase != "done":
        s = app.state
        if s.phase in ("intro", "between"):
            yield [mouse(pygame.MOUSEBUTTONDOWN, lay.centre(lay.next_button))]
        elif s.phase == "watch":
            yield [key(pygame.K_SPACE)] if given % 2 else [key(pygame.K_RIGHT)]
        else:
            if give_up_after is not None and given == give_up_after:
                return  # the participant closes the window (or the machine crashes)
            y, value = lay.slider[2], next(answers)
            yield [key(pygame.K_RETURN)]  # not submitted: the slider was not touched yet
            yield [mouse(pygame.MOUSEBUTTONDOWN, (lay.slider_x(s.slider), y))]
            yield [mouse(pygame.MOUSEMOTION, (lay.slider_x(value), y))]
            yield [mouse(pygame.MOUSEBUTTONUP, (lay.slider_x(value), y))]
            yield [mouse(pygame.MOUSEBUTTONDOWN, lay.centre(lay.submit_button))]
            given += 1
            if check_file is not None:
                check_file(given)


def study_args(data_dir, out, *extra):
    return build_parser().parse_args(
        ["study", "--data", str(data_dir), "--participant", "p01", "--out", str(out), "--tile-size", "8", *extra]
    )


def test_a_whole_session_by_mouse_and_keys_is_saved_answer_by_answer_and_scores(data_dir, tmp_path):
    out = tmp_path / "p01.jsonl"
    state = study.session_of(study_args(data_dir, out, "--seed", "5"))
    app = StudyApp(state, "vision", tile_size=8, sound=False)
    values = iter(range(1, 100, 2))

    def on_disk(given):  # each answer is in the file before the participant goes on
        assert sum(1 for line in lines(out) if line["type"] == "answer") == given

    try:
        app.run(participant(app, values, check_file=on_disk))
    finally:
        app.close()
    assert state.phase == "done"
    practice = [e for e in lines(out) if e.get("block") == "practice"]
    answers = [e for e in lines(out) if e["type"] == "answer" and "block" not in e]
    trials = {t.episode_id: t for t in state.trials}
    assert len(answers) == 11 * len(trials) and len(practice) == 11
    assert [a["slider"] for a in practice + answers] == list(range(1, 100, 2))[: len(practice + answers)]
    for a in answers:
        trial = trials[a["episode_id"]]
        assert a["culprit_shown_as"] == trial.culprit_shown_as and a["tau"] == trial.evidence_steps[a["evidence_point"]]
    assert [a["trial_index"] for a in answers[::11]] == [0, 1, 2]

    from marple.study.human import read_responses

    run = read_responses([out])
    assert len(run.trials) == len(trials)


def test_a_session_stopped_midway_resumes_without_losing_or_repeating_answers(data_dir, tmp_path, capsys):
    out = tmp_path / "p01.jsonl"
    args = study_args(data_dir, out, "--seed", "9")
    state = study.session_of(args)
    app = StudyApp(state, "vision", tile_size=8, sound=False)
    try:
        app.run(participant(app, iter(range(100)), give_up_after=25))  # practice and trial 1 done, trial 2 in part
    finally:
        app.close()
    assert sum(1 for e in lines(out) if e["type"] == "answer") == 25
    resumed = study_args(data_dir, out)  # no --seed: the file's session is resumed, without the practice again
    study.run(resumed, events=lambda app: participant(app, iter(range(100))))
    answers = [e for e in lines(out) if e["type"] == "answer"]
    keys = [(a["episode_id"], a["evidence_point"]) for a in answers]
    assert len(keys) == len(set(keys)) == 11 + 33
    assert [e["type"] for e in lines(out)].count("session") == 1
    assert "33 answers (and 11 to practice trials), 3 of 3 trials complete" in capsys.readouterr().out
    study.run(resumed, events=[[key(pygame.K_SPACE)], [key(pygame.K_SPACE)]])  # nothing left to answer
    assert len(lines(out)) == 1 + 11 + 33
    with pytest.raises(SystemExit):
        main(["study", "--help"])


def test_a_new_session_that_fails_before_its_first_answer_leaves_no_file_and_one_after_keeps_it(data_dir, tmp_path):
    def crashes(app):
        raise RuntimeError("the window died")

    out = tmp_path / "p01.jsonl"
    with pytest.raises(RuntimeError):
        run_study(data_dir, out, "p01", SessionPlan(seed=5), tile_size=8, sound=False, events=crashes)
    assert not out.exists()  # running again starts afresh

    def answers_once_then_crashes(app):
        yield from participant(app, iter(range(100)), give_up_after=1)
        raise RuntimeError("the window died")

    with pytest.raises(RuntimeError):
        run_study(data_dir, out, "p01", SessionPlan(seed=5), tile_size=8, sound=False, events=answers_once_then_crashes)
    assert sum(1 for e in lines(out) if e["type"] == "answer") == 1  # kept: running again resumes it


def test_the_practice_block_comes_first_says_who_it_was_and_is_not_scored(data_dir, tmp_path):
    from marple.study.human import read_responses

    out = tmp_path / "p01.jsonl"
    state = study.session_of(study_args(data_dir, out, "--seed", "3", "--practice", "2"))
    assert [t.episode_id for t in state.practice] == ["pillow/practice/000", "pillow/practice/001"]
    assert not {t.episode_id for t in state.practice} & {t.episode_id for t in state.trials}  # never a scored pair
    assert lines(out)[0]["practice"] == ["pillow/practice/000", "pillow/practice/001"]
    state.advance()
    assert state.in_practice and state.trial is state.practice[0]
    told = []
    while state.phase != "done":
        if state.phase == "ask":
            state.set_slider(20)
            state.submit()
        else:
            if state.feedback:
                told.append(state.feedback)
            state.advance()
    trial = state.practice[0]
    side = "Agent A (left)" if trial.culprit_shown_as == "A" else "Agent B (right)"
    assert told == [f"In this practice trial, {side} picked up the pillow.", told[1]] and len(told) == 2
    practice = [e for e in lines(out) if e.get("block") == "practice"]
    assert [(a["episode_id"], a["trial_index"]) for a in practice[::11]] == [
        (t.episode_id, t.index) for t in state.practice
    ]
    run = read_responses([out])
    assert sorted(t.episode_id for t in run.trials) == sorted(t.episode_id for t in state.trials)
    assert run.settings["practice_answers"] == 22
    none = study.session_of(study_args(data_dir, tmp_path / "none.jsonl", "--seed", "3", "--practice", "0"))
    assert none.practice == [] and lines(tmp_path / "none.jsonl")[0]["practice"] == []


def test_the_language_and_audio_modality_shows_intents_and_plays_both_sounds(data_dir, tmp_path):
    out = tmp_path / "p01.jsonl"
    state = study.session_of(study_args(data_dir, out, "--seed", "1", "--modality", "vision+language+audio"))
    app = StudyApp(state, "vision+language+audio", tile_size=8, sound=True)
    played = []
    if app.player is not None:
        app.player.play = lambda left, right: played.append((left, right))
    try:
        app.run(participant(app, iter(range(100)), give_up_after=3))
    finally:
        app.close()
    assert app.layout.height > Layout.make(app.layout.panel_size, language=False, font=20).height  # captions
    assert lines(out)[0]["modality"] == "vision+language+audio"
    assert played and all(isinstance(token, int) for pair in played for token in pair)
    assert full_question("Who turned on the laundry?") == "Which agent is more likely to have turned on the laundry?"


def test_study_cli_reports_bad_input(data_dir, tmp_path, capsys):
    assert main(["study", "--data", str(tmp_path), "--participant", "p", "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "no dataset here" in capsys.readouterr().err
    args = ["study", "--data", str(data_dir), "--participant", "p", "--out", str(tmp_path / "o.jsonl")]
    assert main(args + ["--scenario", "laundry"]) == 2
    with pytest.raises(SystemExit) as refused:  # the parser range-checks --limit
        main(args + ["--limit", "0"])
    assert refused.value.code == 2 and "argument --limit" in capsys.readouterr().err
