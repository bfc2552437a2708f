"""Tables that set runs side by side, with the paper's Table 2 as a reference.

The headline number of a run is the fraction of evidence at which its mean
accuracy, pooled over every trial of every scenario, first reaches 0.8
(:func:`~marple_eval.metrics.evidence_needed`); per-scenario values and the
area under the accuracy curve follow.
"""

from __future__ import annotations

import json
from importlib import resources

from marple_eval.metrics import accuracy_curve, area_under_curve, evidence_needed, fractions_for
from marple_eval.results import RunResults


def paper_table2() -> dict[str, dict[str, float]]:
    """The paper's Table 2: method -> {"in": fraction, "ood": fraction}."""
    text = resources.files("marple_eval").joinpath("data/paper.json").read_text()
    return json.loads(text)["table2"]


def _fmt(value: float | None) -> str:
    return "not reached" if value is None else f"{value:.2f}"


def run_summary(run: RunResults) -> dict:
    """Headline, per-scenario evidence needed for 0.8, and AUC of one run."""
    p = run.matrix()
    fractions = fractions_for(p.shape[1])
    out = {
        "label": run.label,
        "trials": len(p),
        "evidence_for_0.8": evidence_needed(accuracy_curve(p), fractions),
        "auc": area_under_curve(accuracy_curve(p), fractions),
        "scenarios": {},
    }
    for scenario in run.scenarios:
        ps = run.matrix(scenario)
        out["scenarios"][scenario] = evidence_needed(accuracy_curve(ps), fractions)
    return out


def comparison_table(runs: list[RunResults], markdown: bool = True, with_paper: bool = True) -> str:
    """One row per run (and the paper's Table 2 rows): evidence needed for 0.8, per scenario, AUC."""
    scenarios = list(dict.fromkeys(s for run in runs for s in run.scenarios))
    header = ["method", "trials", "evidence for 0.8", *scenarios, "AUC"]
    rows = []
    for run in runs:
        s = run_summary(run)
        rows.append(
            [
                s["label"],
                str(s["trials"]),
                _fmt(s["evidence_for_0.8"]),
                *(_fmt(s["scenarios"].get(sc)) if sc in s["scenarios"] else "-" for sc in scenarios),
                f"{s['auc']:.3f}",
            ]
        )
    if with_paper:
        for method, values in paper_table2().items():
            rows.append(
                [
                    f"paper: {method}",
                    "50",
                    f"{values['in']:.2f} (in) / {values['ood']:.2f} (ood)",
                    *("-" for _ in scenarios),
                    "-",
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
