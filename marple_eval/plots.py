"""Figure-4-style plots: accuracy against the fraction of evidence, one panel per scenario."""

from __future__ import annotations

import math
from pathlib import Path

from marple_eval.metrics import accuracy_curve, fractions_for, sem_band
from marple_eval.results import RunResults


def plot_runs(runs: list[RunResults], path: str | Path, title: str | None = None) -> Path:
    """Save a PNG with one panel per scenario (and one pooled), each run a line with a sigma/sqrt(n) band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scenarios = list(dict.fromkeys(s for run in runs for s in run.scenarios))
    panels = scenarios + (["all scenarios"] if len(scenarios) > 1 else [])
    cols = min(3, len(panels))
    rows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 3.1 * rows), sharey=True, squeeze=False)
    flat = axes.ravel()
    for ax in flat[len(panels) :]:
        ax.set_visible(False)
    for ax, panel in zip(flat, panels):
        for run in runs:
            p = run.matrix(None if panel == "all scenarios" else panel)
            if len(p) == 0:
                continue
            f = fractions_for(p.shape[1])
            curve, band = accuracy_curve(p), sem_band(p)
            (line,) = ax.plot(f, curve, marker="o", markersize=3, label=run.label)
            ax.fill_between(f, curve - band, curve + band, color=line.get_color(), alpha=0.2)
        ax.axhline(0.8, color="grey", linestyle="--", linewidth=0.8)
        ax.axhline(0.5, color="grey", linestyle=":", linewidth=0.8)
        ax.set_title(panel)
        ax.set_xlabel("fraction of evidence")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    for row in axes:
        row[0].set_ylabel("accuracy")
    flat[len(panels) - 1].legend(loc="lower right", fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
