"""One short, distinct sound for every audio token, synthesised on demand.

The paper's audio evidence is a symbolic token per action (``footstep``,
``open_closet``, ``toggle_on_laundry``, ...). People in the human study hear
it, so each token gets a clip:

* the **verb** sets the character: footsteps thump, ``open`` creaks up and
  clicks, ``close`` clicks and thuds, ``toggle_on`` / ``toggle_off`` click and
  beep up / down, ``clean`` swishes, ``pickup`` / ``drop`` pluck up / down (a
  drop lands with a thud), ``idle_<appliance>`` hums (laundry), hisses (shower)
  or chatters (television);
* the **thing** sets pitch, timbre and rhythm: its index in the asset library
  picks one of 24 semitones over two octaves and, every 24 things, one more
  pulse; its category (furniture, food, tools, ...) picks the harmonics. So no
  two tokens sound alike.

::

    bank = SoundBank()
    bank.clip("toggle_on_laundry")           # float32 samples at bank.sample_rate
    bank.write_all("sounds/")                # one WAV per token
    write_soundtrack("out.wav", [trajectory.audio], bank)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import soundfile

from marple_gym.errors import MarpleError
from marple_gym.evidence.audio import AUDIO
from marple_gym.sound import synth
from marple_gym.world.assets import ASSETS

VERBS = ("toggle_on", "toggle_off", "open", "close", "clean", "pickup", "drop", "idle")
THINGS: tuple[str, ...] = ("door",) + tuple(f.name for f in ASSETS.furniture) + tuple(o.name for o in ASSETS.objects)
_CATEGORY = {o.name: o.category for o in ASSETS.objects}
_HARMONICS: dict[str, tuple[float, ...]] = {
    "door": (1.0, 0.7, 0.5),
    "furniture": (1.0, 0.5, 0.3, 0.2),
    "food": (1.0, 0.2),
    "kitchenware": (1.0, 0.0, 0.6, 0.0, 0.4),  # odd harmonics: hollow, metallic
    "textile": (1.0,),
    "cleaning": (1.0, 0.3, 0.1),
    "stationery": (1.0, 0.5),
    "tools": (1.0, 0.8, 0.6, 0.4, 0.3),
    "misc": (1.0, 0.4, 0.2),
}


class SoundError(MarpleError):
    """An unknown audio token."""


@dataclass(frozen=True)
class Voice:
    """How a thing sounds: base pitch (Hz), harmonic amplitudes, and pulses per motif."""

    pitch: float
    harmonics: tuple[float, ...]
    pulses: int

    @classmethod
    def of(cls, thing: str) -> Voice:
        k = THINGS.index(thing)
        # 7 and 24 are coprime, so neighbours in the library land far apart on the scale.
        pitch = 220.0 * 2 ** (((k * 7) % 24) / 12)
        group = "door" if thing == "door" else _CATEGORY.get(thing, "furniture")
        return cls(pitch, _HARMONICS[group], 1 + k // 24)


def parse_token(name: str) -> tuple[str, str]:
    """``"toggle_on_laundry"`` -> ``("toggle_on", "laundry")``; ``"footstep"`` -> ``("footstep", "")``."""
    for verb in VERBS:
        if name.startswith(verb + "_"):
            return verb, name[len(verb) + 1 :]
    return name, ""


@dataclass(frozen=True)
class SoundBank:
    """Clips of ``duration`` seconds at ``sample_rate``; noise is drawn from a Generator seeded by ``seed``."""

    sample_rate: int = 22050
    duration: float = 0.5
    seed: int = 0

    def __post_init__(self) -> None:
        if self.sample_rate < 4000 or self.duration <= 0:
            raise SoundError(f"need sample_rate >= 4000 and duration > 0, got {self.sample_rate}, {self.duration}")

    def clip(self, token: int | str) -> np.ndarray:
        """The token's clip (float32 mono, ``duration`` seconds; read-only, shared)."""
        return _synthesise(_token_index(token), self.sample_rate, self.duration, self.seed)

    def soundtrack(self, tokens: Sequence[int]) -> np.ndarray:
        """One clip per step, end to end."""
        if len(tokens) == 0:
            return synth.silence(0, self.sample_rate)
        return np.concatenate([self.clip(int(t)) for t in tokens])

    def write(self, token: int | str, path: str | Path) -> Path:
        """Write one token's clip as a 16-bit WAV file."""
        path = Path(path)
        soundfile.write(path, self.clip(token), self.sample_rate, subtype="PCM_16")
        return path

    def write_all(self, directory: str | Path) -> list[Path]:
        """One WAV per token, named ``<id>_<token>.wav``."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        return [self.write(i, directory / f"{i:03d}_{name}.wav") for i, name in enumerate(AUDIO.tokens)]


def write_soundtrack(path: str | Path, tracks: Sequence[Sequence[int]], bank: SoundBank | None = None) -> Path:
    """Write token sequences as a WAV file: one track is mono, two are stereo (left, right).

    Shorter tracks are padded with silence to the longest.
    """
    bank = bank or SoundBank()
    if not 1 <= len(tracks) <= 2:
        raise SoundError(f"a soundtrack has one or two tracks, got {len(tracks)}")
    audio = [bank.soundtrack(list(t)) for t in tracks]
    n = max(len(a) for a in audio)
    data = np.stack([np.pad(a, (0, n - len(a))) for a in audio], axis=1)
    path = Path(path)
    if path.suffix.lower() != ".wav":
        raise SoundError(f"{path}: the soundtrack is written as WAV; name it *.wav")
    path.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(path, data if len(tracks) == 2 else data[:, 0], bank.sample_rate, subtype="PCM_16")
    return path


def _token_index(token: int | str) -> int:
    if isinstance(token, str):
        if token not in AUDIO.index:
            raise SoundError(f"unknown audio token {token!r}")
        return AUDIO.index[token]
    index = int(token)
    if not 0 <= index < len(AUDIO):
        raise SoundError(f"audio token id {index} is out of range 0..{len(AUDIO) - 1}")
    return index


@lru_cache(maxsize=1024)
def _synthesise(index: int, sr: int, duration: float, seed: int) -> np.ndarray:
    track = synth.silence(duration, sr)
    verb, thing = parse_token(AUDIO.tokens[index])
    rng = np.random.default_rng([seed, index])
    if verb == "footstep":
        _footsteps(track, sr, rng)
    elif verb == "idle":
        _idle(track, sr, rng, thing)
    elif verb != "silence":
        RECIPES[verb](track, sr, rng, Voice.of(thing))
    track = synth.finish(track, sr)
    track.setflags(write=False)
    return track


# ---- recipes: each mixes its sound into ``track`` ------------------------------------------------
def _thud(sr: int, rng: np.random.Generator, freq: float = 75.0) -> np.ndarray:
    body = synth.tone(freq, 0.12, sr) * synth.decay(0.12, sr, 0.035)
    grit = synth.noise(0.12, sr, rng, 40, 500) * synth.decay(0.12, sr, 0.02)
    return body + 0.5 * grit


def _click(sr: int, rng: np.random.Generator) -> np.ndarray:
    return synth.noise(0.012, sr, rng, 1500, 7000) * synth.decay(0.012, sr, 0.003, attack=0.0005)


def _footsteps(track: np.ndarray, sr: int, rng: np.random.Generator) -> None:
    for at, freq, gain in ((0.02, 90.0, 1.0), (0.24, 80.0, 0.8)):
        synth.place(track, _thud(sr, rng, freq), at, sr, gain)


def _pluck(v: Voice, f0: float, f1: float, sr: int, length: float = 0.09) -> np.ndarray:
    return synth.glide(f0, f1, length, sr, v.harmonics) * synth.decay(length, sr, length / 2.5)


def _pulses(v: Voice) -> list[float]:
    """Start times of a thing's pulses, squeezed to fit the first 0.4 s."""
    step = min(0.1, 0.36 / v.pulses)
    return [0.02 + i * step for i in range(v.pulses)]


def _pickup(track: np.ndarray, sr: int, rng: np.random.Generator, v: Voice) -> None:
    for i, at in enumerate(_pulses(v)):
        f = v.pitch * 2 ** (i / 12)
        synth.place(track, _pluck(v, f, f * 1.33, sr), at, sr)


def _drop(track: np.ndarray, sr: int, rng: np.random.Generator, v: Voice) -> None:
    starts = _pulses(v)
    for i, at in enumerate(starts):
        f = v.pitch * 2 ** (-i / 12)
        synth.place(track, _pluck(v, f * 1.33, f * 0.9, sr), at, sr)
    synth.place(track, _thud(sr, rng, 50.0 + v.pitch / 8), starts[-1] + 0.1, sr, 0.7)


def _toggle(rising: bool):
    def recipe(track: np.ndarray, sr: int, rng: np.random.Generator, v: Voice) -> None:
        synth.place(track, _click(sr, rng), 0.01, sr, 0.7)
        for i, at in enumerate(_pulses(v)):
            f = v.pitch * 2 * (2 ** ((i if rising else -i) * 4 / 12))
            beep = synth.tone(f, 0.07, sr, v.harmonics) * synth.decay(0.07, sr, 0.05)
            synth.place(track, beep, at + 0.05, sr, 0.8)
        low, high = (v.pitch, v.pitch * 1.5) if rising else (v.pitch * 1.5, v.pitch)
        synth.place(track, _pluck(v, low, high, sr, 0.15), 0.06 + 0.1 * len(_pulses(v)), sr, 0.5)

    return recipe


def _open(track: np.ndarray, sr: int, rng: np.random.Generator, v: Voice) -> None:
    creak = synth.glide(v.pitch * 0.5, v.pitch * 0.75, 0.3, sr, v.harmonics, vibrato=0.04 * v.pulses)
    synth.place(track, creak * synth.decay(0.3, sr, 0.25, attack=0.05), 0.02, sr, 0.7)
    synth.place(track, _click(sr, rng), 0.33, sr)


def _close(track: np.ndarray, sr: int, rng: np.random.Generator, v: Voice) -> None:
    slide = synth.glide(v.pitch * 0.75, v.pitch * 0.5, 0.12, sr, v.harmonics, vibrato=0.04 * v.pulses)
    synth.place(track, slide * synth.decay(0.12, sr, 0.1, attack=0.02), 0.02, sr)
    synth.place(track, _click(sr, rng), 0.14, sr, 0.6)
    synth.place(track, _thud(sr, rng, 50.0 + v.pitch / 8), 0.15, sr, 0.6)


def _clean(track: np.ndarray, sr: int, rng: np.random.Generator, v: Voice) -> None:
    swish = synth.noise(0.09, sr, rng, v.pitch * 3, v.pitch * 9) * np.hanning(synth.samples(0.09, sr)).astype(
        np.float32
    )
    for i in range(v.pulses + 1):
        synth.place(track, swish, 0.03 + i * min(0.11, 0.4 / (v.pulses + 1)), sr, 1.0 - 0.1 * i)
    synth.place(track, synth.tone(v.pitch, 0.06, sr, v.harmonics) * synth.decay(0.06, sr, 0.03), 0.0, sr, 0.3)


def _idle(track: np.ndarray, sr: int, rng: np.random.Generator, thing: str) -> None:
    n = len(track)
    t = np.arange(n, dtype=np.float32) / sr
    if thing == "laundry":  # a motor hum with water sloshing round
        hum = synth.tone(55.0, n / sr, sr, (1.0, 0.6, 0.4, 0.2))
        slosh = synth.noise(n / sr, sr, rng, 80, 700) * (0.5 + 0.5 * np.sin(2 * np.pi * 3 * t))
        track += 0.7 * hum + 0.4 * slosh
    elif thing == "shower":  # running water: bright hiss, gently wavering
        track += synth.noise(n / sr, sr, rng, 1800, 9000) * (0.8 + 0.2 * np.sin(2 * np.pi * 5 * t))
    elif thing == "television":  # chatter: syllable-like tones over a faint hiss
        track += 0.1 * synth.noise(n / sr, sr, rng, 3000, 8000)
        at = 0.02
        while at < n / sr - 0.06:
            f = float(rng.uniform(180, 320))
            syllable = synth.tone(f, 0.05, sr, (1.0, 0.6, 0.5, 0.3)) * np.hanning(synth.samples(0.05, sr))
            synth.place(track, syllable.astype(np.float32), at, sr, 0.8)
            at += float(rng.uniform(0.06, 0.1))
    else:  # an appliance added to the data without its own sound: a plain hum
        track += synth.tone(110.0, n / sr, sr, (1.0, 0.5))


RECIPES = {
    "pickup": _pickup,
    "drop": _drop,
    "toggle_on": _toggle(rising=True),
    "toggle_off": _toggle(rising=False),
    "open": _open,
    "close": _close,
    "clean": _clean,
}
