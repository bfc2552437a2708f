"""Metrics on the probabilities given to the culprit (pure functions of arrays).

``p`` is always an (n_trials, n_points) array; ``fractions`` the fractions of
the trajectory observed at each point (0, 0.1, ..., 1 by default).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEFAULT_FRACTIONS = np.linspace(0.0, 1.0, 11)
BOOTSTRAP_LEVEL = 0.95
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
THRESHOLDS = (0.8, 0.6)
"""The paper's Table 2 threshold, and section 6.4's."""
MIN_TRIALS = 20
"""Below this many trials a group's figures are too uncertain to compare: summaries warn."""


def fractions_for(points: int) -> np.ndarray:
    return np.linspace(0.0, 1.0, points)


def accuracy_curve(p: np.ndarray) -> np.ndarray:
    """Mean probability given to the culprit at each evidence point."""
    p = np.asarray(p, dtype=float)
    if p.ndim != 2 or len(p) == 0:
        raise ValueError("need an (n_trials >= 1, n_points) array")
    return p.mean(axis=0)


def sem_band(p: np.ndarray) -> np.ndarray:
    """The paper's band: sigma / sqrt(n) per point (sample standard deviation; 0 for a single trial)."""
    p = np.asarray(p, dtype=float)
    if len(p) < 2:
        return np.zeros(p.shape[1])
    return p.std(axis=0, ddof=1) / np.sqrt(len(p))


def bootstrap_interval(
    p: np.ndarray, level: float = BOOTSTRAP_LEVEL, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of the mean per point, resampling trials (deterministic given ``seed``)."""
    p = np.asarray(p, dtype=float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(p), size=(resamples, len(p)))
    means = p[idx].mean(axis=1)
    alpha = (1.0 - level) / 2
    return np.quantile(means, alpha, axis=0), np.quantile(means, 1 - alpha, axis=0)


def evidence_needed(
    curve: np.ndarray, fractions: np.ndarray = DEFAULT_FRACTIONS, threshold: float = 0.8
) -> float | None:
    """Smallest fraction of evidence at which mean accuracy reaches ``threshold`` (Table 2).

    Linear interpolation between grid points; 0.0 if reached at tau = 0; None
    if never reached.
    """
    curve = np.asarray(curve, dtype=float)
    hits = np.flatnonzero(curve >= threshold)
    if len(hits) == 0:
        return None
    k = int(hits[0])
    if k == 0:
        return float(fractions[0])
    c0, c1 = curve[k - 1], curve[k]
    f0, f1 = fractions[k - 1], fractions[k]
    return float(f0 + (threshold - c0) * (f1 - f0) / (c1 - c0))


def crossings(curves: np.ndarray, fractions: np.ndarray, threshold: float) -> np.ndarray:
    """:func:`evidence_needed` of each row of ``curves`` at once; ``inf`` where a curve never reaches it."""
    curves = np.asarray(curves, dtype=float)
    hits = curves >= threshold
    reached = hits.any(axis=1)
    k = np.argmax(hits, axis=1)
    prev = np.maximum(k - 1, 0)
    rows = np.arange(len(curves))
    c0, c1 = curves[rows, prev], curves[rows, k]
    f0, f1 = fractions[prev], fractions[k]
    with np.errstate(divide="ignore", invalid="ignore"):
        between = f0 + (threshold - c0) * (f1 - f0) / (c1 - c0)
    out = np.where(k == 0, fractions[0], between)
    return np.where(reached, out, np.inf)


def _resampled_curves(p: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    idx = rng.integers(0, len(p), size=(resamples, len(p)))
    return p[idx].mean(axis=1)


def _percentiles(values: np.ndarray, level: float) -> tuple[float | None, float | None]:
    """Percentile interval by order statistics (no interpolation, so 'never reached' (inf) stays an end)."""
    ordered = np.sort(values)
    alpha = (1.0 - level) / 2
    lo = ordered[int(np.floor(alpha * (len(ordered) - 1)))]
    hi = ordered[int(np.ceil((1 - alpha) * (len(ordered) - 1)))]
    return (None if np.isinf(lo) else float(lo)), (None if np.isinf(hi) else float(hi))


@dataclass(frozen=True)
class Bootstrap:
    """How intervals are resampled: deterministic given ``seed``."""

    level: float = BOOTSTRAP_LEVEL
    resamples: int = BOOTSTRAP_RESAMPLES
    seed: int = BOOTSTRAP_SEED


def evidence_interval(p: np.ndarray, fractions: np.ndarray, threshold: float = 0.8, boot=Bootstrap()) -> dict:
    """Evidence needed to reach ``threshold``, with a percentile bootstrap interval that resamples trials
    and recomputes the curve and its crossing for each resample.

    ``value``, ``low`` and ``high`` are fractions of evidence; None means "not reached" (for ``high``: in
    more than (1 - level) / 2 of the resamples, so the interval is open at the top).
    """
    p = np.asarray(p, dtype=float)
    value = evidence_needed(accuracy_curve(p), fractions, threshold)
    curves = _resampled_curves(p, boot.resamples, np.random.default_rng(boot.seed))
    low, high = _percentiles(crossings(curves, fractions, threshold), boot.level)
    return {"value": value, "low": low, "high": high}


def seed_evidence_interval(
    matrices: list[np.ndarray],
    fractions: np.ndarray,
    threshold: float = 0.8,
    boot: Bootstrap = Bootstrap(),
    resample_seeds: bool = True,
) -> dict:
    """Evidence needed to reach ``threshold`` by the mean curve over model seeds, with an interval that holds the
    training seeds' variance as well as the trials'.

    ``matrices``: one (n_trials, n_points) matrix per model seed, the same trials in the same rows (every seed is
    scored on the same test trials). Each resample draws the seeds and the trials independently, with replacement
    (a two-way bootstrap, as the seeds and the trials are crossed: every seed answers every trial), takes the mean
    curve over the drawn (seed, trial) cells and finds its crossing. With ``resample_seeds`` False only the trials
    are drawn: the interval of the same pooled figure if the seeds were all there is.
    """
    stack = _seed_stack(matrices)
    seeds, trials = stack.shape[:2]
    value = evidence_needed(stack.mean(axis=(0, 1)), fractions, threshold)
    curves = two_way_means(stack, boot, resample_seeds)
    low, high = _percentiles(crossings(curves, fractions, threshold), boot.level)
    return {"value": value, "low": low, "high": high, "seeds": seeds, "trials": trials}


def _seed_stack(matrices: list[np.ndarray]) -> np.ndarray:
    stack = np.asarray(matrices, dtype=float)
    if stack.ndim != 3 or len(stack) < 1 or stack.shape[1] < 1:
        raise ValueError("need one (n_trials >= 1, n_points) matrix per seed, all of one shape")
    return stack


def two_way_means(stack: np.ndarray, boot: Bootstrap = Bootstrap(), resample_seeds: bool = True) -> np.ndarray:
    """(resamples, points): the mean over (seed, trial) cells of each two-way bootstrap resample of a (seeds,
    trials, points) stack, the seeds and the trials drawn independently with replacement (every seed scored on
    the same trials); with ``resample_seeds`` False only the trials are drawn."""
    stack = _seed_stack(stack)
    seeds, trials = stack.shape[:2]
    rng = np.random.default_rng(boot.seed)
    drawn_trials = rng.integers(0, trials, size=(boot.resamples, trials))
    drawn_seeds = rng.integers(0, seeds, size=(boot.resamples, seeds))
    if not resample_seeds:
        drawn_seeds = np.broadcast_to(np.arange(seeds), (boot.resamples, seeds))
    per_seed = np.stack([stack[s][drawn_trials].mean(axis=1) for s in range(seeds)])  # (seeds, resamples, points)
    return per_seed[drawn_seeds, np.arange(boot.resamples)[:, None]].mean(axis=1)


def seed_mean_interval(matrices: list[np.ndarray], boot: Bootstrap = Bootstrap()) -> dict:
    """The mean of per-trial scores (accuracy credits, say) over model seeds and trials, with the two-way
    bootstrap interval of :func:`two_way_means` (``matrices``: one (n_trials, n_points) matrix per seed, the
    same trials in the same rows). Lists run over the points."""
    stack = _seed_stack(matrices)
    means = two_way_means(stack, boot)
    alpha = (1.0 - boot.level) / 2
    return {
        "value": stack.mean(axis=(0, 1)).tolist(),
        "low": np.quantile(means, alpha, axis=0).tolist(),
        "high": np.quantile(means, 1 - alpha, axis=0).tolist(),
        "seeds": int(stack.shape[0]),
        "trials": int(stack.shape[1]),
    }


def mean_evidence_interval(
    groups: list[np.ndarray], fractions: np.ndarray, threshold: float = 0.8, boot=Bootstrap()
) -> dict:
    """The mean over groups (scenarios) of each group's evidence needed, with a bootstrap interval that
    resamples trials within each group. A group that never reaches the threshold counts as 1.0 (all the
    evidence), so the mean is then a lower bound: ``unreached`` says in how many groups."""
    rng = np.random.default_rng(boot.seed)
    values, resampled = [], []
    for p in groups:
        p = np.asarray(p, dtype=float)
        values.append(crossings(accuracy_curve(p)[None], fractions, threshold)[0])
        resampled.append(crossings(_resampled_curves(p, boot.resamples, rng), fractions, threshold))
    values_arr = np.minimum(np.array(values), 1.0)
    means = np.minimum(np.array(resampled), 1.0).mean(axis=0)
    low, high = _percentiles(means, boot.level)
    return {
        "value": float(values_arr.mean()),
        "low": low,
        "high": high,
        "unreached": int(np.isinf(values).sum()),
    }


def area_under_curve(curve: np.ndarray, fractions: np.ndarray = DEFAULT_FRACTIONS) -> float:
    """Area under the accuracy curve over the fraction of evidence (trapezoid rule); 0.5 is chance."""
    curve = np.asarray(curve, dtype=float)
    return float(np.sum((curve[1:] + curve[:-1]) * np.diff(fractions)) / 2)


def threshold_key(threshold: float) -> str:
    return f"{threshold:g}"


def summarise(
    p: np.ndarray,
    fractions: np.ndarray | None = None,
    seed: int = BOOTSTRAP_SEED,
    thresholds: tuple[float, ...] = THRESHOLDS,
) -> dict:
    """Every metric of one group of trials, as plain numbers (lists run over the evidence points).

    ``n`` trials; ``mean`` accuracy; ``sem`` the paper's band half-width
    sigma / sqrt(n) (the band is mean +/- sem); ``bootstrap_low`` and
    ``bootstrap_high`` the 95 % percentile bootstrap interval of the mean;
    ``evidence``: per threshold ("0.8", "0.6") the evidence needed with its
    bootstrap interval (:func:`evidence_interval`); ``evidence_for_0.8`` (None
    if never reached) and ``auc``; ``warning`` when fewer than
    :data:`MIN_TRIALS` trials stand behind the figures.
    """
    p = np.asarray(p, dtype=float)
    fractions = fractions_for(p.shape[1]) if fractions is None else fractions
    curve = accuracy_curve(p)
    lo, hi = bootstrap_interval(p, seed=seed)
    return {
        "n": int(len(p)),
        "mean": curve.tolist(),
        "sem": sem_band(p).tolist(),
        "bootstrap_low": lo.tolist(),
        "bootstrap_high": hi.tolist(),
        "evidence": {threshold_key(t): evidence_interval(p, fractions, t, Bootstrap(seed=seed)) for t in thresholds},
        "evidence_for_0.8": evidence_needed(curve, fractions),
        "auc": area_under_curve(curve, fractions),
        "warning": few_trials_warning(len(p)),
    }


def few_trials_warning(n: int) -> str | None:
    if n >= MIN_TRIALS:
        return None
    return f"only {n} trial{'s' if n != 1 else ''}: fewer than {MIN_TRIALS}, the figures are too uncertain to compare"
