"""Small synthesis primitives: tones, glides, noise bursts and envelopes, all numpy.

Every function returns a float32 mono signal at ``sr`` samples per second;
randomness (noise) comes from the Generator passed in.
"""

from __future__ import annotations

import numpy as np


def samples(duration: float, sr: int) -> int:
    """How many samples ``duration`` seconds take (every primitive rounds the same way)."""
    return int(round(duration * sr))


def silence(duration: float, sr: int) -> np.ndarray:
    return np.zeros(samples(duration, sr), dtype=np.float32)


def decay(duration: float, sr: int, tau: float, attack: float = 0.004) -> np.ndarray:
    """An envelope that rises over ``attack`` seconds and decays exponentially with time constant ``tau``."""
    t = np.arange(samples(duration, sr), dtype=np.float32) / sr
    return (np.minimum(t / attack, 1.0) * np.exp(-t / tau)).astype(np.float32)


def glide(
    f0: float, f1: float, duration: float, sr: int, harmonics: tuple[float, ...] = (1.0,), vibrato: float = 0.0
) -> np.ndarray:
    """A tone sliding exponentially from ``f0`` to ``f1`` Hz, with the given harmonic amplitudes."""
    t = np.arange(samples(duration, sr), dtype=np.float64) / sr
    freq = f0 * (f1 / f0) ** (t / max(duration, 1e-9))
    if vibrato:
        freq = freq * (1 + vibrato * np.sin(2 * np.pi * 7 * t))
    phase = 2 * np.pi * np.cumsum(freq) / sr
    out = sum(a * np.sin(k * phase) for k, a in enumerate(harmonics, start=1))
    return (out / max(sum(harmonics), 1e-9)).astype(np.float32)


def tone(freq: float, duration: float, sr: int, harmonics: tuple[float, ...] = (1.0,)) -> np.ndarray:
    return glide(freq, freq, duration, sr, harmonics)


def noise(
    duration: float, sr: int, rng: np.random.Generator, low: float = 0.0, high: float | None = None
) -> np.ndarray:
    """White noise band-limited to [low, high] Hz (by zeroing FFT bins)."""
    n = samples(duration, sr)
    spectrum = np.fft.rfft(rng.standard_normal(n))
    freqs = np.fft.rfftfreq(n, 1 / sr)
    spectrum[(freqs < low) | (freqs > (high or sr / 2))] = 0
    out = np.fft.irfft(spectrum, n)
    peak = np.abs(out).max() or 1.0
    return (out / peak).astype(np.float32)


def place(track: np.ndarray, sound: np.ndarray, at: float, sr: int, gain: float = 1.0) -> None:
    """Mix ``sound`` into ``track`` starting ``at`` seconds in (cut at the track's end)."""
    start = samples(at, sr)
    if start >= len(track):
        return
    end = min(len(track), start + len(sound))
    track[start:end] += gain * sound[: end - start]


def finish(track: np.ndarray, sr: int, peak: float = 0.8) -> np.ndarray:
    """Normalise to ``peak`` and fade the ends by 5 ms so clips join without clicks."""
    top = np.abs(track).max()
    if top > 0:
        track = track * (peak / top)
    fade = min(int(0.005 * sr), len(track) // 2)
    if fade:
        ramp = np.linspace(0.0, 1.0, fade, dtype=np.float32)
        track[:fade] *= ramp
        track[-fade:] *= ramp[::-1]
    return track.astype(np.float32)
