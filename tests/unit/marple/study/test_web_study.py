"""The web study (`marple study-web`, `marple study-server`), simulated participants, and one trial set for all.

The browser test drives the built folder in a real headless chromium: set
``MARPLE_SCREENSHOTS=DIR`` to also save the screenshots of docs/study.md there
(they are taken with 24-pixel tiles instead of the tests' 8).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import threading
import time
import urllib.parse
from pathlib import Path

import pytest
from browser import chromium, wait_for
from study_fixtures import ChildServer, Relay

from marple.cli import study
from marple.cli.main import build_parser, main
from marple.study import StudyState, load_episodes, make_trials, trial_order
from marple.study.human import read_responses
from marple.study.responses import ResponseLog, check_passed
from marple.study.server import make_server
from marple.study.simulate import run_participant
from marple.study.web import read_web_study, sequence_for, sequence_trials
from marple_eval.protocol import dataset_episodes
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset
from marple_gym.datasets.selection import select_trials, trial_set_id

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
    argv += ["--completion-code", "C0MPLETE", "--no-consent-code", "N0CONSENT", "--attention-checks", "1"]
    assert main([*argv, "--contact", "Dr Who <who@example.org>"]) == 0
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
        state = study.session_of(study_args(data_dir, tmp_path / f"s{limit}.jsonl", "--seed", "1", *extra))
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
    state = study.session_of(study_args(data_dir, tmp_path / "r.jsonl", "--seed", "2", "--limit", "1"))
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
    assert len(study_data["views"]) == len(shown) + 1  # a trial shown with the same side twice is rendered once
    (practice,) = study_data["practice"]  # the default: one practice trial, from a house no trial is scored in
    assert study_data["views"][practice["view"]]["episode_id"] == "pillow/practice/000"
    assert practice["answer"].startswith("In this practice trial, Agent ")
    assert {t["episode_id"] for t in study_data["views"].values()} - {"pillow/practice/000"} == set(chosen)
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
    assert str(data_dir) not in text and str(Path.home()) not in text and '": "/' not in text  # no paths: it is public
    assert study_data["completion"] == {
        "code": "C0MPLETE",
        "url": "https://app.prolific.com/submissions/complete?cc=C0MPLETE",
    }
    assert study_data["no_consent"]["code"] == "N0CONSENT" and len(study_data["write_key"]) >= 24
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


def test_pages_are_written_from_the_settings_with_nothing_for_researchers(web_dir, data_dir, tmp_path, capsys):
    study_data = read_web_study(web_dir)
    consent, how = study_data["pages"]["consent"], study_data["pages"]["instructions"]
    trials = sequence_trials(study_data, 0)
    assert f"about <b>{study_data['minutes']} minutes</b>" in consent and f"watch {len(trials)} short" in consent
    assert "Dr Who &lt;who@example.org&gt;" in consent  # the contact, escaped
    assert "practice trial" in how and "attention" in how and "turn your sound on" in how
    for page in (consent, how):
        assert "Researchers" not in page and "marple" not in page.lower() and "$" not in page
    # The estimate, by hand: 120 s of pages, 8 s a check, 1 s a step and 6 s an answer, up to whole 5 minutes.
    shown = [study_data["views"][v] for v in [*study_data["sequences"][0]["views"], "p000"]]
    seconds = 120 + 8 + sum(v["horizon"] + 6 * len(set(v["evidence_steps"])) for v in shown)
    assert study_data["minutes"] == 5 * math.ceil(seconds / 300)
    out = tmp_path / "custom"
    base = ["study-web", "--data", str(data_dir), "--seed", "1", "--limit", "1", "--tile-size", "8"]
    platform = ["--completion-url", "https://x.org/done?c={code}", "--completion-code", "XY"]
    assert main([*base, "--out", str(out), "--minutes", "42", "--practice", "0", *platform]) == 0
    custom = read_web_study(out)
    assert "about <b>42 minutes</b>" in custom["pages"]["consent"] and custom["practice"] == []
    assert custom["completion"] == {"code": "XY", "url": "https://x.org/done?c=XY"} and custom["write_key"] is None
    assert "no --contact" in capsys.readouterr().err
    for bad in (["--completion-code", "a b"], ["--no-consent-url", "javascript:alert(1)"]):
        assert main([*base, "--out", str(tmp_path / "bad"), *bad]) == 2
        assert bad[0][2:].replace("-", " ") in capsys.readouterr().err
        assert not (tmp_path / "bad").exists()


# ---- simulated participants --------------------------------------------------------------------------------
def test_a_simulated_participant_runs_the_exact_sequence_and_its_answers_score(data_dir, web_dir, tmp_path, capsys):
    out = tmp_path / "sim.jsonl"
    argv = ["study", "--data", str(data_dir), "--limit", "2", "--seed", str(SEED), "--out", str(out)]
    assert main([*argv, "--simulate", "distance", "--simulate-noise", "10"]) == 0
    entries = lines(out)
    session, answers = entries[0], [e for e in entries[1:] if e.get("block") != "practice"]
    web_order = [t["episode_id"] for t in sequence_trials(read_web_study(web_dir), 0)]
    assert session["participant"] == "sim-distance" and session["trials"] == web_order and len(answers) == 22
    assert session["practice"] == ["pillow/practice/000"] and len(entries) == 1 + 11 + 22  # practice first
    assert [a["episode_id"] for a in answers[::11]] == session["trials"]
    assert all(0 <= a["slider"] <= 100 and MS_TIME.match(a["time"]) for a in answers)
    run = read_responses([out])
    assert len(run.trials) == 2
    uniform = tmp_path / "uniform.jsonl"
    assert main(["study", "--web", str(web_dir), "--out", str(uniform), "--simulate", "uniform"]) == 2
    assert "--data is required with --web" in capsys.readouterr().err  # the public folder does not say where it is
    web_pilot = ["study", "--web", str(web_dir), "--data", str(data_dir), "--out", str(uniform)]
    assert main([*web_pilot, "--simulate", "uniform"]) == 0
    k = sequence_for("sim-uniform", read_web_study(web_dir))
    assert lines(uniform)[0]["seed"] == SEED + k
    assert lines(uniform)[0]["trials"] == [t["episode_id"] for t in sequence_trials(read_web_study(web_dir), k)]
    assert {a["slider"] for a in lines(uniform)[1:]} == {50}
    capsys.readouterr()
    assert (
        main(
            [
                "study",
                "--web",
                str(web_dir),
                "--data",
                str(data_dir),
                "--out",
                str(tmp_path / "x.jsonl"),
                "--simulate",
                "nope",
            ]
        )
        == 2
    )
    assert "unknown whodunit method" in capsys.readouterr().err


def test_a_simulated_participants_bad_agent_checkpoint_is_named_with_its_path(data_dir, tmp_path, capsys):
    torch = pytest.importorskip("torch")
    from marple_agents.checkpoints import save_checkpoint
    from marple_agents.config import ModelConfig
    from marple_agents.networks import build_model

    config = ModelConfig(width=8, depth=1, heads=2, head_hidden=8, decoder_hidden=8)
    path = save_checkpoint(tmp_path / "pillow-A.pt", build_model(config), config)
    payload = torch.load(path, weights_only=True)
    payload["config"]["wdith"] = payload["config"].pop("width")
    torch.save(payload, path)
    out = tmp_path / "sim.jsonl"
    argv = ["study", "--data", str(data_dir), "--limit", "2", "--seed", str(SEED), "--out", str(out)]
    agents = ["--simulate-agent", f"A={tmp_path}/{{scenario}}-A.pt", "--simulate-agent", "B=planner"]
    assert main([*argv, "--simulate", "simulation", "--simulate-arg", "rollouts=2", *agents]) == 2
    assert f"--simulate-agent A: {path}: config.wdith: unknown key; did you mean 'width'?" in capsys.readouterr().err


# ---- the web study in a real browser -----------------------------------------------------------------------
SCREENS = {(1366, 768): 625, (1440, 900): 757, (1920, 1080): 937}
"""Screen size -> the browser's viewport height: the screen less 143 pixels of browser and system bars (the 625 of
a 1366 x 768 laptop was measured in Chrome on Windows with the bookmarks bar shown)."""


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


def viewport(driver, width: int, height: int, mobile: bool = False) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 3 if mobile else 1, "mobile": mobile},
    )
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": mobile, "maxTouchPoints": 5})
    driver.execute_script("window.dispatchEvent(new Event('resize'))")


PHASE = """
const shown = (css) => { const el = document.querySelector(css); return el && el.offsetParent !== null; };
return shown('#mw-download') ? 'end' : shown('.mw-check') ? 'check' : shown('#mw-ask') ? 'ask'
  : shown('#mw-next') ? 'watch' : 'page';
"""
TO_NEXT_QUESTION = "const next = document.getElementById('mw-next'); while (next.offsetParent) next.click();"
NOTHING_PENDING = "return window.marpleStudy.state.pending.length === 0"
IMAGES_SHOWN = "return ['mw-img-L', 'mw-img-R'].every((id) => document.getElementById(id).naturalWidth > 0)"
FRAMES_READY = (
    "return Array.from(document.querySelectorAll('.mw-panel img')).every((i) => i.complete && i.naturalWidth)"
)
ON_SCREEN = """
window.dispatchEvent(new Event('resize'));
const inside = (el) => { const r = el.getBoundingClientRect();
  return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; };
const root = document.documentElement;
return {
  question: inside(document.querySelector('.mw-question')),
  houses: ['mw-img-L', 'mw-img-R'].every((id) => inside(document.getElementById(id))),
  slider: inside(document.getElementById('mw-slider')),
  submit: inside(document.getElementById('mw-submit')),
  scrolls: root.scrollHeight > innerHeight || root.scrollWidth > innerWidth,
  house: Math.round(document.getElementById('mw-img-L').getBoundingClientRect().height),
};
"""


def shoot(driver, name: str) -> None:
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(SCREENSHOTS) / name))


def take_part(driver, study_data: dict, answer, on_answer=lambda given: None) -> int:
    """Go through the whole study as a participant: agree, read, practise, answer every evidence point with
    ``answer(given)`` and every attention check as asked; stops at the end page. Returns the answers given."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    click_text(driver, "I agree")
    given = steps = 0
    while (phase := driver.execute_script(PHASE)) != "end":
        check, ask, step = phase == "check", phase == "ask", phase == "watch" and visible(driver, "#mw-next")
        if check:
            shoot(driver, "study-web-attention.png")
            k = sum(1 for e in driver.execute_script("return window.marpleStudy.state.entries") if e["type"] == "check")
            end = Keys.HOME if study_data["checks"][k]["expected"] == "A" else Keys.END
            visible(driver, "#mw-slider").send_keys(Keys.ARROW_RIGHT + end)
            visible(driver, "#mw-submit").click()
        elif ask:
            move_slider(visible(driver, "#mw-slider"), answer(given))
            if given == 18:
                shoot(driver, "study-web-slider.png")
            visible(driver, "#mw-submit").click()
            given += 1
            on_answer(given)
        elif step:
            step.click()  # one real click; the page's own button then takes it to the next question
            steps += 1
            if steps == 12:
                shoot(driver, "study-web-trial.png")
            driver.execute_script(TO_NEXT_QUESTION)
        else:
            if visible(driver, ".mw-page h2") and "How it works" in visible(driver, ".mw-page h2").text:
                shoot(driver, "study-web-instructions.png")
            if "Practice trial done" in driver.page_source:
                shoot(driver, "study-web-practice-done.png")
            buttons = [b for b in driver.find_elements(By.TAG_NAME, "button") if b.is_displayed()]
            if buttons:
                buttons[0].click()
        time.sleep(0.02)
    return given


def test_two_trials_in_a_real_browser_survive_a_server_kill_and_score_like_the_desktop(web_dir, data_dir, tmp_path):
    answers_file, downloads = tmp_path / "answers.jsonl", tmp_path / "downloads"
    downloads.mkdir()
    study_data = read_web_study(web_dir)
    relay = Relay()  # the page's address: the server behind it is killed and comes back on another port
    server = ChildServer(web_dir, answers_file)
    relay.target = server.port
    on_disk_at_kill = []

    def on_answer(given: int) -> None:
        nonlocal server
        if given == 3:  # the server dies between two answers, once it has acknowledged the third ...
            wait_for(lambda: driver.execute_script(NOTHING_PENDING), what="the third answer to be saved")
            relay.target = None
            server.kill()
            on_disk_at_kill.append(len(lines(answers_file)))
        elif given == 4:  # while it is down the houses still show (loaded at the trial's start)
            wait_for(lambda: driver.execute_script(IMAGES_SHOWN), what="both houses while the server is down")
        elif given == 6:  # ... and comes back three answers later
            server = ChildServer(web_dir, answers_file)
            relay.target = server.port

    try:
        with chromium(downloads=str(downloads)) as driver:
            viewport(driver, 1366, SCREENS[1366, 768])
            driver.get(f"http://127.0.0.1:{relay.port}/index.html?PROLIFIC_PID=p-web&STUDY_ID=st1&SESSION_ID=se1")
            take_part(driver, study_data, lambda given: 3 * given % 16, on_answer)  # few key presses each
            wait_for(
                lambda: driver.execute_script(NOTHING_PENDING),
                what="the page to resend the answers the dead server missed",
            )
            wait_for(lambda: visible(driver, "#mw-return"), what="the way back to the platform, once all is saved")
            shoot(driver, "study-web-end.png")
            code, back = visible(driver, "#mw-code").text, visible(driver, "#mw-return").get_attribute("href")
            page_lines = driver.execute_script("return window.marpleStudy.responsesText()")
            visible(driver, "#mw-download").click()
            download = wait_for(lambda: next(downloads.glob("marple-p-web.jsonl"), None), what="the download")
    finally:
        server.kill()
        relay.close()

    saved = lines(answers_file)
    assert on_disk_at_kill == [1 + 3]  # what the server acknowledged was on disk when it was killed
    assert saved == [json.loads(x) for x in page_lines.splitlines()] == lines(download)
    assert code == "C0MPLETE" and back == "https://app.prolific.com/submissions/complete?cc=C0MPLETE"
    session = saved[0]
    answers = [e for e in saved if e["type"] == "answer" and "block" not in e]
    practice = [e for e in saved if e.get("block") == "practice"]
    (check,) = [e for e in saved if e["type"] == "check"]
    k = sequence_for("p-web", study_data)  # the page picks the participant's sequence as Python does
    order = [t["episode_id"] for t in sequence_trials(study_data, k)]
    assert session["participant"] == "p-web" and session["study_id"] == "st1"
    assert session["sequence"] == k and session["seed"] == SEED + k and session["dataset"] == data_dir.name
    assert session["trials"] == order and session["practice"] == ["pillow/practice/000"]
    assert [a["seq"] for a in saved] == list(range(len(saved)))  # once each, in order, none lost
    assert saved.index(practice[-1]) < saved.index(answers[0])  # the practice block comes first
    assert [(a["episode_id"], a["evidence_point"]) for a in practice] == [("pillow/practice/000", k) for k in range(11)]
    assert {(a["episode_id"], a["evidence_point"]) for a in answers} == {(e, k) for e in order for k in range(11)}
    assert [a["episode_id"] for a in answers] == sorted((a["episode_id"] for a in answers), key=order.index)
    assert check["expected"] == study_data["checks"][0]["expected"] and check_passed(check)
    assert all(MS_TIME.match(a["time"]) and isinstance(a["rt_ms"], int) and a["rt_ms"] >= 0 for a in answers)
    assert [a["time"] for a in answers] == sorted(a["time"] for a in answers)

    # The same answers given to the desktop study score the same; practice and check are not scored.
    slider = {(a["episode_id"], a["evidence_point"]): a["slider"] for a in answers + practice}
    desk_args = study_args(data_dir, tmp_path / "desk.jsonl", "--seed", str(SEED + k), "--limit", "2")
    state = study.session_of(desk_args)
    assert [t.episode_id for t in state.trials] == order and state.practice[0].episode_id == "pillow/practice/000"
    run_participant(state, lambda trial, point: slider[(trial.episode_id, point)])
    web, desk = read_responses([answers_file]), read_responses([tmp_path / "desk.jsonl"])
    assert [(t.episode_id, t.taus, t.p_culprit) for t in web.trials] == [
        (t.episode_id, t.taus, t.p_culprit) for t in desk.trials
    ]
    assert web.settings["attention"] == {"p-web": {"passed": 1, "checks": 1}} and web.settings["practice_answers"] == 11


def test_scene_question_slider_and_submit_fit_the_screen_at_every_evidence_point(web_dir, tmp_path):
    server = make_server(web_dir, tmp_path / "answers.jsonl", port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    seen = {}
    try:
        with chromium() as driver:
            viewport(driver, 1366, SCREENS[1366, 768])
            driver.get(f"http://127.0.0.1:{server.server_address[1]}/index.html?participant=layout")
            click_text(driver, "I agree")
            click_text(driver, "Start")
            points = 0
            while points < 11:  # every evidence point of the first trial (the practice trial)
                if visible(driver, "#mw-ask"):
                    wait_for(lambda: driver.execute_script(FRAMES_READY), what="both houses of this step")
                    for (width, height), inner in SCREENS.items():
                        viewport(driver, width, inner)
                        fit = driver.execute_script(ON_SCREEN)
                        assert fit["question"] and fit["houses"] and fit["slider"] and fit["submit"], (width, fit)
                        assert not fit["scrolls"], (width, points, fit)
                        seen.setdefault(width, set()).add(fit["house"])
                        if points == 5:
                            shoot(driver, f"study-web-{width}x{height}.png")
                    viewport(driver, 1366, SCREENS[1366, 768])
                    move_slider(visible(driver, "#mw-slider"), 60)
                    visible(driver, "#mw-submit").click()
                    points += 1
                else:
                    visible(driver, "#mw-next").click()
    finally:
        server.shutdown()
        server.server_close()
    assert min(seen[1366]) >= 250 and min(seen[1920]) > max(seen[1366])  # the houses grow with the screen


def test_phones_and_small_windows_get_a_notice_and_declining_returns_with_its_code(web_dir):
    gate = "return document.getElementById('mw-gate').hidden ? null : document.getElementById('mw-gate').innerText"
    with chromium() as driver:
        desktop = driver.execute_script("return navigator.userAgent")
        phone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"
        driver.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": phone})
        viewport(driver, 390, 844, mobile=True)
        driver.get((web_dir / "index.html").as_uri() + "?participant=phone")
        notice = wait_for(lambda: driver.execute_script(gate), what="the phone notice")
        assert "Please use a computer" in notice
        root = driver.execute_script("return [document.documentElement.scrollWidth, innerWidth]")
        assert root[0] <= root[1]  # nothing to scroll sideways
        assert driver.execute_script("return window.marpleStudy.state.entries.length") == 0
        driver.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": desktop})
        viewport(driver, 900, 600)
        driver.get((web_dir / "index.html").as_uri() + "?participant=small")
        assert "make this window larger" in wait_for(lambda: driver.execute_script(gate), what="the notice")
        viewport(driver, 1366, SCREENS[1366, 768])
        wait_for(lambda: driver.execute_script(gate) is None, what="the notice to go once the window is large")
        click_text(driver, "I do not agree")
        wait_for(lambda: visible(driver, "#mw-return"), what="the way back for those who decline")
        shoot(driver, "study-web-declined.png")
        assert visible(driver, "#mw-code").text == "N0CONSENT"
        assert visible(driver, "#mw-return").get_attribute("href").endswith("cc=N0CONSENT")
        assert driver.execute_script("return window.marpleStudy.state.entries.length") == 0  # nothing recorded


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
