"""Scoring human responses: one session per participant (the first), practice and attention checks not scored,
the CSV of every answer, and runs named by their files and participants."""

from __future__ import annotations

import csv
import json
import logging

from study_fixtures import answer, body, check, participant_lines

from marple.cli.main import main
from marple.study.human import CSV_COLUMNS, read_responses, write_csv
from marple_eval.results import RunResults


def sliders(run: RunResults, participant: str) -> list[list[float]]:
    return [t.p_culprit for t in run.trials if t.labelings[0]["participant"] == participant]


def with_slider(lines: list[dict], slider: int) -> list[dict]:
    return [line | {"slider": slider} if line["type"] == "answer" else line for line in lines]


def test_a_participant_s_first_session_counts_and_later_ones_are_reported_not_scored(tmp_path, caplog):
    first = with_slider(participant_lines("c1", "p1"), 10)
    again = [e | {"started": "2026-11-26T11:00:00.000+00:00"} if e["type"] == "session" else e for e in first]
    again = with_slider([e | {"client": "c2"} for e in again], 90)  # the same PROLIFIC_PID in a second browser
    other = participant_lines("c3", "p2")
    (tmp_path / "server.jsonl").write_bytes(body(*again, *first, *other))  # the later session written first
    with caplog.at_level(logging.WARNING):
        run = read_responses([tmp_path / "server.jsonl"])
    assert run.settings["participants"] == ["p1", "p2"] and len(run.trials) == 4
    assert {round(p, 2) for row in sliders(run, "p1") for p in row} <= {0.1, 0.9}
    (tmp_path / "alone.jsonl").write_bytes(body(*first))
    alone = read_responses([tmp_path / "alone.jsonl"])
    assert sliders(run, "p1") == sliders(alone, "p1")  # exactly the first session's answers
    assert run.settings["repeat_sessions"] == [
        {"participant": "p1", "session": "c2", "file": str(tmp_path / "server.jsonl"), "started": again[0]["started"]}
    ]
    assert "participant p1 took part again (session c2)" in caplog.text
    # Across files, and with the earlier session in the file given last: the start time decides.
    (tmp_path / "a.jsonl").write_bytes(body(*again))
    (tmp_path / "b.jsonl").write_bytes(body(*first))
    assert sliders(read_responses([tmp_path / "a.jsonl", tmp_path / "b.jsonl"]), "p1") == sliders(alone, "p1")


def test_an_evidence_point_answered_twice_in_a_session_keeps_the_first_answer_and_is_reported(tmp_path, caplog):
    twice = participant_lines("c1", "p1") + [answer("c1", "p1", 99, 0, 0, slider=90)]  # point 0 again, other slider
    again = participant_lines("c2", "p2") + [answer("c2", "p2", 98, 1, 4, slider=3), answer("c2", "p2", 99, 1, 4)]
    path = tmp_path / "answers.jsonl"
    path.write_bytes(body(*twice, *again, *participant_lines("c3", "p3")))
    with caplog.at_level(logging.WARNING):
        run = read_responses([path])
    assert run.settings["repeated_answers"] == {"p1": 1, "p2": 2}  # p3 answered each point once: not listed
    warnings = [r.getMessage() for r in caplog.records if "repeated answer" in r.getMessage()]
    assert warnings == [
        "ignored 3 repeated answer(s) to evidence points already answered in the same session, keeping the first: "
        "p1 1, p2 2"
    ]
    (tmp_path / "once.jsonl").write_bytes(body(*participant_lines("c1", "p1")))
    once = read_responses([tmp_path / "once.jsonl"])
    assert sliders(run, "p1") == sliders(once, "p1")  # the first answer is the one scored
    assert once.settings["repeated_answers"] == {}
    write_csv([path], tmp_path / "answers.csv")
    rows = list(csv.DictReader((tmp_path / "answers.csv").open()))
    assert [r["participant"] for r in rows if r["why_not_scored"] == "answered before"] == ["p1", "p2", "p2"]


def test_practice_and_attention_checks_are_not_scored_and_checks_are_reported(tmp_path, caplog):
    careful = participant_lines("c1", "p1")
    careful.insert(12, check("c1", "p1", 99, slider=97))
    careful.insert(
        1, answer("c1", "p1", 98, 0, 0, slider=3) | {"episode_id": "pillow/practice/000", "block": "practice"}
    )
    careless = participant_lines("c2", "p2") + [check("c2", "p2", 99, slider=40)]
    path = tmp_path / "answers.jsonl"
    path.write_bytes(body(*careful, *careless))
    with caplog.at_level(logging.WARNING):
        run = read_responses([path])
    assert run.settings["attention"] == {"p1": {"passed": 1, "checks": 1}, "p2": {"passed": 0, "checks": 1}}
    assert run.settings["practice_answers"] == 1 and len(run.trials) == 4
    assert "participant p2 passed 0 of 1 attention checks" in caplog.text
    strict = read_responses([path], exclude_inattentive=True)
    assert strict.settings["participants"] == ["p1"] and strict.settings["excluded_inattentive"] == ["p2"]
    assert len(strict.trials) == 2


def test_the_csv_has_one_row_per_answer_saying_whether_it_is_scored(tmp_path, capsys):
    lines = participant_lines("c1", "p1") + [check("c1", "p1", 23, slider=99)]
    repeat = [e | {"client": "c9"} for e in participant_lines("c1", "p1")]
    repeat[0]["started"] = "2026-11-27T00:00:00.000+00:00"
    path = tmp_path / "answers.jsonl"
    path.write_bytes(body(*lines, *repeat))
    out = tmp_path / "answers.csv"
    assert main(["evaluate", "--responses", str(path), "--csv", str(out), "--out", str(tmp_path / "human.json")]) == 0
    rows = list(csv.DictReader(out.open()))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == 22 + 1 + 22
    scored = [r for r in rows if r["scored"] == "True"]
    assert len(scored) == 22 and {r["session"] for r in scored} == {"c1"}
    assert {r["why_not_scored"] for r in rows if r["scored"] == "False"} == {"attention check", "repeat session"}
    first = scored[0]
    assert (first["episode_id"], first["evidence_point"], first["evidence_fraction"]) == ("pillow/h00/000", "0", "0.0")
    assert float(first["p_culprit"]) in (0.0, 1.0) and first["culprit_shown_as"] in ("A", "B")
    assert next(r for r in rows if r["kind"] == "check")["passed"] == "True"
    assert write_csv([path], tmp_path / "again.csv") == len(rows)
    assert main(["evaluate", "--data", str(tmp_path), "--csv", str(tmp_path / "x.csv")]) == 2
    assert "--csv and --exclude-inattentive go with --responses" in capsys.readouterr().err
    assert not (tmp_path / "x.csv").exists()


def test_report_names_each_run_by_its_files_and_participants(tmp_path, capsys):
    pilot = [e | {"participant": "sim-distance"} for e in participant_lines("c1", "x")]
    real = participant_lines("c2", "p1") + participant_lines("c3", "p2")
    (tmp_path / "pilot.jsonl").write_bytes(body(*pilot))
    (tmp_path / "study.jsonl").write_bytes(body(*real))
    for name in ("pilot", "study"):
        argv = ["evaluate", "--responses", str(tmp_path / f"{name}.jsonl"), "--out", str(tmp_path / f"{name}.json")]
        assert main(argv) == 0
    capsys.readouterr()
    assert main(["report", str(tmp_path / "pilot.json"), str(tmp_path / "study.json"), "--no-paper"]) == 0
    table = capsys.readouterr().out
    assert "| human: pilot.jsonl (sim-distance) |" in table and "| human: study.jsonl (p1, p2) |" in table
    assert json.loads((tmp_path / "study.json").read_text())["method"] == "human"  # the method stays "human"
