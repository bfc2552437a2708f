"""Tables that set runs side by side, with the paper's Table 2 as a reference.

The headline number of a run is the fraction of evidence at which its mean
accuracy, pooled over every trial of every scenario, first reaches 0.8
(:func:`~marple_eval.metrics.evidence_needed`); per-scenario values and the
area under the accuracy curve follow. Runs whose agent models were trained
in-distribution and out-of-distribution (``train_split`` in the run's
settings) are separate rows, named in the ``split`` column.

:func:`detail_table` lists, per run, scenario and evidence point, the mean
accuracy with both intervals: the paper's band (mean +/- sigma/sqrt(n)) and
the 95 % percentile bootstrap interval.
"""

from __future__ import annotations

import json
from importlib import resources

from marple_eval.results import RunResults

POOLED = "all"
"""The scenario name under which :func:`detail_table` lists the trials of every scenario pooled."""


def paper_table2() -> dict[str, dict[str, float]]:
    """The paper's Table 2: method -> {"in": fraction, "ood": fraction}."""
    text = resources.files("marple_eval").joinpath("data/paper.json").read_text()
    return json.loads(text)["table2"]


def _fmt(value: float | None) -> str:
    return "not reached" if value is None else f"{value:.2f}"


def _split(run: RunResults) -> str:
    return run.settings.get("train_split") or "-"


def comparison_table(runs: list[RunResults], markdown: bool = True, with_paper: bool = True) -> str:
    """One row per run (and per split of the paper's Table 2): evidence needed for 0.8, per scenario, AUC."""
    scenarios = list(dict.fromkeys(s for run in runs for s in run.scenarios))
    header = ["method", "split", "trials", "evidence for 0.8", *scenarios, "AUC"]
    rows = []
    for run in runs:
        summary = run.summary()
        overall, per_scenario = summary["overall"], summary["scenarios"]
        rows.append(
            [
                run.method,
                _split(run),
                str(overall["n"]),
                _fmt(overall["evidence_for_0.8"]),
                *(_fmt(per_scenario[sc]["evidence_for_0.8"]) if sc in per_scenario else "-" for sc in scenarios),
                f"{overall['auc']:.3f}",
            ]
        )
    if with_paper:
        for split in ("in", "ood"):
            for method, values in paper_table2().items():
                rows.append([f"paper: {method}", split, "50", f"{values[split]:.2f}", *("-" for _ in scenarios), "-"])
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
                        run.method,
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
