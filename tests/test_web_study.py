"""The web study (`marple study-web`, `marple study-server`), simulated participants, and one trial set for all.

The browser test drives the built folder in a real headless chromium: set
``MARPLE_SCREENSHOTS=DIR`` to also save the screenshots of docs/study.md there
(they are taken with 24-pixel tiles instead of the tests' 8).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from browser import Relay, chromium, wait_for

from marple_eval.human import read_responses
from marple_eval.protocol import dataset_episodes
from marple_gym.cli import study
from marple_gym.cli.main import build_parser, main
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset
from marple_gym.datasets.selection import select_trials, trial_set_id
from marple_gym.study import StudyState, load_episodes, make_trials, trial_order
from marple_gym.study.responses import ResponseLog
from marple_gym.study.server import AnswerSink, parse_lines
from marple_gym.study.simulate import run_participant
from marple_gym.study.web import read_web_study, sequence_for, sequence_trials

SEED = 4
SCREENSHOTS = os.environ.get("MARPLE_SCREENSHOTS")
MS_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("webdata")
    spec = DatasetSpec([Unit.scenario("pillow")], Sizes(2, 2, 1, 1), seed=11, splits=("test",))
    generate_dataset(spec, root, workers=1, progress=False)
    return root


@pytest.fixture(scope="module")
def web_dir(data_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("web") / "study"
    tile = "24" if SCREENSHOTS else "8"
    argv = ["study-web", "--data", str(data_dir), "--out", str(out), "--limit", "2", "--seed", str(SEED)]
    argv += ["--tile-size", tile, "--modality", "vision+language+audio", "--post", "answers", "--orders", "2"]
    assert main([*argv, "--completion-url", "https://example.org/complete?cc=ABC"]) == 0
    return out


def lines(path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def study_args(data_dir, out, *extra):
    argv = ["study", "--data", str(data_dir), "--participant", "p-desk", "--out", str(out), "--tile-size", "8"]
    return build_parser().parse_args([*argv, *extra])


# ---- one trial set for people and models -------------------------------------------------------------------
def test_study_and_evaluate_choose_the_same_trials_spread_over_houses(data_dir, tmp_path):
    data = MarpleDataset(data_dir)
    for limit in (1, 2, 3, None):
        extra = [] if limit is None else ["--limit", str(limit)]
        state = study.open_session(study_args(data_dir, tmp_path / f"s{limit}.jsonl", "--seed", "1", *extra))
        evaluated = [e.episode_id for e in dataset_episodes(data, ["pillow"], limit)]
        assert [e.episode_id for e in load_episodes(data, (), limit)] == evaluated  # the same list ...
        assert sorted(t.episode_id for t in state.trials) == sorted(evaluated)  # ... which the session then orders
    two = [e.episode_id for e in select_trials(data, (), 2)]
    assert len({i.split("/")[1] for i in two}) == 2  # one pair from each of the two test houses, not two of one
    assert trial_set_id(two) == trial_set_id(reversed(two + two)) != trial_set_id(two[:1])


def test_results_record_their_trial_set_and_report_warns_when_sets_differ(data_dir, tmp_path, capsys):
    files = {}
    for limit in (1, 2):
        files[limit] = tmp_path / f"uniform{limit}.json"
        argv = ["evaluate", "--data", str(data_dir), "--limit", str(limit), "--out", str(files[limit])]
        assert main([*argv, "--no-progress"]) == 0
    recorded = json.loads(files[2].read_text())["trial_set"]
    ids = [e.episode_id for e in dataset_episodes(MarpleDataset(data_dir), ["pillow"], 2)]
    assert recorded == {"id": trial_set_id(ids), "trials": 2}
    capsys.readouterr()
    assert main(["report", str(files[2]), str(files[2]), "--no-paper"]) == 0
    assert "DIFFERENT TRIALS" not in capsys.readouterr().out
    assert main(["report", str(files[1]), str(files[2]), "--no-paper"]) == 0
    captured = capsys.readouterr()
    assert "DIFFERENT TRIALS" in captured.out and "DIFFERENT TRIALS" in captured.err


def test_desktop_answers_carry_millisecond_times_and_response_times(data_dir, tmp_path):
    clock = iter([10.0, 12.5, 13.0, 13.25] + [20.0] * 100)
    state = study.open_session(study_args(data_dir, tmp_path / "r.jsonl", "--seed", "2", "--limit", "1"))
    state = StudyState(state.trials, state.log, clock=lambda: next(clock))
    state.advance()
    state.set_slider(30)
    assert state.submit()
    answer = state.log.answers[-1]
    assert MS_TIME.match(answer["time"]) and answer["rt_ms"] == 2500


# ---- the built folder --------------------------------------------------------------------------------------
def test_the_folder_holds_every_frame_the_trials_in_seeded_order_and_no_answer(web_dir, data_dir):
    study_data = read_web_study(web_dir)
    chosen = [e.episode_id for e in select_trials(MarpleDataset(data_dir), (), 2)]
    assert study_data["seed"] == SEED and study_data["trial_set"] == trial_set_id(chosen)
    shown = set()
    for k in (0, 1):  # sequence k is the desktop session of seed SEED + k
        desktop = make_trials(select_trials(MarpleDataset(data_dir), (), 2), trial_order(chosen, SEED + k), SEED + k)
        assert [t["episode_id"] for t in sequence_trials(study_data, k)] == [t.episode_id for t in desktop]
        shown |= {(t.episode_id, t.culprit_shown_as) for t in desktop}
    assert len(study_data["views"]) == len(shown)  # a trial shown with the same side twice is rendered once
    for trial in study_data["views"].values():
        frames = sorted(p.name for p in (web_dir / trial["frames"]).iterdir())
        assert frames == [f"{side}{t:03d}.png" for side in "LR" for t in range(trial["horizon"] + 1)]
        assert len(trial["evidence_steps"]) == 11 and trial["evidence_steps"][-1] == trial["horizon"]
        for side in "LR":
            assert len(trial[side]["intents"]) == trial["horizon"] + 1
            for token in set(trial[side]["sounds"]) - {0}:
                assert (web_dir / "sounds" / f"{side}{token}.wav").is_file()
    text = (web_dir / "study-data.js").read_text()
    assert "culprit" not in text  # the page must not give the answer away
    vendor = json.loads((web_dir / "vendor" / "VENDOR.json").read_text())
    for name, digest in vendor["files_sha256"].items():
        assert hashlib.sha256((web_dir / "vendor" / name).read_bytes()).hexdigest() == digest
    assert "MIT" in (web_dir / "vendor" / "LICENSE").read_text()
    page = (web_dir / "index.html").read_text() + (web_dir / "app" / "study.js").read_text()
    assert not re.search(r"(src|href)=\"https?:", page)  # works offline: nothing loaded from elsewhere


def test_build_refuses_bad_input_and_leaves_nothing_behind(data_dir, web_dir, tmp_path, capsys):
    base = ["study-web", "--data", str(data_dir), "--seed", "1", "--limit", "1"]
    assert main([*base, "--out", str(web_dir)]) == 2
    assert "already exists" in capsys.readouterr().err
    template = tmp_path / "consent.html"
    template.write_text("<p>costs $5 and $unknown</p>")
    assert main([*base, "--out", str(tmp_path / "new"), "--consent", str(template)]) == 2
    assert "placeholder" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse refuses it
        main([*base, "--out", str(tmp_path / "new"), "--tile-size", "2"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["consent.html"]
    assert main(["study-server", str(tmp_path), "--out", str(tmp_path / "a.jsonl"), "--port", "0"]) == 2
    assert "not a web study folder" in capsys.readouterr().err
    assert main(["study-server", str(web_dir), "--out", str(web_dir / "answers.jsonl"), "--port", "0"]) == 2
    assert "serves to anyone" in capsys.readouterr().err and not (web_dir / "answers.jsonl").exists()


def test_the_server_writes_each_line_once_and_repairs_a_crash(tmp_path):
    path = tmp_path / "answers.jsonl"
    sink = AnswerSink(path)
    entries = parse_lines(
        b'{"type": "session", "client": "c", "seq": 0}\n{"type": "answer", "slider": 5, "client": "c", "seq": 1}\n'
    )
    assert sink.append(entries) == 2 and sink.append(entries) == 0
    with path.open("a") as f:
        f.write('{"type": "answer", "cli')  # the server died mid-line
    again = AnswerSink(path)
    assert again.append(entries + [{"type": "answer", "slider": 9, "client": "c", "seq": 2}]) == 1
    assert [e["seq"] for e in lines(path)] == [0, 1, 2]
    for bad in (b'{"type": "other"}', b'{"type": "answer", "slider": 101}', b"[1, 2]", b"not json"):
        with pytest.raises(ValueError):
            parse_lines(bad)


# ---- simulated participants --------------------------------------------------------------------------------
def test_a_simulated_participant_runs_the_exact_sequence_and_its_answers_score(data_dir, web_dir, tmp_path, capsys):
    out = tmp_path / "sim.jsonl"
    argv = ["study", "--data", str(data_dir), "--limit", "2", "--seed", str(SEED), "--out", str(out)]
    assert main([*argv, "--simulate", "distance", "--simulate-noise", "10"]) == 0
    entries = lines(out)
    session, answers = entries[0], entries[1:]
    web_order = [t["episode_id"] for t in sequence_trials(read_web_study(web_dir), 0)]
    assert session["participant"] == "sim-distance" and session["trials"] == web_order and len(answers) == 22
    assert [a["episode_id"] for a in answers[::11]] == session["trials"]
    assert all(0 <= a["slider"] <= 100 and MS_TIME.match(a["time"]) for a in answers)
    run = read_responses([out])
    assert len(run.trials) == 2
    uniform = tmp_path / "uniform.jsonl"
    assert main(["study", "--web", str(web_dir), "--out", str(uniform), "--simulate", "uniform"]) == 0
    k = sequence_for("sim-uniform", read_web_study(web_dir))
    assert lines(uniform)[0]["seed"] == SEED + k
    assert lines(uniform)[0]["trials"] == [t["episode_id"] for t in sequence_trials(read_web_study(web_dir), k)]
    assert {a["slider"] for a in lines(uniform)[1:]} == {50}
    capsys.readouterr()
    assert main(["study", "--web", str(web_dir), "--out", str(tmp_path / "x.jsonl"), "--simulate", "nope"]) == 2
    assert "unknown model" in capsys.readouterr().err


# ---- the web study in a real browser -----------------------------------------------------------------------
def start_server(folder: Path, out: Path, relay: Relay) -> subprocess.Popen:
    """The study server on a port the system picks (it says which), behind ``relay``."""
    argv = [sys.executable, "-m", "marple_gym.cli.main", "study-server", str(folder), "--out", str(out)]
    server = subprocess.Popen([*argv, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    announced = server.stdout.readline()  # "serving FOLDER at http://127.0.0.1:PORT/ ; ..."
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", announced)
    assert match, f"the study server did not say where it listens: {announced!r}"
    relay.target = int(match[1])  # it listens before it announces: no wait needed
    return server


def kill(server: subprocess.Popen) -> None:
    server.send_signal(signal.SIGKILL)  # no chance to flush anything: only what is on disk counts
    server.wait()
    server.stdout.close()


def visible(driver, css: str):
    from selenium.webdriver.common.by import By

    found = [e for e in driver.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()]
    return found[0] if found else None


def click_text(driver, text: str) -> None:
    from selenium.webdriver.common.by import By

    button = wait_for(
        lambda: next(b for b in driver.find_elements(By.TAG_NAME, "button") if b.text.strip() == text),
        what=f"a button {text!r}",
    )
    button.click()


def move_slider(slider, value: int) -> None:
    """As a person with the keyboard: to 0, then one step right per point."""
    from selenium.webdriver.common.keys import Keys

    slider.send_keys(Keys.HOME + Keys.ARROW_RIGHT * value)


NOTHING_PENDING = "return window.marpleStudy.state.pending.length === 0"
IMAGES_SHOWN = "return ['mw-img-L', 'mw-img-R'].every((id) => document.getElementById(id).naturalWidth > 0)"


def shoot(driver, name: str) -> None:
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(SCREENSHOTS) / name))


def test_two_trials_in_a_real_browser_survive_a_server_kill_and_score_like_the_desktop(web_dir, data_dir, tmp_path):
    answers_file, downloads = tmp_path / "answers.jsonl", tmp_path / "downloads"
    downloads.mkdir()
    relay = Relay()
    port = relay.port
    server = start_server(web_dir, answers_file, relay)
    given = 0  # answers submitted in the page
    on_disk_at_kill = None
    try:
        with chromium(downloads=str(downloads)) as driver:
            driver.get(f"http://127.0.0.1:{port}/index.html?PROLIFIC_PID=p-web&STUDY_ID=st1&SESSION_ID=se1")
            click_text(driver, "I agree")
            wait_for(lambda: visible(driver, ".mw-page h2"), what="the instructions")
            shoot(driver, "study-web-instructions.png")
            click_text(driver, "Start")
            steps = 0
            while not visible(driver, "#mw-download"):
                ask, step = visible(driver, "#mw-ask"), visible(driver, "#mw-next")
                if ask:
                    move_slider(visible(driver, "#mw-slider"), 10 + 7 * given % 80)
                    if given == 4:  # the server is down: the houses still show (loaded at the trial's start)
                        wait_for(
                            lambda: driver.execute_script(IMAGES_SHOWN), what="both houses while the server is down"
                        )
                    if given == 7:
                        shoot(driver, "study-web-slider.png")
                    visible(driver, "#mw-submit").click()
                    given += 1
                    if given == 3:  # the server dies between two answers, once it has acknowledged the third ...
                        wait_for(lambda: driver.execute_script(NOTHING_PENDING), what="the third answer to be saved")
                        kill(server)
                        relay.target = None  # its port is free for anyone now: connections get a reset
                        on_disk_at_kill = len(lines(answers_file))
                    elif given == 6:  # ... and comes back three answers later
                        server = start_server(web_dir, answers_file, relay)
                elif step:
                    step.click()
                    steps += 1
                    if steps == 3:
                        shoot(driver, "study-web-trial.png")
                elif visible(driver, "button"):
                    click_text(driver, "Next trial \u203a")
                time.sleep(0.02)
            wait_for(
                lambda: driver.execute_script(NOTHING_PENDING),
                what="the page to resend the answers the dead server missed",
            )
            page_lines = driver.execute_script("return window.marpleStudy.responsesText()")
            visible(driver, "#mw-download").click()
            download = wait_for(lambda: next(downloads.glob("marple-p-web.jsonl"), None), what="the download")
            completion = visible(driver, "#mw-complete").get_attribute("href")
    finally:
        kill(server)
        relay.close()

    saved = lines(answers_file)
    assert on_disk_at_kill == 1 + 3  # what the server acknowledged was on disk when it was killed
    assert saved == [json.loads(x) for x in page_lines.splitlines()] == lines(download)
    assert completion == "https://example.org/complete?cc=ABC"
    session, answers = saved[0], saved[1:]
    study_data = read_web_study(web_dir)
    k = sequence_for("p-web", study_data)  # the page picks the participant's sequence as Python does
    order = [t["episode_id"] for t in sequence_trials(study_data, k)]
    assert session["participant"] == "p-web" and session["study_id"] == "st1"
    assert session["sequence"] == k and session["seed"] == SEED + k
    assert session["trials"] == order and session["source"] == "web"
    assert [a["seq"] for a in saved] == list(range(len(saved)))  # once each, in order, none lost
    assert {(a["episode_id"], a["evidence_point"]) for a in answers} == {(e, k) for e in order for k in range(11)}
    assert [a["episode_id"] for a in answers] == sorted((a["episode_id"] for a in answers), key=order.index)
    assert all(MS_TIME.match(a["time"]) and isinstance(a["rt_ms"], int) and a["rt_ms"] >= 0 for a in answers)
    assert [a["time"] for a in answers] == sorted(a["time"] for a in answers)

    # The same answers given to the desktop study score the same.
    slider = {(a["episode_id"], a["evidence_point"]): a["slider"] for a in answers}
    desk_args = study_args(data_dir, tmp_path / "desk.jsonl", "--seed", str(SEED + k), "--limit", "2")
    state = study.open_session(desk_args)
    assert [t.episode_id for t in state.trials] == order
    run_participant(state, lambda trial, point: slider[(trial.episode_id, point)])
    web, desk = read_responses([answers_file]), read_responses([tmp_path / "desk.jsonl"])
    assert [(t.episode_id, t.taus, t.p_culprit) for t in web.trials] == [
        (t.episode_id, t.taus, t.p_culprit) for t in desk.trials
    ]


def test_sides_of_web_answers_are_the_desktop_sides(data_dir, tmp_path):
    """Web answers carry no side: scoring recomputes it from the session's seed and order."""
    episodes = select_trials(MarpleDataset(data_dir), (), 2)
    order = trial_order([e.episode_id for e in episodes], SEED)
    log = ResponseLog.open(
        tmp_path / "d.jsonl",
        {"participant": "p", "seed": SEED, "dataset": "d", "modality": "vision", "trials": order},
    )
    trials = make_trials(episodes, order, SEED)
    for trial in trials:
        for k in range(11):
            log.record(trial, k, 80)
    web = [dict(e, client="c") for e in lines(tmp_path / "d.jsonl")]
    for e in web:
        e.pop("culprit_shown_as", None)
    (tmp_path / "w.jsonl").write_text("".join(json.dumps(e) + "\n" for e in web))
    assert [t.p_culprit for t in read_responses([tmp_path / "w.jsonl"]).trials] == [
        t.p_culprit for t in read_responses([tmp_path / "d.jsonl"]).trials
    ]


def test_the_folder_runs_from_disk_without_any_server(web_dir):
    with chromium() as driver:
        participant = "offline-ü 7"  # the page and Python hash non-ASCII ids alike
        driver.get((web_dir / "index.html").as_uri() + "?participant=" + urllib.parse.quote(participant))
        click_text(driver, "I agree")
        click_text(driver, "Start")
        wait_for(lambda: visible(driver, "#mw-next") or visible(driver, "#mw-ask"), what="the first trial")
        wait_for(lambda: driver.execute_script(IMAGES_SHOWN), what="both houses from disk")
        entries = driver.execute_script("return window.marpleStudy.state.entries")
        assert entries[0]["type"] == "session" and entries[0]["participant"] == participant
        assert entries[0]["sequence"] == sequence_for(participant, read_web_study(web_dir))
        driver.get((web_dir / "index.html").as_uri() + "?participant=other&order=1")
        click_text(driver, "I agree")
        assert driver.execute_script("return window.marpleStudy.sequence") == 1
