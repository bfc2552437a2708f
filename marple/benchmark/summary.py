"""The benchmark's report: ``summary.md``, ``benchmark.json`` (figures only, so two runs of one command
compare byte for byte), ``timings.json`` and ``figure4.png``.

Every run is shown with the cutoff (the protocol's, or the original code's 40)
and without it, the protocol's own view first as the headline: with the cutoff
the pooled curve mostly measures which scenarios are long. Each row has its
accuracy at tau = 0 beside it (what the method knows before any evidence) and
the paper's Table 2 figure for the same method and split. With several model
seeds the headline pools them, with intervals over seeds and trials. Orderings
between methods are stated only where their 95 % intervals do not overlap, and
figures on the floor (reached only in the last tenth of the evidence, where the
evidence shows the query state itself) are named as such.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from marple.benchmark.config import PLANNER_ROWS, BenchmarkConfig, training_budget
from marple.benchmark.timings import Timings
from marple_eval.inverse.checks import ceiling_violations
from marple_eval.metrics import MIN_TRIALS, threshold_key
from marple_eval.report import (
    comparison_table,
    paper_protocols_table,
    paper_source,
    protocols_table,
    seed_figures,
    seed_groups,
    seeds_table,
)
from marple_eval.results import RunResults

FLOOR = 0.9
"""Evidence needed at or above this is on the floor: accuracy reaches the threshold only in the last tenth of the
evidence, where at tau = T the evidence shows the query state itself."""


def views(cfg: BenchmarkConfig, runs: list[RunResults]) -> dict[str, list[RunResults]]:
    """The runs under the protocol's view first (the headline), then the other: the runs scored without a cutoff
    as they are, and every run under the protocol's cutoff, or under the original code's 40 when the protocol
    has none. Cutting after scoring is exact."""
    uncut = {"no cutoff": [run for run in runs if run.protocol.get("cutoff") is None]}
    cutoff = side_cutoff(cfg)
    cut = {f"cutoff {cutoff}": [run.with_cutoff(cutoff) for run in runs if can_cut(run, cutoff)]}
    return {**uncut, **cut} if cfg.protocol.cutoff is None else {**cut, **uncut}


def can_cut(run: RunResults, cutoff: int) -> bool:
    """Whether ``run`` shows ``cutoff`` exactly: scored without one, or with one no tighter."""
    made = run.protocol.get("cutoff")
    return made is None or made >= cutoff


def figures(run: RunResults, thresholds: tuple[float, ...]) -> dict[str, Any]:
    """The published numbers of one run: evidence needed (with intervals) pooled, averaged over scenarios and
    per scenario, and the AUC."""
    summary = run.summary(thresholds=thresholds)
    keys = [threshold_key(t) for t in thresholds]
    return {
        "method": run.method,
        "split": run.settings.get("train_split"),
        "model_seed": run.settings.get("model_seed"),
        "trials": summary["overall"]["n"],
        "evidence": {k: summary["overall"]["evidence"][k] for k in keys},
        "tau0": {
            "mean": summary["overall"]["mean"][0],
            "low": summary["overall"]["bootstrap_low"][0],
            "high": summary["overall"]["bootstrap_high"][0],
        },
        "mission_prior": run.mission_prior,
        "mean_over_scenarios": summary["mean_over_scenarios"],
        "scenarios": {s: {k: g["evidence"][k] for k in keys} for s, g in summary["scenarios"].items()},
        "auc": summary["overall"]["auc"],
    }


def _interval(e: dict) -> tuple[float, float]:
    """An interval as numbers: 'not reached' ends count as beyond all the evidence."""
    low = 2.0 if e["low"] is None else e["low"]
    high = 2.0 if e["high"] is None else e["high"]
    return low, high


def supported_orderings(runs: list[RunResults], threshold: float) -> list[str]:
    """'X needs less evidence than Y' for each pair of runs whose 95 % intervals do not overlap."""
    key = threshold_key(threshold)
    spans = [(run.label, _interval(run.summary(thresholds=(threshold,))["overall"]["evidence"][key])) for run in runs]
    out = []
    for (a, (a_lo, a_hi)), (b, (b_lo, b_hi)) in itertools.combinations(spans, 2):
        if a_hi < b_lo:
            out.append(f"{a} < {b}")
        elif b_hi < a_lo:
            out.append(f"{b} < {a}")
    return out


def on_the_floor(runs: list[RunResults], threshold: float) -> str | None:
    """A sentence naming the runs whose evidence needed is at or above :data:`FLOOR`, or None."""
    key = threshold_key(threshold)
    floor = []
    for run in runs:
        value = run.summary(thresholds=(threshold,))["overall"]["evidence"][key]["value"]
        if value is not None and value >= FLOOR:
            floor.append(f"{run.label} {value:.2f}")
    if not floor:
        return None
    return (
        f"On the floor (evidence for {threshold:g} at or above {FLOOR}: reached only in the last tenth, where at "
        f"tau = T the evidence shows the query state itself): {'; '.join(floor)}. Such figures say the method "
        "does not reach the threshold before the evidence gives the answer away, not how close it came."
    )


def interval_width(runs: list[RunResults], threshold: float) -> str:
    key = threshold_key(threshold)
    widths = []
    for run in runs:
        e = run.summary(thresholds=(threshold,))["overall"]["evidence"][key]
        if e["low"] is not None and e["high"] is not None:
            widths.append(e["high"] - e["low"])
    if not widths:
        return "no run's interval is closed at both ends"
    return f"{np.mean(widths):.2f} wide on average (from {min(widths):.2f} to {max(widths):.2f})"


def told_the_missions(run: RunResults) -> bool:
    """Whether a run's method was told the agents' missions: the privileged training-label prior, or the true
    planner with the scenario's preferences as every agent's model (the perfect agent models)."""
    agents = run.settings.get("agents") or {}
    planner = run.method in PLANNER_ROWS or (bool(agents) and all(a == "planner" for a in agents.values()))
    return run.privileged_prior or planner


def ceiling_check(runs: list[RunResults]) -> str:
    """Whether any run beats the ideal observer at some evidence point by more than the paired intervals.

    The ceiling is the label-free ideal observer, so runs told the agents' missions (:func:`told_the_missions`)
    are not held to it; they are named. Beating it is otherwise expected only where the combination rule caps
    the ideal observer's answer (softmax with eta = 5 gives at most 0.993 when one agent is known to have done
    it), so such points are named, not hidden."""
    ideal = next((run for run in runs if run.method == "ideal observer" and not run.privileged_prior), None)
    if ideal is None:
        return "Ceiling check: no ideal-observer run."
    ids = [t.episode_id for t in ideal.trials]
    found, told = [], []
    for run in runs:
        if run is ideal or [t.episode_id for t in run.trials] != ids:
            continue
        if told_the_missions(run):
            told.append(run.label)
            continue
        points = ceiling_violations(ideal.matrix(), run.matrix())
        if points:
            fractions = ", ".join(f"{k / (ideal.matrix().shape[1] - 1):.1f}" for k in points)
            found.append(f"{run.label} at evidence {fractions}")
    exempt = (
        f" Not held to it: {', '.join(told)}, which were told the agents' missions (the ceiling is the label-free "
        "ideal observer)."
        if told
        else ""
    )
    if not found:
        return (
            "Ceiling check: no run beats the ideal observer at any evidence point beyond the paired 95 % intervals."
            + exempt
        )
    return (
        "Ceiling check: beyond the paired 95 % intervals, the ideal observer is beaten by "
        + "; ".join(found)
        + " (where its answer is capped by the combination rule, e.g. softmax at tau = T)."
        + exempt
    )


def small_groups(runs: list[RunResults]) -> list[str]:
    """One line per group with fewer than 20 trials (the same in every run), not one per run and group."""
    sizes: dict[str, int] = {}
    for run in runs:
        summary = run.summary()
        if summary["overall"]["n"] < MIN_TRIALS:
            sizes["all scenarios pooled"] = summary["overall"]["n"]
        for name, group in summary["scenarios"].items():
            if group["n"] < MIN_TRIALS:
                sizes[name] = group["n"]
    if not sizes:
        return []
    groups = ", ".join(f"{name} ({n})" for name, n in sizes.items())
    return [f"fewer than {MIN_TRIALS} trials, too uncertain to compare: {groups}"]


def write_summary(
    cfg: BenchmarkConfig, paths: list[Path], timings: Timings, accuracies: dict[str, float | None]
) -> str:
    """Write ``summary.md``, ``benchmark.json``, ``timings.json`` and ``figure4.png``; return the summary text."""
    from marple_eval.plots import plot_runs  # matplotlib (the eval extra): only for the figure

    runs = [RunResults.load(p) for p in paths]
    shown = views(cfg, runs)
    headline_view, headline_runs = next(iter(shown.items()))
    first = cfg.thresholds[0]
    plot = plot_runs(
        headline_runs,
        cfg.report_dir / "figure4.png",
        title=f"MARPLE-Gym benchmark ({cfg.preset.name}, {headline_view})",
    )
    n = headline_runs[0].summary()["overall"]["n"] if headline_runs else 0
    lines = [
        f"# MARPLE-Gym benchmark, {cfg.preset.name} preset",
        "",
        f"Seed {cfg.seed}; {n} trials ({cfg.preset.trials} per scenario over {cfg.preset.sizes.test_houses} "
        f"{house_words(cfg)}); "
        f"m = {cfg.preset.rollouts} rollouts; agent models: {training_budget(cfg)} each, "
        f"{cfg.seeds} model seed{'s' if cfg.seeds > 1 else ''}. Protocol: {protocol_words(cfg)}.",
        "",
        f"Evidence needed to reach {', '.join(map(str, cfg.thresholds))} accuracy (lower is better), pooled over "
        "the scenarios, with 95 % bootstrap intervals over trials; the mean of the per-scenario figures beside it "
        "(a '>=' marks a mean that counts a scenario never reaching the threshold as 1.0).",
    ]
    seeds = seeds_table(headline_runs, first)
    if seeds:
        lines += [
            "",
            f"## Headline across {cfg.seeds} model seeds ({headline_view}, evidence for {first})",
            "",
            "Each method's mean curve over its model seeds, with a 95 % interval from a two-way bootstrap that draws "
            "the seeds and the trials (every seed is scored on the same trials), so it holds the training seeds' "
            "variance; the trials-only interval of the same figure beside it.",
            "",
            seeds,
        ]
    lines += [
        "",
        f"## Protocols side by side (evidence for {first})",
        "",
        f"Every run under both combination rules, with cutoff {side_cutoff(cfg)} and without it, from its one "
        "scoring (the stored query probabilities; docs/evaluation.md). A method that does not combine query "
        "probabilities gives the same figures under both rules; 'n/a' says what a run did not store.",
        "",
        protocols_table(runs, first, side_cutoff(cfg)),
    ]
    if first == 0.8:
        lines += [
            "",
            "## The paper's Table 2 beside each protocol (evidence for 0.8)",
            "",
            "The paper's figure for each method and split beside ours under each bundle, each from a run scored at "
            "that bundle's margin and success rule (this folder's runs, and those of `--protocol paper` and "
            f"`--protocol original` in it where they were run). The paper's protocol: {paper_source()['protocol']}.",
            "",
            paper_protocols_table(runs + other_protocol_runs(cfg), 0.8),
        ]
    for view, view_runs in shown.items():
        # The paper's rows close the headline view's table (whatever protocol made them: unknown).
        with_paper = view == headline_view
        lines += ["", f"## {view}", "", comparison_table(view_runs, thresholds=cfg.thresholds, with_paper=with_paper)]
        lines += ["", f"Intervals at {first}: {interval_width(view_runs, first)}."]
        orderings = supported_orderings(view_runs, first)
        lines.append(
            "Orderings the intervals support: " + "; ".join(orderings)
            if orderings
            else "The intervals support no ordering between these runs."
        )
        floor = on_the_floor(view_runs, first)
        if floor:
            lines.append(floor)
    lines += ["", ceiling_check(headline_runs)]
    warnings = small_groups(headline_runs)
    if warnings:
        lines += ["", "## Warnings", "", *(f"- {w}" for w in warnings)]
    lines += [
        "",
        "Agent-model held-out accuracy: "
        + ", ".join(f"{k} {v:.3f}" for k, v in sorted(accuracies.items()) if v is not None),
        "",
        f"Stage times (s, this machine, not a figure; CPU seconds in brackets): {timings.words()}",
        "",
        f"![accuracy against evidence]({plot.name})",
    ]
    text = "\n".join(lines)
    (cfg.report_dir / "summary.md").write_text(text + "\n")
    record = {
        "preset": asdict(cfg.preset),
        "scenarios": list(cfg.scenarios),
        "houses": cfg.houses,
        "seed": cfg.seed,
        "model_seeds": cfg.model_seeds,
        "protocol": cfg.protocol.record(),
        "training_budget": training_budget(cfg),
        "thresholds": list(cfg.thresholds),
        # Where and how the learned models answered, as their results files say (reused files included).
        "inference": {
            key: sorted({str(run.settings[key]) for run in runs if key in run.settings})
            for key in ("device", "precision")
        },
        "accuracies": accuracies,
        "views": {view: [figures(run, cfg.thresholds) for run in view_runs] for view, view_runs in shown.items()},
        "across_seeds": [
            {"method": name, "split": split, "protocol": protocol, **seed_figures(group, first)}
            for (name, split, protocol), group in seed_groups(headline_runs).items()
        ],
        "results": [str(p.relative_to(cfg.report_dir)) for p in paths],
    }
    (cfg.report_dir / "benchmark.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    (cfg.report_dir / "timings.json").write_text(json.dumps(timings.record(), indent=1) + "\n")
    return text


def house_words(cfg: BenchmarkConfig) -> str:
    return "copies of the original benchmark's house" if cfg.houses == "original" else "random test houses"


def other_protocol_runs(cfg: BenchmarkConfig) -> list[RunResults]:
    """The runs of this benchmark folder scored under the other named protocols (``out/results`` for the default
    one, ``out/protocol-<name>/results`` for the others), where they exist."""
    from marple_eval.settings import DEFAULT_PROTOCOL, PROTOCOLS

    dirs = [cfg.out / "results"] + [
        cfg.out / f"protocol-{name}" / "results" for name in PROTOCOLS if name != DEFAULT_PROTOCOL
    ]
    mine = cfg.report_dir / "results"
    return [RunResults.load(p) for d in dirs if d != mine and d.is_dir() for p in sorted(d.glob("*.json"))]


def side_cutoff(cfg: BenchmarkConfig) -> int:
    """The cutoff of the side-by-side table: the protocol's, or the original code's 40 when it has none."""
    return 40 if cfg.protocol.cutoff is None else cfg.protocol.cutoff


def protocol_words(cfg: BenchmarkConfig) -> str:
    p = cfg.protocol
    share = "0.5" if len(cfg.roles) == 2 else "1/N each (chance)"
    cutoff = "none" if p.cutoff is None else f"{share} where T + {p.margin} - tau > {p.cutoff}"
    return (
        f"{p.name}: horizon T + {p.margin}, cutoff {cutoff}, combination {p.combine} (eta {p.eta:g}), "
        f"last evidence point {p.last_point}, placements {p.labelings}"
    )
