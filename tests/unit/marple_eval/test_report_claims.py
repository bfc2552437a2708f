"""What reports set beside each figure: the paper's Table 2 under every protocol, the accuracy at tau = 0, and
intervals that hold the model seeds' variance."""

from __future__ import annotations

import numpy as np
import pytest

from marple_eval.metrics import DEFAULT_FRACTIONS, seed_evidence_interval
from marple_eval.report import (
    comparison_table,
    paper_figure,
    paper_protocols_table,
    paper_source,
    seed_groups,
    seeds_table,
)
from marple_eval.results import PRIVILEGED_MARK, RunResults, TrialResult
from marple_eval.settings import ProtocolSettings

RAMP = np.linspace(0.5, 1.0, 11)


def run(method: str, p: np.ndarray, **settings) -> RunResults:
    """A run of hand-made trials: trial i answers row i of ``p`` (no query probabilities stored)."""
    trials = [TrialResult(f"s/h00/{i:03d}", "s", 20, list(range(0, 21, 2)), row.tolist()) for i, row in enumerate(p)]
    return RunResults(method, {"combines_query_probabilities": False, **settings}, trials)


def test_the_papers_figure_stands_beside_the_same_method_and_split():
    assert paper_figure(run("simulation-vision", RAMP[None], train_split="in")) == "0.85"
    assert paper_figure(run("simulation-all", RAMP[None], train_split="ood")) == "0.81"
    assert paper_figure(run("human", RAMP[None])) == "0.48"  # the paper's humans have no split
    assert paper_figure(run("bip", RAMP[None], train_split="in")) == "-"  # no such row in the paper
    assert "50 in all" in paper_source()["trials"] and "unknown" in paper_source()["protocol"]
    table = comparison_table([run("simulation-vision", np.tile(RAMP, (4, 1)), train_split="in")])
    assert "| accuracy at tau = 0 [95% CI] | paper (Table 2) |" in table
    assert (
        "| simulation-vision | in | - | 4 | 0.60 [0.60, 0.60] | 0.20 [0.20, 0.20] | 0.50 [0.50, 0.50] | 0.85 |" in table
    )


def test_each_protocol_column_comes_from_a_run_that_shows_it_exactly():
    """A run scored under `ours` (margin 10) fills the `ours` column; `paper` (margin 0) and `original` (margin 5,
    the action match) need runs of their own, and say so."""
    ours = run("simulation-vision", np.tile(RAMP, (4, 1)), train_split="in", protocol=ProtocolSettings().record())
    original = run(
        "simulation-vision",
        np.tile(RAMP, (4, 1)),
        train_split="in",
        protocol=ProtocolSettings.named("original").record(),
    )
    table = paper_protocols_table([ours])
    row = table.splitlines()[-1]
    assert row.startswith(
        "| simulation-vision | in | 4 | 0.85 | new run: --protocol paper | new run: --protocol original |"
    )
    assert row.endswith("| 0.60 [0.60, 0.60] |")
    row = paper_protocols_table([ours, original]).splitlines()[-1]
    assert "new run: --protocol original" not in row and "action-match" in paper_protocols_table([ours])


def test_privileged_prior_runs_are_marked_in_every_table():
    labels = run("bip", RAMP[None], train_split="in", mission_prior="labels", mission_prior_privileged=True)
    assert labels.name == f"bip {PRIVILEGED_MARK}" and labels.privileged_prior
    assert run("bip", RAMP[None], mission_prior="uniform").name == "bip"
    # Files from before the choice recorded training-label priors only.
    assert run("ideal observer", RAMP[None], mission_priors={"s": {}}).privileged_prior
    assert PRIVILEGED_MARK in comparison_table([labels])


def test_seed_intervals_hold_the_seeds_variance():
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 0.05, size=(30, 11))
    # Three seeds that agree: drawing seeds adds nothing to drawing trials.
    same = [np.clip(RAMP + noise, 0, 1)] * 3
    pooled = seed_evidence_interval(same, DEFAULT_FRACTIONS)
    assert pooled == seed_evidence_interval(same, DEFAULT_FRACTIONS, resample_seeds=False)
    # Three seeds that disagree (their curves shifted): the same pooled figure, a wider interval with the seeds.
    shifted = [np.clip(RAMP + noise + shift, 0, 1) for shift in (-0.1, 0.0, 0.1)]
    both = seed_evidence_interval(shifted, DEFAULT_FRACTIONS)
    trials = seed_evidence_interval(shifted, DEFAULT_FRACTIONS, resample_seeds=False)
    assert both["value"] == trials["value"] and both["seeds"] == 3 and both["trials"] == 30
    assert both["high"] - both["low"] > 1.5 * (trials["high"] - trials["low"])
    # The pooled figure is the crossing of the mean curve over seeds and trials: hand-computed on a ramp.
    ramps = [np.tile(RAMP + shift, (2, 1)) for shift in (-0.05, 0.05)]
    assert seed_evidence_interval(ramps, DEFAULT_FRACTIONS)["value"] == pytest.approx(0.6)


def test_seeds_table_pools_one_method_over_its_seeds():
    runs = [
        run("simulation-vision", np.tile(RAMP + d, (3, 1)), train_split="in", model_seed=s)
        for s, d in enumerate((-0.05, 0, 0.05))
    ]
    assert list(seed_groups(runs)) == [("simulation-vision", "in", "-")]
    table = seeds_table(runs)
    assert "| simulation-vision | in | - | 3 x 3 | 0.60 [" in table and "| 0.70, 0.60, 0.50 | 0.50 |" in table
    assert seeds_table(runs[:1]) == ""  # one seed: nothing to pool
