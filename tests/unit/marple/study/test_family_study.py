"""The study of the belief and expectation families: built folders, the server facing their pages' lines, the
scores from a response log, and each page in a real browser.

The sets are small ones written here by the libraries' writers (what `marple generate` writes). Servers bind
port 0 in this process; the browser tests drive the built folders in headless chromium (set
``MARPLE_SCREENSHOTS=DIR`` to save the screenshots of docs/study.md there).
"""

from __future__ import annotations

import http.client
import json
import os
import threading
import time
from pathlib import Path

import pytest
from browser import chromium, wait_for

from marple.cli.main import main
from marple.families import family_of
from marple.study.families import shown_tests
from marple.study.family_scores import score_question_study, score_trial_study
from marple.study.human import read_responses
from marple.study.server import KEY_HEADER, make_server
from marple.study.trials import StudyError
from marple.study.web import read_web_study
from marple_eval.results import ResultsError
from marple_gym.beliefs.questions import QuestionSpec, generate_questions, read_questions, write_questions
from marple_gym.expectations import make_trials, trial_keys
from marple_gym.expectations.export import read_trials, write_trials

SCREENSHOTS = os.environ.get("MARPLE_SCREENSHOTS")
TILE = "24" if SCREENSHOTS else "8"


@pytest.fixture(scope="module")
def question_set(tmp_path_factory) -> Path:
    spec = QuestionSpec(seed=3, test_houses=1, episodes_per_house=2, false_belief=0.5, train_episodes=0)
    return write_questions(list(generate_questions(spec)), tmp_path_factory.mktemp("sets") / "questions")


@pytest.fixture(scope="module")
def trial_set(tmp_path_factory) -> Path:
    """Four test trials: one of each scenario (one with four familiarisation episodes)."""
    keys = [k for k in trial_keys("test", per_type=1) if k.type in ("1.1", "2.1", "3.1", "4.1")]
    root = tmp_path_factory.mktemp("sets") / "trials"
    write_trials(make_trials(keys, seed=0), root)
    return root


def build(source: Path, out: Path, *extra: str) -> Path:
    argv = ["study-web", "--data", str(source), "--out", str(out), "--seed", "5", "--post", "answers"]
    assert main([*argv, "--tile-size", TILE, *extra]) == 0
    return out


@pytest.fixture(scope="module")
def question_study(question_set, tmp_path_factory) -> Path:
    return build(question_set, tmp_path_factory.mktemp("web") / "beliefs", "--orders", "2")


@pytest.fixture(scope="module")
def trial_study(trial_set, tmp_path_factory) -> Path:
    return build(trial_set, tmp_path_factory.mktemp("web") / "expectations", "--fps", "60", "--pause", "0.1")


# ---- the built folders -------------------------------------------------------------------------------------
def test_a_question_study_shows_each_test_question_with_its_text_and_stills_but_not_its_answer(
    question_set, question_study
):
    questions = read_questions(question_set)
    study = read_web_study(question_study)
    assert family_of(question_set).name == "beliefs" and study["family"] == "beliefs"
    assert study["modality"] == "text+frames" and study["confidence"] is False
    views = study["views"]
    assert sorted(v["item"] for v in views.values()) == sorted(q.id for q in questions if q.split == "test")
    for view in views.values():
        question = next(q for q in questions if q.id == view["item"])
        assert view["steps"][-1] == question.end_time and len(view["options"]) == 2
        assert all((question_study / view["frames"] / f"{i:02d}.png").is_file() for i in range(len(view["steps"])))
        assert view["question"].endswith("which one of the following statements is more likely to be true?")
        assert "triangle" in view["legend"]
    text = (question_study / "study-data.js").read_text()
    assert '"answer"' not in text and "posterior" not in text  # the public folder gives nothing away
    orders = [[views[v]["item"] for v in s["views"]] for s in study["sequences"]]
    assert sorted(orders[0]) == sorted(orders[1]) and orders[0] != orders[1]  # two seeded orders of one set


def test_expectation_sequences_show_one_test_per_trial_balanced_and_complementary_in_pairs(trial_set, trial_study):
    trials = {t.id: t for t in read_trials(trial_set)}
    study = read_web_study(trial_study)
    assert study["family"] == "expectations" and len(study["sequences"]) == 2  # the default: one pair
    shown = []
    for k, sequence in enumerate(study["sequences"]):
        views = [study["views"][v] for v in sequence["views"]]
        order = [v["item"] for v in views]
        tests = shown_tests(order, sequence["seed"], k)
        assert sorted(order) == sorted(trials) and tests.count("expected") == tests.count("surprising") == 2
        for view, test in zip(views, tests):  # the view shows the familiarisation, then that test
            trial = trials[view["item"]]
            episodes = [*trial.familiarisation, trial.tests[test]]
            assert [e["steps"] for e in view["episodes"]] == [len(e.states) for e in episodes]
            assert [e["title"] for e in view["episodes"]][-1] == "Test"
        shown.append(dict(zip(order, tests)))
    assert all(shown[0][t] != shown[1][t] for t in trials)  # every test of every trial is shown once
    views = json.dumps([study["views"], study["sequences"]])
    assert "surprising" not in views and "expected" not in views  # nor which view shows which test


def test_builds_refuse_what_does_not_fit_the_family(trial_set, question_set, tmp_path, capsys):
    assert main(["study-web", "--data", str(trial_set), "--out", str(tmp_path / "x"), "--orders", "3"]) == 2
    assert "an even number of trial orders for expectation trials" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="2"):  # refused by the belief family's parser
        main(["study-web", "--data", str(question_set), "--out", str(tmp_path / "x"), "--attention-checks", "1"])
    assert "--attention-checks 1: not an option of --family beliefs" in capsys.readouterr().err
    assert main(["study", "--data", str(question_set), "--participant", "p", "--out", str(tmp_path / "d.jsonl")]) == 2
    assert "the desktop study runs whodunit trials" in capsys.readouterr().err
    assert not (tmp_path / "x").exists() and not list(tmp_path.iterdir())


# ---- the server ----------------------------------------------------------------------------------------------
def serve(folder: Path, out: Path):
    server = make_server(folder, out, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def stop(server) -> None:
    server.shutdown()
    server.server_close()


def post(server, study: dict, *lines: dict) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=60)
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    try:
        conn.request("POST", "/answers", body=data, headers={KEY_HEADER: study["write_key"]})
        reply = conn.getresponse()
        return reply.status, json.loads(reply.read())
    finally:
        conn.close()


def session_line(study: dict, client: str, participant: str, k: int = 0) -> dict:
    """A session line as the page writes it for trial sequence ``k``."""
    return {
        "type": "session",
        "participant": participant,
        "seed": study["sequences"][k]["seed"],
        "sequence": k,
        "dataset": study["dataset"],
        "scenario": None,
        "modality": study["modality"],
        "trials": [study["views"][v]["item"] for v in study["sequences"][k]["views"]],
        "practice": [],
        "trial_set": study["trial_set"],
        "started": "2026-11-26T10:00:00.000+00:00",
        "family": study["family"],
        **web(client, 0),
    }


def web(client: str, seq: int) -> dict:
    return {"source": "web", "client": client, "seq": seq}


def item_line(session: dict, index: int, seq: int, **answer) -> dict:
    """A choice (belief study) or rating (expectation study) line for the session's item at ``index``."""
    kind, key = ("choice", "question_id") if session["family"] == "beliefs" else ("rating", "trial_id")
    line = {"type": kind, "participant": session["participant"], key: session["trials"][index], "trial_index": index}
    return {**line, **answer, "time": "2026-11-26T10:00:09.000+00:00", "rt_ms": 4000, **web(session["client"], seq)}


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_server_takes_choices_refuses_bad_ones_with_a_400_and_resumes_after_a_restart(question_study, tmp_path):
    study, out = read_web_study(question_study), tmp_path / "answers.jsonl"
    session = session_line(study, "c1", "p1")
    server = serve(question_study, out)
    try:
        assert post(server, study, session, item_line(session, 0, 1, choice="a"))[0] == 200
        before = out.read_bytes()
        other = session["trials"][1]
        hostile = {
            "a choice other than a or b": item_line(session, 1, 2, choice="c"),
            "a choice and a slider": item_line(session, 1, 2, choice="a", slider=20),
            "no choice": item_line(session, 1, 2),
            "a slider where the study asks for a choice": item_line(session, 1, 2, slider=20),
            "an unknown question": item_line(session, 1, 2, choice="a") | {"question_id": "test/h999/0000/1.1/0"},
            "a question not at its index": item_line(session, 2, 2, choice="a") | {"question_id": other},
            "a question answered again": item_line(session, 0, 2, choice="b"),
            "a rating in a question study": {**item_line(session, 1, 2, choice="a"), "type": "rating"},
            "a well-formed rating of the question in a question study": {
                "type": "rating",
                "participant": "p1",
                "trial_id": session["trials"][1],
                "trial_index": 1,
                "slider": 50,
                "time": "2026-11-26T10:00:09.000+00:00",
                "rt_ms": 4000,
                **web("c1", 2),
            },  # fmt: skip
            "a whodunit answer": item_line(session, 1, 2, choice="a") | {"type": "answer"},
            "a session of another family": session_line(study, "c2", "p2") | {"family": "expectations"},
            "a session without its family": {k: v for k, v in session_line(study, "c3", "p3").items() if k != "family"},
        }
        for what, line in hostile.items():
            status, reply = post(server, study, line)
            assert status == 400 and reply["error"], what
            assert out.read_bytes() == before, f"{what} changed the file"
    finally:
        stop(server)
    server = serve(question_study, out)  # a restart: the page sends again what it was not told was saved
    try:
        rest = [item_line(session, i, i + 1, choice="ab"[i % 2]) for i in range(len(session["trials"]))]
        status, reply = post(server, study, session, *rest)
        assert status == 200 and reply == {"saved": len(rest) - 1, "received": len(rest) + 1}
        assert post(server, study, item_line(session, 1, 99, choice="b"))[0] == 400  # answered before the restart
    finally:
        stop(server)
    saved = lines_of(out)
    assert [line["seq"] for line in saved] == list(range(len(saved)))  # each line once
    assert [line["question_id"] for line in saved[1:]] == session["trials"]


def test_the_server_takes_ratings_in_0_to_100_and_writes_the_test_shown(trial_study, tmp_path):
    study, out = read_web_study(trial_study), tmp_path / "answers.jsonl"
    session = session_line(study, "c1", "p1", k=1)
    server = serve(trial_study, out)
    try:
        assert post(server, study, session)[0] == 200
        hostile = {
            "a slider of 101": item_line(session, 0, 1, slider=101),
            "a slider of -1": item_line(session, 0, 1, slider=-1),
            "a slider of NaN": item_line(session, 0, 1, slider=float("nan")),
            "no slider": item_line(session, 0, 1),
            "an unknown trial": item_line(session, 0, 1, slider=5) | {"trial_id": "goal_preferences/1.1/test/09999"},
            "the other test's name": item_line(session, 0, 1, slider=5, test="x"),
            "a choice": item_line(session, 0, 1, slider=5) | {"type": "choice"},
        }
        before = out.read_bytes()
        for what, line in hostile.items():
            assert post(server, study, line)[0] == 400, what
            assert out.read_bytes() == before, what
        tests = shown_tests(session["trials"], session["seed"], 1)
        wrong = {"expected": "surprising", "surprising": "expected"}[tests[0]]
        assert post(server, study, item_line(session, 0, 1, slider=5, test=wrong))[0] == 400
        ratings = [item_line(session, i, i + 1, slider=10 * i) for i in range(len(session["trials"]))]
        assert post(server, study, *ratings)[0] == 200
    finally:
        stop(server)
    saved = lines_of(out)[1:]
    assert [(r["trial_id"], r["test"], r["slider"]) for r in saved] == [
        (t, test, 10 * i) for i, (t, test) in enumerate(zip(session["trials"], tests))
    ]


# ---- scoring a log -------------------------------------------------------------------------------------------
def test_belief_answers_score_per_type_from_the_log_in_one_command(question_set, question_study, tmp_path, capsys):
    study, out = read_web_study(question_study), tmp_path / "answers.jsonl"
    answers = {q.id: q.letter for q in read_questions(question_set)}
    right, wrong = session_line(study, "c1", "right", 0), session_line(study, "c2", "wrong", 1)
    lines = [right, wrong]
    for session, flip in ((right, False), (wrong, True)):
        for i, question in enumerate(session["trials"]):
            letter = answers[question] if not flip else {"a": "b", "b": "a"}[answers[question]]
            lines.append(item_line(session, i, i + 1, choice=letter))
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    scored = score_question_study([out], question_set)
    assert scored.participants == 2 and scored.answers == 2 * len(answers)
    assert scored.scores["all"]["accuracy"] == 0.5 and scored.scores["all"]["chance"] == 0.5
    assert main(["study-score", str(out), "--set", str(question_set), "--out", str(tmp_path / "s.json")]) == 0
    printed = capsys.readouterr().out
    assert "human (2 participants" in printed and "| type | n | human |" in printed
    assert json.loads((tmp_path / "s.json").read_text())["scores"]["all"]["n"] == 2 * len(answers)
    with pytest.raises(ResultsError, match="study-score"):  # the whodunit scorer names the right command
        read_responses([out])
    twice = tmp_path / "twice.jsonl"  # every line given twice (a download beside the server's file): read once
    twice.write_text("".join(json.dumps(line) + "\n" + json.dumps(line) + "\n" for line in lines))
    again = score_question_study([twice], question_set)
    assert (again.participants, again.answers, again.scores) == (scored.participants, scored.answers, scored.scores)


def test_surprise_ratings_are_z_scored_per_participant_and_scored_as_pairs(trial_set, trial_study, tmp_path):
    study, out = read_web_study(trial_study), tmp_path / "answers.jsonl"
    lines = []
    for k, (participant, scale) in enumerate((("p-wide", 1.0), ("p-narrow", 0.1))):
        session = session_line(study, f"c{k}", participant, k)
        tests = shown_tests(session["trials"], session["seed"], k)
        lines.append(session)
        for i, test in enumerate(tests):  # surprising tests rated higher, on each one's own part of the scale
            lines.append(item_line(session, i, i + 1, slider=50 + scale * (40 if test == "surprising" else -40)))
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    scored = score_trial_study([out], trial_set)
    assert scored.family == "expectations" and scored.unpaired == 0
    assert scored.scores["all"] == {"accuracy": 1.0, "low": 1.0, "high": 1.0, "trials": 4,
                                    "half": 1.0, "half_low": 1.0, "half_high": 1.0}  # fmt: skip
    one = tmp_path / "one.jsonl"  # one participant: each trial's other test is rated by no one
    one.write_text("".join(json.dumps(line) + "\n" for line in lines if line["client"] == "c0"))
    with pytest.raises(StudyError, match="no trial has both tests rated"):
        score_trial_study([one], trial_set)


def test_a_confidence_study_takes_a_slider_and_refuses_a_bare_choice(question_set, tmp_path):
    folder = build(question_set, tmp_path / "confidence", "--confidence", "--frames", "2")
    study, out = read_web_study(folder), tmp_path / "answers.jsonl"
    assert study["confidence"] is True and all(len(v["steps"]) <= 2 for v in study["views"].values())
    session = session_line(study, "c1", "p1")
    server = serve(folder, out)
    try:
        assert post(server, study, session, item_line(session, 0, 1, choice="a"))[0] == 400
        assert post(server, study, session, item_line(session, 0, 1, slider=25))[0] == 200
    finally:
        stop(server)
    assert score_question_study([out], question_set).answers == 1


# ---- each page in a real browser -----------------------------------------------------------------------------
def shoot(driver, name: str) -> None:
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(SCREENSHOTS) / name))


def shown(driver, css: str):
    from selenium.webdriver.common.by import By

    return next((e for e in driver.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()), None)


def take_part(folder: Path, out: Path, answer) -> list[dict]:
    """Go through a study served from ``folder`` as participant "p-web" (1366 x 625 pixels): agree, read, then
    ``answer(driver, index)`` on every item's page and on to the next; returns the lines the server saved."""
    from selenium.webdriver.common.by import By

    server = serve(folder, out)
    try:
        with chromium() as driver:
            driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": 1366, "height": 625, "deviceScaleFactor": 1, "mobile": False},
            )
            driver.get(f"http://127.0.0.1:{server.server_address[1]}/index.html?PROLIFIC_PID=p-web")
            for label in ("I agree", "Start"):
                wait_for(lambda label=label: shown(driver, "button") and shown(driver, "button").text == label)
                shown(driver, "button").click()
            index, deadline = 0, time.monotonic() + 300
            while not shown(driver, "#mw-download"):
                assert time.monotonic() < deadline, "the study did not reach its end page"
                if shown(driver, ".mf-trial"):
                    answer(driver, index)
                    index += 1
                    wait_for(lambda: not shown(driver, ".mf-trial"), what="the next page")
                elif (button := shown(driver, "button")) is not None:  # "Next question" and the like
                    button.click()
                time.sleep(0.02)
            wait_for(lambda: driver.execute_script("return window.marpleStudy.state.pending.length === 0"))
            assert driver.find_elements(By.CSS_SELECTOR, ".mw-status.mw-offline") == []
    finally:
        stop(server)
    return lines_of(out)


def test_a_participant_answers_every_question_with_a_click_in_a_real_browser(question_study, question_set, tmp_path):
    def answer(driver, index: int) -> None:
        wait_for(lambda: driver.execute_script("return document.getElementById('mf-big').naturalWidth > 0"))
        if index == 0:
            shoot(driver, "study-beliefs.png")
        shown(driver, "#mf-a" if index % 2 else "#mf-b").click()

    saved = take_part(question_study, tmp_path / "answers.jsonl", answer)
    study = read_web_study(question_study)
    session, choices = saved[0], saved[1:]
    assert session["family"] == "beliefs" and session["participant"] == "p-web"
    assert [c["question_id"] for c in choices] == session["trials"] and len(choices) == len(study["views"])
    assert [c["choice"] for c in choices] == ["ba"[i % 2] for i in range(len(choices))]
    assert score_question_study([tmp_path / "answers.jsonl"], question_set).answers == len(choices)


def test_a_participant_rates_every_trial_after_watching_it_in_a_real_browser(trial_study, trial_set, tmp_path):
    from selenium.webdriver.common.keys import Keys

    def answer(driver, index: int) -> None:
        slider = wait_for(lambda: shown(driver, "#mw-slider"), what="the slider once the test has played")
        assert driver.execute_script("return document.getElementById('mf-title').textContent") == "Test"
        slider.send_keys(Keys.HOME + Keys.ARROW_RIGHT * (10 + 20 * index))
        if index == 0:
            shoot(driver, "study-expectations.png")
        shown(driver, "#mw-submit").click()

    saved = take_part(trial_study, tmp_path / "answers.jsonl", answer)
    session, ratings = saved[0], saved[1:]
    tests = shown_tests(session["trials"], session["seed"], session["sequence"])
    assert session["family"] == "expectations"
    assert [(r["trial_id"], r["test"], r["slider"]) for r in ratings] == [
        (t, test, 10 + 20 * i) for i, (t, test) in enumerate(zip(session["trials"], tests))
    ]
