"""Tables that set runs side by side, with the paper's Table 2 as a reference.

The headline number of a run is the fraction of evidence at which its mean
accuracy, pooled over every trial of every scenario, first reaches 0.8
(:func:`~marple_eval.metrics.evidence_needed`), with its 95 % bootstrap
interval; beside it the same at 0.6 (paper section 6.4), the mean of the
per-scenario figures, per-scenario values and the area under the curve. Runs whose agent models were trained
in-distribution and out-of-distribution (``train_split`` in the run's
settings) are separate rows, named in the ``split`` column.

:func:`detail_table` lists, per run, scenario and evidence point, the mean
accuracy with both intervals: the paper's band (mean +/- sigma/sqrt(n)) and
the 95 % percentile bootstrap interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from marple_eval.metrics import THRESHOLDS, threshold_key
from marple_eval.results import NotRescorable, ResultsError, RunResults
from marple_eval.settings import PROTOCOLS, ProtocolSettings
from marple_gym.validation import Fields, message_error, parse_json

POOLED = "all"
"""The scenario name under which :func:`detail_table` lists the trials of every scenario pooled."""


def paper_table2() -> dict[str, dict[str, float]]:
    """The paper's Table 2: method -> {"in": fraction, "ood": fraction}."""
    text = resources.files("marple_eval").joinpath("data/paper.json").read_text()
    name, error = "marple_eval/data/paper.json", message_error(ResultsError)
    return Fields(parse_json(text, name, error), "", error, name).mapping("table2")


def _fmt(value: float | None) -> str:
    return "not reached" if value is None else f"{value:.2f}"


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
    """What ``marple report --protocol NAME`` changes in a run: the bundle's fields but the margin (another margin
    means other rollouts)."""
    return {key: value for key, value in PROTOCOLS[name].items() if key != "margin"}


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
    scenarios with its 95 % bootstrap interval, then for the first threshold the mean over scenarios and the
    per-scenario figures, and the AUC."""
    first = threshold_key(thresholds[0])
    scenarios = list(dict.fromkeys(s for run in runs for s in run.scenarios))
    header = ["method", "split", "protocol", "trials"]
    header += [f"evidence for {threshold_key(t)} [95% CI]" for t in thresholds]
    header += [f"mean of scenarios, {first}", *scenarios, "AUC"]
    rows = []
    for run in runs:
        summary = run.summary(thresholds=thresholds)
        overall, per_scenario = summary["overall"], summary["scenarios"]
        rows.append(
            [run.name, _split(run), protocol_name(run), str(overall["n"])]
            + [fmt_interval(overall["evidence"][threshold_key(t)]) for t in thresholds]
            + [_fmt_mean(summary["mean_over_scenarios"][first])]
            + [_fmt(per_scenario[sc]["evidence"][first]["value"]) if sc in per_scenario else "-" for sc in scenarios]
            + [f"{overall['auc']:.3f}"]
        )
    if with_paper and first == "0.8":
        for split in ("in", "ood"):
            for method, values in paper_table2().items():
                dashes = ["-"] * (len(thresholds) - 1 + 1 + len(scenarios) + 1)
                rows.append([f"paper: {method}", split, "-", "50", f"{values[split]:.2f}", *dashes])
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
        rows.append([run.method, _split(run), protocol_name(run), str(len(run.trials)), *cells])
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
