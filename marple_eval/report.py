"""Tables that set runs side by side, with the paper's Table 2 as a reference.

The headline number of a run is the fraction of evidence at which its mean
accuracy, pooled over every trial of every scenario, first reaches 0.8
(:func:`~marple_eval.metrics.evidence_needed`), with its 95 % bootstrap
interval; beside it the same at 0.6 (paper section 6.4), its accuracy at
tau = 0 (what it knows before any evidence: a method answering from a prior
that names each agent's mission is right before anyone moves), the paper's
Table 2 figure for the same method and split, the mean of the per-scenario
figures, per-scenario values and the area under the curve. Runs whose agent
models were trained in-distribution and out-of-distribution (``train_split``
in the run's settings) are separate rows, named in the ``split`` column.

:func:`paper_protocols_table` sets the paper's figure beside each method's
under the three protocol bundles (``paper``, ``original``, ``ours``), from the
runs that can show each; :func:`seeds_table` pools the runs of one method
trained with several model seeds, with intervals that include the seeds'
variance (:func:`~marple_eval.metrics.seed_evidence_interval`).

:func:`detail_table` lists, per run, scenario and evidence point, the mean
accuracy with both intervals: the paper's band (mean +/- sigma/sqrt(n)) and
the 95 % percentile bootstrap interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from marple_eval.metrics import THRESHOLDS, threshold_key
from marple_eval.results import NotRescorable, ResultsError, RunResults
from marple_eval.settings import PROTOCOLS, RESCORED_ONLY_BY_A_NEW_RUN, ProtocolSettings
from marple_gym.validation import Fields, message_error, parse_json

POOLED = "all"
"""The scenario name under which :func:`detail_table` lists the trials of every scenario pooled."""


def _paper() -> Fields:
    text = resources.files("marple_eval").joinpath("data/paper.json").read_text()
    name, error = "marple_eval/data/paper.json", message_error(ResultsError)
    return Fields(parse_json(text, name, error), "", error, name)


def paper_table2() -> dict[str, dict[str, float]]:
    """The paper's Table 2: method -> {"in": fraction, "ood": fraction} (its source: :func:`paper_source`)."""
    return _paper().mapping("table2")


def paper_source() -> dict[str, str]:
    """Where Table 2 comes from: the paper and section, its trials and rollouts, what is known of its protocol."""
    return _paper().mapping("source")


def paper_figure(run: RunResults) -> str:
    """The paper's Table 2 figure for ``run``'s method and training split (both splits for a row that has none),
    or '-' where the paper has no such row."""
    row = _paper().mapping("methods").get(run.method)
    if row is None:
        return "-"
    values = paper_table2()[row]
    split = run.settings.get("train_split")
    if split in values:
        return f"{values[split]:.2f}"
    if values["in"] == values["ood"]:
        return f"{values['in']:.2f}"
    return f"{values['in']:.2f} in, {values['ood']:.2f} ood"


def _fmt(value: float | None) -> str:
    return "not reached" if value is None else f"{value:.2f}"


def fmt_accuracy(mean: float, low: float, high: float) -> str:
    """'0.50 [0.45, 0.55]': a mean accuracy with its interval."""
    return f"{mean:.2f} [{low:.2f}, {high:.2f}]"


def prior_only(run: RunResults) -> str:
    """The run's accuracy at tau = 0, pooled over its trials, with its 95 % bootstrap interval: what the method
    knows before any evidence (chance for one that knows nothing)."""
    overall = run.summary()["overall"]
    return fmt_accuracy(overall["mean"][0], overall["bootstrap_low"][0], overall["bootstrap_high"][0])


def fmt_interval(e: dict) -> str:
    """'0.58 [0.49, 0.70]'; an open end where a resample share never reaches the threshold; 'not reached' alone
    where no resample does."""
    if e["value"] is None and e["low"] is None:
        return "not reached"
    high = ">1" if e["high"] is None else f"{e['high']:.2f}"
    low = "-" if e["low"] is None else f"{e['low']:.2f}"
    return f"{_fmt(e['value'])} [{low}, {high}]"


def _fmt_mean(e: dict) -> str:
    text = fmt_interval(e)
    return f">= {text}" if e.get("unreached") else text


def protocol_name(run: RunResults) -> str:
    """The protocol a run was scored (or rescored) under, by name (``ours``, ``original-margin-10``...)."""
    if not run.protocol:
        return "-"
    return ProtocolSettings.from_record(run.protocol).name


@dataclass
class ReportRuns:
    """The runs a report shows (none when no run can show the protocol asked for), and what to warn about."""

    runs: list[RunResults]
    mixed_trials: str | None  # :func:`trial_set_warning` of the runs as stored
    left_out: list[str]  # each run that cannot show the protocol asked for: why, and what would show it


def report_runs(
    paths: list[str | Path],
    *,
    protocol: str | None = None,
    changes: dict[str, Any] | None = None,
    cutoff: int | None = None,
) -> ReportRuns:
    """The results files as ``marple report`` shows them: each run rescored from what it stored under
    ``protocol``'s bundle (:func:`protocol_bundle_view`) with ``changes`` (combine, eta, last_point) on top, and,
    with ``cutoff``, each run scored without a cutoff also under that one (exact)."""
    runs = [RunResults.load(p) for p in paths]
    mixed = trial_set_warning(runs)
    wanted = {**(protocol_bundle_view(protocol) if protocol else {}), **(changes or {})}
    left_out: list[str] = []
    if wanted:
        runs, left_out = rescored_runs(runs, wanted)
    if cutoff is not None:
        runs += [run.with_cutoff(cutoff) for run in runs if run.protocol.get("cutoff") is None]
    return ReportRuns(runs, mixed, left_out)


def protocol_bundle_view(name: str) -> dict[str, Any]:
    """What ``marple report --protocol NAME`` changes in a run: the bundle's fields but the margin and the success
    rule (another of either means other rollouts)."""
    return {key: value for key, value in PROTOCOLS[name].items() if key not in RESCORED_ONLY_BY_A_NEW_RUN}


def rescored_runs(runs: list[RunResults], changes: dict[str, Any]) -> tuple[list[RunResults], list[str]]:
    """Every run that can show ``changes`` (:meth:`~marple_eval.results.RunResults.rescored`), and for each of the
    others why not and what would show it."""
    shown, left_out = [], []
    for run in runs:
        try:
            shown.append(run.rescored(**changes))
        except NotRescorable as exc:
            left_out.append(str(exc))
    return shown, left_out


def small_group_warnings(runs: list[RunResults]) -> list[str]:
    """Warnings for every run's small groups (fewer than 20 trials)."""
    return [f"{run.label}: {w}" for run in runs for w in run.summary()["warnings"]]


def trial_set_warning(runs: list[RunResults]) -> str | None:
    """A warning when the runs were scored on different sets of trials (their figures are not comparable)."""
    sets: dict[str, list[RunResults]] = {}
    for run in runs:
        sets.setdefault(run.trial_set, []).append(run)
    if len(sets) < 2:
        return None
    groups = "; ".join(
        f"set {key} ({len({t.episode_id for t in group[0].trials})} trials): {', '.join(r.label for r in group)}"
        for key, group in sets.items()
    )
    return (
        "these runs were scored on DIFFERENT TRIALS, so their figures are not comparable: "
        f"{groups}. Score them with the same --data, --scenario and --limit."
    )


def _split(run: RunResults) -> str:
    return run.settings.get("train_split") or "-"


def comparison_table(
    runs: list[RunResults],
    markdown: bool = True,
    with_paper: bool = True,
    thresholds: tuple[float, ...] = THRESHOLDS,
) -> str:
    """One row per run (and per split of the paper's Table 2): evidence needed for each threshold pooled over
    scenarios with its 95 % bootstrap interval, the accuracy at tau = 0 (:func:`prior_only`), the paper's figure
    for the same method and split where the first threshold is Table 2's 0.8, then for the first threshold the
    mean over scenarios and the per-scenario figures, and the AUC. The paper's rows, whatever protocol made them
    (unknown: :func:`paper_source`), close the table with ``with_paper``."""
    first = threshold_key(thresholds[0])
    table2 = first == "0.8"
    scenarios = list(dict.fromkeys(s for run in runs for s in run.scenarios))
    header = ["method", "split", "protocol", "trials"]
    header += [f"evidence for {threshold_key(t)} [95% CI]" for t in thresholds]
    header += ["accuracy at tau = 0 [95% CI]"] + (["paper (Table 2)"] if table2 else [])
    header += [f"mean of scenarios, {first}", *scenarios, "AUC"]
    rows = []
    for run in runs:
        summary = run.summary(thresholds=thresholds)
        overall, per_scenario = summary["overall"], summary["scenarios"]
        rows.append(
            [run.name, _split(run), protocol_name(run), str(overall["n"])]
            + [fmt_interval(overall["evidence"][threshold_key(t)]) for t in thresholds]
            + [prior_only(run)]
            + ([paper_figure(run)] if table2 else [])
            + [_fmt_mean(summary["mean_over_scenarios"][first])]
            + [_fmt(per_scenario[sc]["evidence"][first]["value"]) if sc in per_scenario else "-" for sc in scenarios]
            + [f"{overall['auc']:.3f}"]
        )
    if with_paper and table2:
        for split in ("in", "ood"):
            for method, values in paper_table2().items():
                dashes = ["-"] * (len(thresholds) - 1 + 3 + len(scenarios) + 1)
                rows.append([f"paper: {method}", split, "unknown", "50", f"{values[split]:.2f}", *dashes])
    return _render(header, rows, markdown)


SIDE_BY_SIDE = (("softmax", True), ("softmax", False), ("ratio", True), ("ratio", False))
"""The views of :func:`protocols_table`: each combination rule with the cutoff and without it."""


def protocol_views(run: RunResults, cutoff: int, threshold: float = 0.8) -> list[dict | str]:
    """Evidence needed for ``threshold`` (value and 95 % interval) under each view of :data:`SIDE_BY_SIDE`, all
    from the run's one scoring; where the run cannot show a view, what is missing (a few words)."""
    out: list[dict | str] = []
    for combine, cut in SIDE_BY_SIDE:
        try:
            view = run.rescored(combine=combine, cutoff=cutoff if cut else None)
        except NotRescorable as exc:
            out.append(exc.short)
            continue
        out.append(view.summary(thresholds=(threshold,))["overall"]["evidence"][threshold_key(threshold)])
    return out


def protocols_table(runs: list[RunResults], threshold: float = 0.8, cutoff: int = 40, markdown: bool = True) -> str:
    """Evidence needed for ``threshold`` of every run under softmax and ratio, with the cutoff and without, from
    each run's one scoring (:meth:`~marple_eval.results.RunResults.rescored`), with 95 % bootstrap intervals.
    Each run keeps its own margin, eta and last point (named in the ``protocol`` column). A method that does
    not combine query probabilities (distance, an LLM, people) gives the same figures under both rules."""
    header = ["method", "split", "protocol", "trials"]
    header += [f"{combine}, {f'cutoff {cutoff}' if cut else 'no cutoff'}" for combine, cut in SIDE_BY_SIDE]
    rows = []
    for run in runs:
        cells = [
            fmt_interval(v) if isinstance(v, dict) else f"n/a: {v}" for v in protocol_views(run, cutoff, threshold)
        ]
        rows.append([run.name, _split(run), protocol_name(run), str(len(run.trials)), *cells])
    return _render(header, rows, markdown)


BUNDLES_SHOWN = ("paper", "original", "ours")
"""The protocol bundles :func:`paper_protocols_table` sets beside the paper's figure."""


def bundle_view(runs: list[RunResults], bundle: str, threshold: float) -> dict | str:
    """Evidence needed for ``threshold`` under ``bundle`` from the first of ``runs`` that can show it exactly
    (scored at the bundle's margin and success rule, and under no tighter cutoff); else what would show it."""
    wanted = PROTOCOLS[bundle]
    for run in runs:
        made = ProtocolSettings.from_record(run.protocol)
        if any(getattr(made, key) != wanted[key] for key in RESCORED_ONLY_BY_A_NEW_RUN if key in wanted):
            continue
        try:
            view = run.rescored(**protocol_bundle_view(bundle))
        except NotRescorable:
            continue
        return view.summary(thresholds=(threshold,))["overall"]["evidence"][threshold_key(threshold)]
    return f"new run: --protocol {bundle}"


def paper_protocols_table(runs: list[RunResults], threshold: float = 0.8, markdown: bool = True) -> str:
    """One row per method, split and model seed: the paper's Table 2 figure beside the evidence needed for
    ``threshold`` under each bundle of :data:`BUNDLES_SHOWN`, each from a run that shows it exactly (another
    margin or success rule needs its own run, e.g. ``marple benchmark --protocol original``)."""
    groups: dict[tuple, list[RunResults]] = {}
    for run in runs:
        groups.setdefault((run.name, _split(run), run.settings.get("model_seed")), []).append(run)
    header = ["method", "split", "trials", "paper (Table 2)"]
    header += [f"`{name}`: {_short_bundle(PROTOCOLS[name])}" for name in BUNDLES_SHOWN]
    rows = []
    for (name, split, _), group in groups.items():
        cells = []
        for bundle in BUNDLES_SHOWN:
            view = bundle_view(group, bundle, threshold)
            cells.append(fmt_interval(view) if isinstance(view, dict) else view)
        rows.append([name, split, str(len(group[0].trials)), paper_figure(group[0]), *cells])
    return _render(header, rows, markdown)


def _short_bundle(bundle: dict) -> str:
    cutoff = "no cutoff" if bundle["cutoff"] is None else f"cutoff {bundle['cutoff']}"
    return f"{bundle['combine']}, margin {bundle['margin']}, {cutoff}, {bundle['last_point']}, {bundle['success']}"


def seed_groups(runs: list[RunResults]) -> dict[tuple[str, str, str], list[RunResults]]:
    """The runs of one method, split and protocol trained with two or more model seeds and scored on the same
    trials, by (name, split, protocol), each group in seed order."""
    groups: dict[tuple[str, str, str], dict[int, RunResults]] = {}
    for run in runs:
        seed = run.settings.get("model_seed")
        if seed is not None:
            groups.setdefault((run.name, _split(run), protocol_name(run)), {})[seed] = run
    out = {}
    for key, by_seed in groups.items():
        group = [by_seed[s] for s in sorted(by_seed)]
        ids = [[t.episode_id for t in run.trials] for run in group]
        if len(group) >= 2 and all(i == ids[0] for i in ids):
            out[key] = group
    return out


def seed_figures(group: list[RunResults], threshold: float) -> dict[str, Any]:
    """The pooled figure of one :func:`seed_groups` group: evidence needed by the mean curve over its seeds with
    the two-way (seeds and trials) interval, the trials-only interval beside it, each seed's own figure, and the
    pooled accuracy at tau = 0."""
    from marple_eval.metrics import fractions_for, seed_evidence_interval

    matrices = [run.matrix() for run in group]
    fractions = fractions_for(matrices[0].shape[1])
    key = threshold_key(threshold)
    return {
        "seeds": [run.settings.get("model_seed") for run in group],
        "per_seed": [run.summary(thresholds=(threshold,))["overall"]["evidence"][key]["value"] for run in group],
        "pooled": seed_evidence_interval(matrices, fractions, threshold),
        "trials_only": seed_evidence_interval(matrices, fractions, threshold, resample_seeds=False),
        "tau0": float(np.mean([m[:, 0].mean() for m in matrices])),
    }


def seeds_table(runs: list[RunResults], threshold: float = 0.8, markdown: bool = True) -> str:
    """Every method trained with several model seeds (:func:`seed_groups`): the evidence needed for ``threshold``
    by the mean curve over the seeds, with a 95 % interval over seeds and trials (:func:`seed_figures`), the
    trials-only interval of the same figure, each seed's figure and the accuracy at tau = 0. Empty text when no
    method has two seeds."""
    groups = seed_groups(runs)
    if not groups:
        return ""
    header = ["method", "split", "protocol", "seeds x trials"]
    header += [f"evidence for {threshold_key(threshold)}, seeds and trials [95% CI]", "trials only [95% CI]"]
    header += ["per seed", "accuracy at tau = 0"]
    rows = []
    for (name, split, protocol), group in groups.items():
        f = seed_figures(group, threshold)
        per_seed = ", ".join(_fmt(v) for v in f["per_seed"])
        size = f"{len(group)} x {f['pooled']['trials']}"
        cells = [fmt_interval(f["pooled"]), fmt_interval(f["trials_only"]), per_seed, f"{f['tau0']:.2f}"]
        rows.append([name, split, protocol, size, *cells])
    return _render(header, rows, markdown)


def detail_table(runs: list[RunResults], markdown: bool = True) -> str:
    """Per run, scenario (and all pooled) and evidence point: n, mean accuracy, the paper's band, bootstrap 95 %."""
    header = ["method", "split", "scenario", "evidence", "n", "mean", "± σ/√n (paper)", "bootstrap 95%"]
    rows = []
    for run in runs:
        summary = run.summary()
        groups = dict(summary["scenarios"])
        if len(groups) > 1:
            groups[POOLED] = summary["overall"]
        for scenario, s in groups.items():
            for k, fraction in enumerate(summary["fractions"]):
                mean, sem = s["mean"][k], s["sem"][k]
                rows.append(
                    [
                        run.name,
                        _split(run),
                        scenario,
                        f"{fraction:.2f}",
                        str(s["n"]),
                        f"{mean:.3f}",
                        f"± {sem:.3f} [{mean - sem:.3f}, {mean + sem:.3f}]",
                        f"[{s['bootstrap_low'][k]:.3f}, {s['bootstrap_high'][k]:.3f}]",
                    ]
                )
    return _render(header, rows, markdown)


def _render(header: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*header), fmt.format(*("-" * w for w in widths))] + [fmt.format(*r) for r in rows])
