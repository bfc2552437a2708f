"""Metrics on the probabilities given to the culprit (pure functions of arrays).

``p`` is always an (n_trials, n_points) array; ``fractions`` the fractions of
the trajectory observed at each point (0, 0.1, ..., 1 by default).
"""

from __future__ import annotations

import numpy as np

DEFAULT_FRACTIONS = np.linspace(0.0, 1.0, 11)
BOOTSTRAP_LEVEL = 0.95
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0


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


def area_under_curve(curve: np.ndarray, fractions: np.ndarray = DEFAULT_FRACTIONS) -> float:
    """Area under the accuracy curve over the fraction of evidence (trapezoid rule); 0.5 is chance."""
    curve = np.asarray(curve, dtype=float)
    return float(np.sum((curve[1:] + curve[:-1]) * np.diff(fractions)) / 2)


def summarise(p: np.ndarray, fractions: np.ndarray | None = None, seed: int = BOOTSTRAP_SEED) -> dict:
    """Every metric of one group of trials, as plain numbers (lists run over the evidence points).

    ``n`` trials; ``mean`` accuracy; ``sem`` the paper's band half-width
    sigma / sqrt(n) (the band is mean +/- sem); ``bootstrap_low`` and
    ``bootstrap_high`` the 95 % percentile bootstrap interval of the mean;
    ``evidence_for_0.8`` (None if never reached) and ``auc``.
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
        "evidence_for_0.8": evidence_needed(curve, fractions),
        "auc": area_under_curve(curve, fractions),
    }
