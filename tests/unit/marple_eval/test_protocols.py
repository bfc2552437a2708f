"""The three named protocols (paper, original, ours) on hand-made trials, and the stored query probabilities that
let one scoring show every combination rule, cutoff and last point."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from types import SimpleNamespace

import pytest

import marple_eval.protocol as protocol
from marple.benchmark.summary import views
from marple.cli.main import main
from marple_eval import ProtocolSettings, RunResults, TrialEvidence, evaluate
from marple_eval.methods.whodunit import QueryMethod
from marple_eval.protocol import Identities, score_trial
from marple_eval.report import protocol_views, protocols_table, report_runs
from marple_eval.results import NotRescorable, ResultsError, TrialResult
from marple_eval.settings import PROTOCOLS

SALT = Identities("hand-made")


def softmax_a(q_a: float, q_b: float, eta: float = 5.0) -> float:
    return 1.0 / (1.0 + math.exp(eta * (q_b - q_a)))


class TableModel(QueryMethod):
    """P(query | agent) by a hand-written rule of the agent's role, tau and the look-ahead (trial.steps_left).

    The culprit needs three steps more than it took: it is expected to reach the query state (0.6) only
    when the margin gives it room, and is seen to have reached it at tau = T (1.0). The other agent
    never looks like it before the middle of the trial (0.0: the ratio rule's zeros), then a little (0.2). (The
    hand-made evidence names the agents by role; real identities never do.)
    """

    name = "table"
    reads = frozenset({"vision"})

    def __init__(self) -> None:
        self.asked: list[int] = []

    def query_probability(self, agent, trial: TrialEvidence) -> float:
        self.asked.append(trial.tau)
        if agent.identity == "culprit":
            if trial.tau >= trial.horizon:
                return 1.0
            return 0.6 if trial.steps_left >= trial.horizon - trial.tau + 3 else 0.0
        return 0.0 if trial.tau < trial.horizon / 2 else 0.2


def hand_made_trial(tau: int, horizon: int, placement, rules, scenario: str = "hand") -> TrialEvidence:
    """What the harness would show at ``tau``: only what the table model reads (the identities say the role)."""
    order = [1, 0] if placement else [0, 1]
    agents = tuple(SimpleNamespace(label=label, identity=("culprit", "other")[k]) for label, k in zip("AB", order))
    return TrialEvidence("Who did it?", None, scenario, horizon, tau, agents, rules)


@pytest.fixture
def hand_made(monkeypatch):
    """Episodes reduced to what the harness reads, and trial evidence built by hand."""

    def fake_evidence(episode, tau, placement, modalities, names, rules):
        return hand_made_trial(tau, episode.horizon, placement, rules, episode.scenario)

    monkeypatch.setattr(protocol, "trial_evidence", fake_evidence)

    def episode(horizon: int, k: int = 0):
        return SimpleNamespace(
            episode_id=f"hand/h00/{k:03d}", scenario="hand", horizon=horizon, suspects=2, culprit=0, trajectories=()
        )

    return episode


# ---- the bundles ---------------------------------------------------------------------------------------------


def test_the_named_protocols_are_the_papers_text_and_the_released_code():
    paper, original = ProtocolSettings.named("paper"), ProtocolSettings.named("original")
    assert (paper.combine, paper.eta, paper.margin, paper.cutoff, paper.last_point) == ("softmax", 5.0, 0, None, "T")
    assert (original.combine, original.margin, original.cutoff, original.last_point) == ("ratio", 5, 40, "T-1")
    assert ProtocolSettings().bundle == PROTOCOLS["ours"]
    assert (paper.name, original.name, ProtocolSettings().name) == ("paper", "original", "ours")
    # every field stays changeable, and the name says what changed from the nearest bundle
    assert ProtocolSettings.named("original", margin=10, cutoff=None).name == "original-margin-10-cutoff-none"
    assert ProtocolSettings.from_record(ProtocolSettings.named("paper", seed=3).record()) == paper.__class__(
        **{**PROTOCOLS["paper"], "seed": 3}
    )
    with pytest.raises(ValueError, match="unknown protocol 'gpt'"):
        ProtocolSettings.named("gpt")


def test_query_points_hold_the_evidence_points_of_both_last_points():
    s = ProtocolSettings()
    assert s.taus(50) == [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50]
    assert ProtocolSettings(last_point="T-1").taus(50) == [0, 5, 10, 15, 20, 25, 29, 34, 39, 44, 49]
    assert s.query_points(50) == [0, 5, 10, 15, 20, 25, 29, 30, 34, 35, 39, 40, 44, 45, 49, 50]


# ---- each preset reproduces hand-computed answers ------------------------------------------------------------

HALF = 0.5
LOW = softmax_a(0.0, 0.2)  # softmax: A 0, B 0.2
EARLY = softmax_a(0.6, 0.0)  # softmax: A 0.6, B 0
LATE = softmax_a(0.6, 0.2)
SEEN = softmax_a(1.0, 0.2)

# T = 50; taus 0, 5, ..., 50 (T) or 0, 5, ..., 25, 29, 34, 39, 44, 49 (T - 1)
EXPECTED = {
    # margin 0: the culprit's three extra steps never fit, so its P(query) is 0 until it is seen at T; no cutoff
    "paper": [HALF] * 5 + [LOW] * 5 + [SEEN],
    # margin 5 fits them; ratio: 0.6 / (0.6 + 0) = 1 where B is 0, 0.6 / 0.8 = 0.75 later; cut where 55 - tau > 40
    "original": [HALF] * 3 + [1.0] * 2 + [0.75] * 6,
    # margin 10, cut where 60 - tau > 40, softmax
    "ours": [HALF] * 4 + [EARLY] + [LATE] * 5 + [SEEN],
}


@pytest.mark.parametrize("name", list(PROTOCOLS))
def test_each_protocol_gives_the_hand_computed_answers(hand_made, name):
    settings = ProtocolSettings.named(name)
    model = TableModel()
    trial = score_trial(model, hand_made(50), settings, SALT)
    assert trial.taus == settings.taus(50)
    assert trial.p_culprit == pytest.approx(EXPECTED[name])
    # asked at both last points' evidence points, never at a cut one
    assert sorted(set(model.asked)) == [tau for tau in settings.query_points(50) if not settings.is_cut(50, tau)]


def test_the_ratio_of_two_zeros_is_one_half_and_a_zero_against_any_chance_is_certainty(hand_made):
    ratio = ProtocolSettings(combine="ratio", margin=0, cutoff=None)
    trial = score_trial(TableModel(), hand_made(50), ratio, SALT)
    assert trial.p_culprit[:5] == [0.5] * 5  # both 0
    assert trial.p_culprit[5:10] == [0.0] * 5  # A 0 against B 0.2: B for certain
    assert trial.p_culprit[10] == pytest.approx(1.0 / 1.2)


def test_the_placement_does_not_change_what_the_culprit_is_given(hand_made):
    both = score_trial(TableModel(), hand_made(50), ProtocolSettings(labelings="both"), SALT)
    swapped = [lab for lab in both.labelings if lab["swap"]][0]
    assert swapped["p_b"] == pytest.approx(EXPECTED["ours"]) and swapped["q_b"][-1] == 1.0
    assert both.p_culprit == pytest.approx(EXPECTED["ours"])


# ---- one scoring shows every rule, cutoff and last point ------------------------------------------------------


def scored(settings: ProtocolSettings, horizons=(50, 30, 12, 44)) -> RunResults:
    episodes = [SimpleNamespace(episode_id=f"hand/h00/{k:03d}", scenario="hand", horizon=h, suspects=2, culprit=0)
                for k, h in enumerate(horizons)]  # fmt: skip
    run = evaluate(TableModel, episodes, settings, progress=False)
    return RunResults(run.method, run.settings, run.trials)


@pytest.mark.parametrize(
    "changes",
    [
        {"combine": "ratio"},
        {"cutoff": 40},
        {"cutoff": 20, "combine": "ratio"},
        {"last_point": "T-1"},
        {"last_point": "T-1", "combine": "ratio", "cutoff": 40, "eta": 2.0},
    ],
)
def test_a_rescored_run_equals_a_run_scored_that_way(hand_made, changes):
    uncut = scored(ProtocolSettings(margin=5, cutoff=None))
    again = scored(ProtocolSettings(**{"margin": 5, "cutoff": None, **changes}))
    view = uncut.rescored(**changes)
    assert [t.p_culprit for t in view.trials] == [t.p_culprit for t in again.trials]
    assert [t.taus for t in view.trials] == [t.taus for t in again.trials]
    assert view.protocol == again.protocol


def test_the_side_by_side_table_equals_separate_scorings(hand_made):
    one = scored(ProtocolSettings(cutoff=None))
    views = protocol_views(one, 40)
    for (combine, cut), shown in zip([("softmax", 40), ("softmax", None), ("ratio", 40), ("ratio", None)], views):
        separate = scored(ProtocolSettings(combine=combine, cutoff=cut))
        assert shown == separate.summary(thresholds=(0.8,))["overall"]["evidence"]["0.8"]
    table = protocols_table([one], 0.8, 40)
    assert "softmax, cutoff 40" in table and "ratio, no cutoff" in table and "n/a" not in table


def test_the_summary_heads_with_the_protocols_own_view_and_shows_the_other_cutoff_beside_it(hand_made):
    uncut, cut = scored(ProtocolSettings(cutoff=None)), scored(ProtocolSettings(cutoff=40))
    paper = views(SimpleNamespace(protocol=ProtocolSettings.named("paper")), [uncut, cut])
    assert list(paper) == ["no cutoff", "cutoff 40"]  # the paper's Table 2 rows sit beside the cutoff-40 view
    assert paper["no cutoff"] == [uncut] and len(paper["cutoff 40"]) == 2
    assert [t.p_culprit for t in paper["cutoff 40"][0].trials] == [t.p_culprit for t in cut.trials]
    original = views(SimpleNamespace(protocol=ProtocolSettings.named("original")), [uncut, cut])
    assert list(original) == ["cutoff 40", "no cutoff"] and original["no cutoff"] == [uncut]
    tight = scored(ProtocolSettings(cutoff=20))  # a tighter cutoff cannot show 40
    assert views(SimpleNamespace(protocol=ProtocolSettings.named("paper")), [tight])["cutoff 40"] == []


def test_what_one_scoring_cannot_show_is_refused_with_the_run_that_would(hand_made):
    cut = scored(ProtocolSettings(cutoff=40))
    with pytest.raises(NotRescorable, match="looser cutoff"):
        cut.rescored(cutoff=None)
    assert cut.rescored(cutoff=30).trials  # a tighter one is exact
    with pytest.raises(NotRescorable, match="margin 0 changes what the method answers"):
        cut.rescored(margin=0)
    assert protocol_views(cut, 40)[1] == "scored with cutoff 40"


def test_stored_query_probabilities_round_trip_through_the_file(hand_made, tmp_path):
    run = scored(ProtocolSettings(cutoff=40))
    loaded = RunResults.load(run.save(tmp_path / "table.json"))
    assert [t.query_taus for t in loaded.trials] == [t.query_taus for t in run.trials]
    assert loaded.trials[0].labelings[0]["q_a"][0] is None  # cut: never rolled out
    assert loaded.stores_query_probabilities is True
    assert loaded.protocol["name"] == "ours"


def test_results_without_stored_query_probabilities_load_and_say_what_they_cannot_show(tmp_path):
    """A version-1 file (before query probabilities were stored) loads and shows what it holds: its own rule and
    any tighter cutoff; another rule or last point is refused with a message naming the new run needed."""
    trial = TrialResult("s/h00/000", "s", 50, [0, 19, 20, 50], [0.9, 0.8, 0.7, 1.0], [])
    protocol_v1 = {"seed": 0, "labelings": "random", "points": 11, "last_point": "T", "margin": 10,
                   "cutoff": None, "eta": 5.0, "combine": "softmax"}  # fmt: skip
    data = RunResults("simulation-vision", {"protocol": protocol_v1}, [trial]).to_json()
    data["version"] = 1
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    old = RunResults.load(path)
    assert old.stores_query_probabilities is None
    assert old.with_cutoff(40).trials[0].p_culprit == [0.5, 0.5, 0.7, 1.0]
    with pytest.raises(NotRescorable, match="no query probabilities stored"):
        old.rescored(combine="ratio")
    with pytest.raises(NotRescorable, match="last point T-1 needs a new run"):
        old.rescored(last_point="T-1")
    assert protocol_views(old, 40)[2:] == ["not stored: new run"] * 2


def test_a_report_shows_what_each_run_can_and_says_why_the_others_are_left_out(hand_made, tmp_path):
    new = tmp_path / "new.json"
    scored(ProtocolSettings(cutoff=None)).save(new)
    trial = TrialResult("s/h00/000", "s", 50, [0, 19, 20, 50], [0.9, 0.8, 0.7, 1.0], [])
    data = RunResults("simulation-vision", {"protocol": {**ProtocolSettings().record(), "margin": 10}}, [trial])
    old = tmp_path / "old.json"
    old.write_text(json.dumps({**data.to_json(), "version": 1}))  # no query probabilities stored
    view = report_runs([new, old], protocol="original")
    assert [run.protocol["combine"] for run in view.runs] == ["ratio"] and view.runs[0].protocol["cutoff"] == 40
    assert len(view.left_out) == 1 and "no query probabilities stored" in view.left_out[0]
    assert "DIFFERENT TRIALS" in view.mixed_trials
    cut = report_runs([new], cutoff=30).runs
    assert [run.protocol["cutoff"] for run in cut] == [None, 30]


def test_a_method_that_does_not_combine_query_probabilities_shows_one_figure_under_both_rules(tmp_path):
    trial = TrialResult("s/h00/000", "s", 50, [0, 25, 50], [0.5, 0.8, 1.0], [{"swap": False, "p_a": [0.5, 0.8, 1.0],
                        "p_b": [0.5, 0.2, 0.0]}])  # fmt: skip
    settings = {"protocol": ProtocolSettings(cutoff=None).record(), "combines_query_probabilities": False}
    run = RunResults("distance", settings, [trial])
    views = protocol_views(run, 40)
    assert views[0] == views[2] and views[1] == views[3]


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t["labelings"][0].update(q_a=[0.5]), "q_a: expected 16 values"),
        (lambda t: t["labelings"][0]["q_b"].__setitem__(3, 1.5), r"q_b\[3\]"),
        (lambda t: t.update(query_taus=None), "q_a"),  # query probabilities without their points
        (lambda t: t["labelings"][0].pop("q_b"), "q_b"),
    ],
)
def test_malformed_query_probabilities_are_refused_with_the_field(hand_made, tmp_path, edit, message):
    data = scored(ProtocolSettings(cutoff=None), horizons=(50,)).to_json()
    edit(data["trials"][0])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError, match=message):
        RunResults.load(path)


def test_check_query_probabilities_refuses_what_is_not_a_probability(hand_made):
    class Broken(TableModel):
        def query_probability(self, agent, trial):
            return float("nan")

    with pytest.raises(ValueError, match="outside"):
        score_trial(Broken(), hand_made(20), ProtocolSettings(), SALT)


# ---- a real method, and the command line --------------------------------------------------------------------


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from marple_gym.datasets import DatasetSpec, Sizes, Unit, generate_dataset

    root = tmp_path_factory.mktemp("protocols") / "data"
    spec = DatasetSpec([Unit.scenario("pillow")], Sizes(2, 2, 2, 1), seed=3, splits=("test", "train-in"))
    generate_dataset(spec, root, workers=1, progress=False)
    return root


def test_the_ideal_observer_rescored_equals_the_ideal_observer_scored_that_way(data):
    """Rollouts are seeded per evidence point, so asking at both last points' points changes none of them."""
    from marple_eval import dataset_episodes, method_factory
    from marple_eval.inverse import TrainingPriors
    from marple_gym.datasets import MarpleDataset

    episodes = dataset_episodes(MarpleDataset(data), ["pillow"])
    priors = TrainingPriors(str(data), "in")

    def run(settings):
        factory = method_factory("ideal", rollouts=4)
        return evaluate(factory, episodes, settings, resources=priors, progress=False)

    original = ProtocolSettings.named("original")
    view = run(replace(original, cutoff=None)).rescored(**original.bundle)
    assert [t.p_culprit for t in view.trials] == [t.p_culprit for t in run(original).trials]


def test_evaluate_and_report_take_a_protocol_and_its_fields(data, tmp_path, capsys):
    out = tmp_path / "ideal.json"
    args = ["evaluate", "--data", str(data), "--model", "ideal", "--model-arg", "rollouts=3", "--no-progress"]
    assert main([*args, "--protocol", "original", "--cutoff", "none", "--out", str(out)]) == 0
    recorded = RunResults.load(out).protocol
    assert recorded["name"] == "original-cutoff-none" and recorded["combine"] == "ratio" and recorded["margin"] == 5
    capsys.readouterr()
    assert main(["report", str(out), "--no-paper", "--protocol", "paper", "--text"]) == 0
    shown = capsys.readouterr().out
    assert "paper-margin-5" in shown  # paper's rule, cutoff and last point at the run's own margin
    assert "protocols side by side" in shown
    with pytest.raises(SystemExit) as exit_code:
        main([*args, "--protocol", "gpt", "--out", str(out)])
    assert exit_code.value.code == 2
