"""The evaluation package: metrics, the protocol's guarantees, results files, human responses, reports."""

from __future__ import annotations

import json

import numpy as np
import pytest

from marple.cli.main import main
from marple.study.human import read_responses
from marple_eval import (
    AgentEvidence,
    ProtocolSettings,
    RunResults,
    TrialEvidence,
    WhodunitMethod,
    accuracy_curve,
    area_under_curve,
    bootstrap_interval,
    dataset_episodes,
    evaluate,
    evidence_needed,
    method_factory,
    sem_band,
)
from marple_eval.evidence import UndeclaredModalityError
from marple_eval.plots import plot_runs
from marple_eval.protocol import Identities, placements
from marple_eval.report import comparison_table, detail_table
from marple_eval.results import ResultsError, TrialResult
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset

F = np.linspace(0, 1, 11)


# ---- metrics against hand-computed values ------------------------------------------------------------


def test_accuracy_curve_and_the_papers_band():
    p = np.array([[0.5, 1.0], [0.7, 0.0], [0.9, 0.5]])
    assert accuracy_curve(p) == pytest.approx([0.7, 0.5])
    # sample std of (0.5, 0.7, 0.9) is 0.2; of (1, 0, 0.5) is 0.5; divided by sqrt(3)
    assert sem_band(p) == pytest.approx([0.2 / np.sqrt(3), 0.5 / np.sqrt(3)])


def test_band_of_a_single_trial_is_zero():
    p = np.array([[0.3, 0.9]])
    assert sem_band(p).tolist() == [0.0, 0.0]
    lo, hi = bootstrap_interval(p)
    assert lo.tolist() == hi.tolist() == [0.3, 0.9]


def test_bootstrap_interval_brackets_the_mean():
    rng = np.random.default_rng(0)
    p = rng.random((50, 11))
    lo, hi = bootstrap_interval(p, seed=1)
    mean = p.mean(axis=0)
    assert (lo <= mean).all() and (mean <= hi).all() and (hi - lo > 0).all()


def test_bootstrap_interval_is_deterministic_given_a_seed():
    p = np.random.default_rng(4).random((20, 11))
    lo, hi = bootstrap_interval(p, seed=7)
    lo2, hi2 = bootstrap_interval(p, seed=7)
    assert lo.tolist() == lo2.tolist() and hi.tolist() == hi2.tolist()
    assert bootstrap_interval(p, seed=8)[0].tolist() != lo.tolist()
    assert (lo <= p.mean(axis=0)).all() and (p.mean(axis=0) <= hi).all()


def test_evidence_needed_interpolates_linearly():
    curve = np.array([0.5, 0.6, 0.7, 0.75, 0.85, 0.9, 0.9, 0.95, 1, 1, 1])
    # crosses 0.8 between 0.3 (0.75) and 0.4 (0.85): 0.3 + 0.05 / 0.10 * 0.1 = 0.35
    assert evidence_needed(curve, F) == pytest.approx(0.35)


def test_evidence_needed_edge_cases():
    assert evidence_needed(np.full(11, 0.79), F) is None  # never reached
    assert evidence_needed(np.full(11, 0.8), F) == 0.0  # reached at tau = 0
    assert evidence_needed(np.array([0.5] * 10 + [0.8]), F) == pytest.approx(1.0)  # only at tau = T


def test_area_under_the_curve():
    assert area_under_curve(np.full(11, 0.5), F) == pytest.approx(0.5)
    assert area_under_curve(np.linspace(0, 1, 11), F) == pytest.approx(0.5)
    assert area_under_curve(np.ones(11), F) == pytest.approx(1.0)


# ---- the protocol ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("eval") / "data"
    spec = DatasetSpec([Unit.scenario("laundry"), Unit.scenario("pillow")], Sizes(1, 4, 1, 1), seed=5, splits=("test",))
    generate_dataset(spec, root, workers=1, progress=False)
    return MarpleDataset(root)


class SpyModel(WhodunitMethod):
    """Records everything it is shown and always answers "A"."""

    name = "spy"

    def __init__(self, modalities=frozenset({"vision"})) -> None:
        self.reads = frozenset(modalities)
        self.seen: list[TrialEvidence] = []

    def predict(self, trial: TrialEvidence) -> tuple[float, float]:
        self.seen.append(trial)
        return 1.0, 0.0


def test_models_never_see_evidence_past_tau_or_the_answer(data):
    spy = SpyModel({"vision", "audio", "language"})
    episodes = dataset_episodes(data, ["laundry"])
    evaluate(lambda: spy, episodes, ProtocolSettings(seed=1, cutoff=None), progress=False)
    assert len(spy.seen) == len(episodes) * 11
    for trial in spy.seen:
        assert max(agent.tau for agent in trial.agents) == trial.tau  # the culprit acts until T
        for agent in trial.agents:
            assert agent.tau <= trial.tau  # an agent done before tau has nothing more to show
            n = agent.tau + 1
            assert len(agent.vision) == n and len(agent.audio) == n and len(agent.intents) == n
            assert len(agent.actions) == agent.tau and len(agent.subgoals) == n
            for array in (agent.vision, agent.actions, agent.audio, agent.subgoals):
                assert array.base is None and not array.flags.writeable  # copies, not windows on the record
            assert agent.world().state.grid.tolist() == agent.vision[-1].tolist()
            hidden = {"missions", "query_steps", "spans", "subgoal", "mission_index", "culprit", "house_id", "seed"}
            assert not hidden & set(vars(agent)), "evidence must not name missions, the culprit or query times"
            assert agent.identity.startswith("agent-") and agent.identity not in ("A", "B")
        assert not hasattr(trial, "culprit") and not hasattr(trial, "episode_id")


def test_undeclared_modalities_are_refused(data):
    spy = SpyModel({"vision"})
    evaluate(lambda: spy, dataset_episodes(data, ["pillow"], limit=1), progress=False)
    agent: AgentEvidence = spy.seen[-1].agents[0]
    with pytest.raises(UndeclaredModalityError, match="audio"):
        _ = agent.audio
    with pytest.raises(UndeclaredModalityError, match="language"):
        _ = agent.intents


def test_always_answering_a_does_not_pay(data):
    episodes = dataset_episodes(data, ["laundry", "pillow"])
    both = evaluate(lambda: SpyModel(), episodes, ProtocolSettings(labelings="both"), progress=False)
    assert both.matrix() == pytest.approx(np.full((len(episodes), 11), 0.5))
    rand = evaluate(lambda: SpyModel(), episodes, ProtocolSettings(seed=3, cutoff=None), progress=False)
    swaps = [t.labelings[0]["swap"] for t in rand.trials]
    assert any(swaps) and not all(swaps)  # both placements occur
    for t, swap in zip(rand.trials, swaps):
        assert t.p_culprit == [0.0 if swap else 1.0] * 11


def test_placements_and_identities_are_seeded():
    s = ProtocolSettings(seed=9)
    assert placements(s, "laundry/h00/001") == placements(ProtocolSettings(seed=9), "laundry/h00/001")
    assert [placements(s, f"x/{i}")[0] for i in range(40)].count(True) not in (0, 40)
    run = Identities()
    assert run("laundry", "A") == run("laundry", "A") != run("laundry", "B")
    assert Identities()("laundry", "A") != run("laundry", "A")  # salted afresh per run: not computable


def test_uniform_and_distance_reference_models(data):
    episodes = dataset_episodes(data, ["laundry", "pillow"])
    uniform = evaluate(method_factory("uniform"), episodes, progress=False)
    assert uniform.matrix() == pytest.approx(np.full((len(episodes), 11), 0.5))
    distance = evaluate(method_factory("distance"), episodes, progress=False)
    # at tau = T the culprit's world shows the query state: the heuristic is sure
    assert distance.matrix()[:, -1] == pytest.approx(1.0)


def test_parallel_evaluation_matches_serial(data):
    episodes = dataset_episodes(data, ["pillow"])
    serial = evaluate(method_factory("distance"), episodes, ProtocolSettings(seed=2), progress=False)
    parallel = evaluate(method_factory("distance"), episodes, ProtocolSettings(seed=2), workers=2, progress=False)
    assert serial.matrix() == pytest.approx(parallel.matrix())


class FailingModel(WhodunitMethod):
    name = "flaky"
    reads = frozenset()
    calls = 0
    fail_after: int | None = None

    def predict(self, trial):
        FailingModel.calls += 1
        if self.fail_after is not None and FailingModel.calls > self.fail_after:
            raise KeyboardInterrupt
        return 0.6, 0.4


def test_an_interrupted_evaluation_resumes(data, tmp_path):
    out = tmp_path / "run.json"
    episodes = dataset_episodes(data, ["laundry", "pillow"])
    FailingModel.calls, FailingModel.fail_after = 0, 11 * 3  # dies during the fourth trial
    with pytest.raises(KeyboardInterrupt):
        evaluate(FailingModel, episodes, ProtocolSettings(cutoff=None), out=out, progress=False)
    journal = tmp_path / "run.json.journal.jsonl"
    assert journal.is_file() and len(journal.read_text().splitlines()) == 1 + 3
    FailingModel.calls, FailingModel.fail_after = 0, None
    run = evaluate(FailingModel, episodes, ProtocolSettings(cutoff=None), out=out, progress=False)
    assert FailingModel.calls == 11 * (len(episodes) - 3)
    assert len(run.trials) == len(episodes) and not journal.exists()
    assert RunResults.load(out).matrix() == pytest.approx(run.matrix())


def test_a_journal_line_cut_short_by_a_crash_is_dropped_but_a_malformed_line_names_the_file_and_line(data, tmp_path):
    out = tmp_path / "run.json"
    episodes = dataset_episodes(data, ["pillow"])
    FailingModel.calls, FailingModel.fail_after = 0, 11 * 2  # dies during the third trial
    with pytest.raises(KeyboardInterrupt):
        evaluate(FailingModel, episodes, ProtocolSettings(cutoff=None), out=out, progress=False)
    journal = tmp_path / "run.json.journal.jsonl"
    whole = journal.read_text()
    journal.write_text(whole + '{"episode_id": "pillow/h')  # the crash came mid-write
    FailingModel.calls, FailingModel.fail_after = 0, None
    run = evaluate(FailingModel, episodes, ProtocolSettings(cutoff=None), out=out, progress=False)
    assert FailingModel.calls == 11 * (len(episodes) - 2) and len(run.trials) == len(episodes)
    header, first, second = whole.splitlines()
    for bad, line, reason in (
        ("{not json", 2, "malformed JSON"),
        (json.dumps({**json.loads(first), "horizon": "long"}), 2, "horizon: expected an integer"),
        (json.dumps({**json.loads(first), "extra": 1}), 2, "extra: unknown key"),
    ):
        journal.write_text(f"{header}\n{bad}\n{second}\n")
        with pytest.raises(ResultsError, match=rf"run.json.journal.jsonl: line {line}[.:] ?{reason}"):
            evaluate(FailingModel, episodes, ProtocolSettings(cutoff=None), out=out, progress=False)


def test_invalid_model_outputs_are_reported(data):
    class Broken(SpyModel):
        def predict(self, trial):
            return float("nan"), 1.0

    with pytest.raises(ValueError, match=r"method 'spy' answered \(nan, 1.0\): probabilities must be finite"):
        evaluate(lambda: Broken(), dataset_episodes(data, ["pillow"], limit=1), progress=False)


# ---- files, humans, reports ---------------------------------------------------------------------------


def test_results_round_trip_and_bad_files(data, tmp_path):
    run = evaluate(method_factory("uniform"), dataset_episodes(data, ["pillow"]), progress=False)
    path = run.save(tmp_path / "r.json")
    assert RunResults.load(path).to_json() == run.to_json()
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ResultsError, match="bad.json: malformed JSON"):
        RunResults.load(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(ResultsError, match="not a MARPLE results file"):
        RunResults.load(tmp_path / "other.json")


def answer(episode_id, point, slider, shown, participant="p1"):
    return {
        "type": "answer",
        "participant": participant,
        "episode_id": episode_id,
        "scenario": "laundry",
        "trial_index": int(episode_id[1:]) - 1,  # e1, e2, ...: the session's trials in order
        "culprit_shown_as": shown,
        "evidence_point": point,
        "tau": point * 3,
        "horizon": 30,
        "slider": slider,
        "time": "2026-11-22T00:00:00",
    }


def test_human_responses_are_scored_like_a_model(tmp_path):
    lines = [{"type": "session", "participant": "p1", "seed": 4, "modality": "vision", "trials": ["e1", "e2", "e3"]}]
    lines += [answer("e1", k, 20, "A") for k in range(11)]  # 20 -> 0.8 for A, shown as A
    lines += [answer("e2", k, 90, "B") for k in range(11)]  # 90 -> 0.9 for B, the culprit
    lines += [answer("e3", k, 50, "A") for k in range(5)]  # an unfinished trial
    path = tmp_path / "study.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + '\n{"type": "answ')  # crash mid-line
    run = read_responses([path])
    assert run.method == "human" and len(run.trials) == 2
    assert run.matrix() == pytest.approx(np.array([[0.8] * 11, [0.9] * 11]))
    assert run.settings["incomplete_trials"] == 1 and run.settings["seeds"] == [4]


def test_report_table_has_the_papers_reference_rows_and_plots(data, tmp_path):
    runs = [
        evaluate(method_factory(m), dataset_episodes(data, ["laundry", "pillow"]), progress=False)
        for m in ("uniform", "distance")
    ]
    table = comparison_table(runs)
    assert "| uniform |" in table and "not reached" in table and "paper: Human" in table and "0.48" in table
    png = plot_runs(runs, tmp_path / "fig.png")
    assert png.stat().st_size > 10_000


def test_cli_evaluate_and_report(data, tmp_path, capsys):
    out = tmp_path / "d.json"
    assert main(["evaluate", "--data", str(data.root), "--model", "distance", "--out", str(out), "--no-progress"]) == 0
    assert "distance" in capsys.readouterr().out
    assert main(["report", str(out), "--plot", str(tmp_path / "p.png")]) == 0
    assert "paper: Vision only" in capsys.readouterr().out
    assert main(["evaluate", "--data", str(data.root), "--model", "oracle"]) == 2
    assert "unknown whodunit method 'oracle'" in capsys.readouterr().err
    assert main(["evaluate", "--data", str(tmp_path / "nothing")]) == 2
    assert main(["report", str(tmp_path / "missing.json")]) == 2


# ---- the summary block, in/ood rows, both intervals ---------------------------------------------------


def tiny_run(split: str | None = None, method: str = "tiny") -> RunResults:
    """Three trials, three evidence points (fractions 0, 0.5, 1), two scenarios."""
    rows = [("s1", [0.5, 0.7, 0.9]), ("s1", [0.5, 0.9, 1.0]), ("s2", [0.5, 0.5, 0.6])]
    trials = [TrialResult(f"{sc}/h00/{i:03d}", sc, 10, [0, 5, 10], p) for i, (sc, p) in enumerate(rows)]
    return RunResults(method, {"train_split": split} if split else {}, trials)


def test_saved_results_carry_a_summary_with_both_intervals(tmp_path):
    path = tiny_run("in").save(tmp_path / "tiny.json")
    summary = json.loads(path.read_text())["summary"]
    assert summary["fractions"] == [0.0, 0.5, 1.0] and summary["train_split"] == "in"
    assert summary["bootstrap"] == {"level": 0.95, "resamples": 2000, "seed": 0}
    overall, s1, s2 = summary["overall"], summary["scenarios"]["s1"], summary["scenarios"]["s2"]
    assert overall["n"] == 3 and s1["n"] == 2 and s2["n"] == 1
    assert overall["mean"] == pytest.approx([0.5, 0.7, 2.5 / 3])
    # sample variance of (0.7, 0.9, 0.5) is 0.04; of (0.9, 1.0, 0.6) is 0.13 / 3; sem = sqrt(variance / 3)
    assert overall["sem"] == pytest.approx([0.0, 0.2 / np.sqrt(3), np.sqrt(0.13 / 9)])
    # crosses 0.8 between 0.5 (0.7) and 1.0 (0.8333): 0.5 + 0.1 / (0.4 / 3) * 0.5 = 0.875
    assert overall["evidence_for_0.8"] == pytest.approx(0.875)
    assert overall["auc"] == pytest.approx((0.5 + 0.7) / 4 + (0.7 + 2.5 / 3) / 4)
    assert s1["mean"] == pytest.approx([0.5, 0.8, 0.95]) and s1["sem"] == pytest.approx([0.0, 0.1, 0.05])
    assert s1["evidence_for_0.8"] == pytest.approx(0.5)
    assert s2["evidence_for_0.8"] is None and s2["sem"] == [0.0, 0.0, 0.0]
    assert s2["bootstrap_low"] == s2["bootstrap_high"] == pytest.approx([0.5, 0.5, 0.6])  # one trial
    for group in (overall, s1):
        assert group["bootstrap_low"][0] == group["bootstrap_high"][0] == pytest.approx(0.5)  # no spread at tau = 0
        assert all(lo <= m <= hi for lo, m, hi in zip(group["bootstrap_low"], group["mean"], group["bootstrap_high"]))
    assert overall["bootstrap_high"][1] - overall["bootstrap_low"][1] > 0
    again = tiny_run("in").save(tmp_path / "again.json")
    assert json.loads(again.read_text())["summary"] == summary  # the bootstrap is seeded: same trials, same block


def test_results_files_without_a_summary_still_load(tmp_path):
    old = tiny_run().to_json()
    del old["summary"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    run = RunResults.load(tmp_path / "old.json")
    assert run.matrix() == pytest.approx(tiny_run().matrix())
    assert run.summary()["overall"]["evidence_for_0.8"] == pytest.approx(0.875)


def test_report_sets_in_and_ood_runs_apart_and_details_both_intervals():
    runs = [tiny_run("in", "sim"), tiny_run("ood", "sim")]
    table = comparison_table(runs, with_paper=True)
    row = next(line for line in table.splitlines() if line.startswith("| sim | in |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:4] == ["sim", "in", "-", "3"]  # no protocol recorded: cutoff unknown
    assert cells[4].startswith("0.88 [") and cells[-3:-1] == ["0.50", "not reached"]
    assert "| sim | ood | - | 3 | 0.88 [" in table
    assert "| paper: Vision only | in | unknown | 50 | 0.85 |" in table
    assert "| paper: Vision only | ood | unknown | 50 | 0.92 |" in table
    detail = detail_table(runs)
    assert "σ/√n" in detail and "bootstrap 95%" in detail
    # s1 at half the evidence: mean 0.8, sem 0.1, both trials resampled give a bootstrap interval within [0.7, 0.9]
    row = next(line for line in detail.splitlines() if line.startswith("| sim | in | s1 | 0.50 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[4:7] == ["2", "0.800", "± 0.100 [0.700, 0.900]"]
    lo, hi = (float(x) for x in cells[7].strip("[]").split(","))
    assert 0.7 <= lo <= 0.8 <= hi <= 0.9
    assert sum(line.startswith("| sim | ood | all |") for line in detail.splitlines()) == 3  # pooled rows


def test_plots_draw_either_band(tmp_path):
    assert plot_runs([tiny_run()], tmp_path / "b.png", band="bootstrap").stat().st_size > 10_000
    with pytest.raises(ValueError, match="band"):
        plot_runs([tiny_run()], tmp_path / "x.png", band="sd")


def test_cli_report_detail_and_bootstrap_band(tmp_path, capsys):
    paths = [tiny_run(split).save(tmp_path / f"{split}.json") for split in ("in", "ood")]
    png = tmp_path / "fig.png"
    assert main(["report", *map(str, paths), "--detail", "--band", "bootstrap", "--plot", str(png), "--text"]) == 0
    out = capsys.readouterr().out
    assert "± σ/√n (paper)" in out and "bootstrap 95%" in out and png.is_file()
    with pytest.raises(SystemExit):
        main(["report", str(paths[0]), "--band", "sd"])


# ---- protocol rules and intervals on hand-made trials -------------------------------------------------------


@pytest.mark.parametrize(
    "horizon, tau, margin, cutoff, cut",
    [
        (51, 0, 10, 40, True),  # 51 + 10 - 0 = 61 > 40
        (51, 21, 10, 40, False),  # 51 + 10 - 21 = 40: not more than 40
        (51, 20, 10, 40, True),  # 41 > 40
        (30, 0, 10, 40, False),  # a short trial is never cut
        (51, 0, 10, None, False),  # --cutoff none
        (51, 11, 0, 40, False),  # margin 0: the paper-text rule T - tau > 40
    ],
)
def test_the_cutoff_follows_the_original_code(horizon, tau, margin, cutoff, cut):
    assert ProtocolSettings(margin=margin, cutoff=cutoff).is_cut(horizon, tau) is cut


def test_last_evidence_point_is_T_or_T_minus_1():
    assert ProtocolSettings().taus(50)[-1] == 50
    assert ProtocolSettings(last_point="T-1").taus(50) == [int(k * 49 / 10 + 0.5) for k in range(11)]
    with pytest.raises(ValueError, match="last_point"):
        ProtocolSettings(last_point="T+1")


def test_combination_rules_softmax_and_ratio():
    from marple_eval.evidence import QueryRules
    from marple_eval.methods.whodunit import combine_query_probabilities

    a, b = combine_query_probabilities(0.6, 0.2, QueryRules(eta=5.0))
    assert a == pytest.approx(np.exp(5 * 0.6) / (np.exp(5 * 0.6) + np.exp(5 * 0.2)))
    assert combine_query_probabilities(0.6, 0.2, QueryRules(combine="ratio")) == pytest.approx((0.75, 0.25))
    assert combine_query_probabilities(0.0, 0.0, QueryRules(combine="ratio")) == (0.5, 0.5)
    assert combine_query_probabilities(0.0, 0.0, QueryRules()) == (0.5, 0.5)


def test_with_cutoff_turns_cut_points_to_one_half():
    trial = TrialResult("s/h00/000", "s", 50, [0, 19, 20, 50], [0.9, 0.8, 0.7, 1.0], [])
    run = RunResults("m", {"protocol": {"cutoff": None, "margin": 10}}, [trial])
    cut = run.with_cutoff(40)
    assert cut.trials[0].p_culprit == [0.5, 0.5, 0.7, 1.0]  # 60 and 41 are cut; 50 + 10 - 20 = 40 is not
    assert cut.protocol["cutoff"] == 40
    with pytest.raises(ResultsError, match="looser cutoff"):
        cut.with_cutoff(None)


def test_evidence_interval_on_hand_made_curves():
    from marple_eval.metrics import crossings, evidence_interval, mean_evidence_interval

    fractions = np.linspace(0, 1, 11)
    # crossings: interpolated, 0 when reached at once, inf when never
    curves = np.array([[0.5, 0.7, 0.9] + [1.0] * 8, [0.9] * 11, [0.5] * 11])
    assert crossings(curves, fractions, 0.8).tolist() == pytest.approx([0.15, 0.0, np.inf])
    # identical trials: no spread, the interval collapses onto the value
    same = np.tile(curves[0], (30, 1))
    e = evidence_interval(same, fractions, 0.8)
    assert e == pytest.approx({"value": 0.15, "low": 0.15, "high": 0.15})
    # half the trials never reach 0.8: the pooled curve reaches it late and resamples often never do
    mixed = np.vstack([np.ones((10, 11)), np.full((10, 11), 0.55)])
    e = evidence_interval(mixed, fractions, 0.8)
    assert e["value"] is None and e["high"] is None
    e = evidence_interval(mixed, fractions, 0.6)  # mean 0.775 >= 0.6 from the start
    assert e["value"] == 0.0 and e["low"] == 0.0
    m = mean_evidence_interval([same, np.full((10, 11), 0.55)], fractions, 0.8)
    assert m["value"] == pytest.approx((0.15 + 1.0) / 2) and m["unreached"] == 1


class Guess(WhodunitMethod):
    """Always "A": a shortcut, no theory of mind."""

    name, role = "guess", "shortcut"

    def predict(self, trial: TrialEvidence) -> tuple[float, float]:
        return 1.0, 0.0


def test_a_run_records_its_methods_role_in_the_envelope_and_settings(data, tmp_path):
    run = evaluate(Guess, dataset_episodes(data, ["laundry"]), out=tmp_path / "guess.json", progress=False)
    saved = json.loads((tmp_path / "guess.json").read_text())
    assert run.role == saved["role"] == saved["settings"]["role"] == "shortcut" and saved["family"] == "whodunit"
    assert RunResults.load(tmp_path / "guess.json").role == "shortcut"
