"""Figure-4-style plots: accuracy against the fraction of evidence, one panel per scenario.

Each run is a line with a band: ``band="paper"`` draws the paper's mean +/-
sigma/sqrt(n), ``band="bootstrap"`` the 95 % percentile bootstrap interval. A
dashed line marks 0.8, a dotted one chance (1/N for N suspects).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from marple_eval.metrics import accuracy_curve, bootstrap_interval, fractions_for, sem_band
from marple_eval.results import RunResults

BANDS = {"paper": "bands: mean ± σ/√n (paper)", "bootstrap": "bands: 95% bootstrap interval"}


LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "x", "P")


def plot_runs(runs: list[RunResults], path: str | Path, title: str | None = None, band: str = "paper") -> Path:
    """Save a PNG with one panel per scenario (and one pooled), each run a line with a band (see :data:`BANDS`)."""
    if band not in BANDS:
        raise ValueError(f"band must be one of {sorted(BANDS)}, got {band!r}")
    import matplotlib  # the eval extra, loaded when a plot is drawn

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scenarios = list(dict.fromkeys(s for run in runs for s in run.scenarios))
    panels = scenarios + (["all scenarios"] if len(scenarios) > 1 else [])
    cols = min(3, len(panels))
    rows = math.ceil(len(panels) / cols)
    # Constrained layout makes room for the legend below the panels, where it hides none of them.
    fig, axes = plt.subplots(
        rows,
        cols,
        figsize=(3.6 * cols, 3.1 * rows + 0.2 * len(runs) / 3),
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    flat = axes.ravel()
    for ax in flat[len(panels) :]:
        ax.set_visible(False)
    for ax, panel in zip(flat, panels):
        for i, run in enumerate(runs):
            p = run.matrix(None if panel == "all scenarios" else panel)
            if len(p) == 0:
                continue
            f = fractions_for(p.shape[1])
            curve = accuracy_curve(p)
            lo, hi = bootstrap_interval(p) if band == "bootstrap" else (curve - sem_band(p), curve + sem_band(p))
            # Runs often coincide (a variant that changes little): styles and markers keep each one visible.
            style = {"linestyle": LINESTYLES[i % len(LINESTYLES)], "marker": MARKERS[i % len(MARKERS)]}
            (line,) = ax.plot(f, curve, markersize=3.5, label=run.label, **style)
            ax.fill_between(f, lo, hi, color=line.get_color(), alpha=0.2)
        ax.axhline(0.8, color="grey", linestyle="--", linewidth=0.8)
        chance = [run.chance(None if panel == "all scenarios" else panel) for run in runs if run.trials]
        ax.axhline(float(np.mean(chance)) if chance else 0.5, color="grey", linestyle=":", linewidth=0.8)
        ax.set_title(panel)
        ax.set_xlabel("fraction of evidence")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    for row in axes:
        row[0].set_ylabel("accuracy")
    handles, labels = flat[len(panels) - 1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=min(3, max(1, len(labels))), fontsize=7)
    fig.suptitle(f"{title} ({BANDS[band]})" if title else BANDS[band], fontsize=10)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_accuracy_bars(
    tables: Mapping[str, Mapping[str, tuple[float, float, float]]],
    columns: Sequence[str],
    path: str | Path,
    ylabel: str = "accuracy",
    title: str | None = None,
    chance: float | None = 0.5,
) -> Path:
    """Save a PNG of accuracy per group (``columns``, e.g. question or trial types): one bar per method with its
    95 % interval (``tables``: method -> column -> (accuracy, low, high)), and chance dashed (None: no line)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bars = len(columns) * max(1, len(tables))
    fig, ax = plt.subplots(figsize=(min(12.0, max(5.0, 1.0 + 0.25 * bars)), 3.2), layout="constrained")
    width = 0.8 / max(1, len(tables))
    x = np.arange(len(columns))
    for i, (method, table) in enumerate(tables.items()):
        acc, low, high = (np.array([table[c][j] if c in table else np.nan for c in columns]) for j in range(3))
        ax.bar(
            x + (i - (len(tables) - 1) / 2) * width, acc, width, label=method, yerr=[acc - low, high - acc], capsize=2
        )
    if chance is not None:
        ax.axhline(chance, color="grey", linestyle="--", linewidth=1, label="chance")
    ax.set_xticks(x, list(columns))
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    fig.legend(fontsize=8, loc="outside right center")  # beside the axes, where it hides no bar
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_accuracy_matrix(
    rows: Mapping[str, Mapping[str, float]], columns: Sequence[str], path: str | Path, title: str | None = None
) -> Path:
    """Save a PNG of accuracy as a grid: one row per training condition (``rows``: label -> column -> accuracy),
    one column per group tested, each cell coloured and written (blank where a row has no such column)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grid = np.array([[row.get(c, np.nan) for c in columns] for row in rows.values()], dtype=float)
    fig, ax = plt.subplots(figsize=(1.2 + 0.6 * len(columns), 0.8 + 0.35 * len(rows)), layout="constrained")
    image = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="RdYlGn", aspect="auto")
    for (i, j), value in np.ndenumerate(grid):
        if np.isfinite(value):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7)
    ax.set_xticks(np.arange(len(columns)), list(columns))
    ax.set_yticks(np.arange(len(rows)), list(rows))
    ax.set_xlabel("tested on")
    ax.set_ylabel("trained on")
    fig.colorbar(image, ax=ax, label="accuracy", shrink=0.8)
    if title:
        ax.set_title(title)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
