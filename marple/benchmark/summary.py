"""The benchmark's report: ``summary.md``, ``benchmark.json`` (figures only, so two runs of one command
compare byte for byte), ``timings.json`` and ``figure4.png``.

Every run is shown with the cutoff (the protocol's, or the original code's 40)
and without it, the protocol's own view first as the headline: with the cutoff
the pooled curve mostly measures which scenarios are long. Orderings between methods are stated only where
their 95 % intervals do not overlap.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from marple.benchmark.config import BenchmarkConfig, training_budget
from marple.benchmark.timings import Timings
from marple_eval.inverse.checks import ceiling_violations
from marple_eval.metrics import MIN_TRIALS, threshold_key
from marple_eval.report import comparison_table, protocols_table
from marple_eval.results import RunResults


def views(cfg: BenchmarkConfig, runs: list[RunResults]) -> dict[str, list[RunResults]]:
    """The runs under the protocol's view first (the headline), then the other: the runs scored without a cutoff
    as they are, and every run under the protocol's cutoff, or under the original code's 40 when the protocol
    has none (the paper's Table 2 rows were computed under it). Cutting after scoring is exact."""
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


def seed_spread(runs: list[RunResults], threshold: float) -> list[str]:
    """Per method and split trained with several model seeds: the evidence needed for each seed, mean and SD."""
    key = threshold_key(threshold)
    groups: dict[tuple[str, str], list[float | None]] = {}
    for run in runs:
        if run.settings.get("model_seed") is None:
            continue
        value = run.summary(thresholds=(threshold,))["overall"]["evidence"][key]["value"]
        groups.setdefault((run.method, run.settings.get("train_split") or "-"), []).append(value)
    lines = []
    for (method, split), values in groups.items():
        if len(values) < 2:
            continue
        reached = [v for v in values if v is not None]
        shown = ", ".join("not reached" if v is None else f"{v:.2f}" for v in values)
        stats = f"mean {np.mean(reached):.2f}, SD {np.std(reached, ddof=1):.2f}" if len(reached) >= 2 else ""
        lines.append(f"| {method} | {split} | {shown} | {stats} |")
    return lines


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


def ceiling_check(runs: list[RunResults]) -> str:
    """Whether any run beats the ideal observer at some evidence point by more than the paired intervals.

    Expected only where the combination rule caps the ideal observer's answer (softmax with eta = 5 gives
    at most 0.993 when one agent is known to have done it), so such points are named, not hidden."""
    ideal = next((run for run in runs if run.method == "ideal observer"), None)
    if ideal is None:
        return "Ceiling check: no ideal-observer run."
    ids = [t.episode_id for t in ideal.trials]
    found = []
    for run in runs:
        if run is ideal or [t.episode_id for t in run.trials] != ids:
            continue
        points = ceiling_violations(ideal.matrix(), run.matrix())
        if points:
            fractions = ", ".join(f"{k / (ideal.matrix().shape[1] - 1):.1f}" for k in points)
            found.append(f"{run.label} at evidence {fractions}")
    if not found:
        return "Ceiling check: no run beats the ideal observer at any evidence point beyond the paired 95 % intervals."
    return (
        "Ceiling check: beyond the paired 95 % intervals, the ideal observer is beaten by "
        + "; ".join(found)
        + " (where its answer is capped by the combination rule, e.g. softmax at tau = T)."
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
    for view, view_runs in shown.items():
        # The paper's rows were computed under the original code's cutoff: shown beside that view only.
        with_paper = view == "cutoff 40"
        lines += ["", f"## {view}", "", comparison_table(view_runs, thresholds=cfg.thresholds, with_paper=with_paper)]
        lines += ["", f"Intervals at {first}: {interval_width(view_runs, first)}."]
        orderings = supported_orderings(view_runs, first)
        lines.append(
            "Orderings the intervals support: " + "; ".join(orderings)
            if orderings
            else "The intervals support no ordering between these runs."
        )
    lines += ["", ceiling_check(headline_runs)]
    spread = seed_spread(headline_runs, first)
    if spread:
        lines += ["", f"## Across model seeds ({headline_view}, evidence for {first})", ""]
        lines += ["| method | split | per seed | mean, SD |", "| --- | --- | --- | --- |", *spread]
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
        "results": [str(p.relative_to(cfg.report_dir)) for p in paths],
    }
    (cfg.report_dir / "benchmark.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    (cfg.report_dir / "timings.json").write_text(json.dumps(timings.record(), indent=1) + "\n")
    return text


def house_words(cfg: BenchmarkConfig) -> str:
    return "copies of the original benchmark's house" if cfg.houses == "original" else "random test houses"


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
