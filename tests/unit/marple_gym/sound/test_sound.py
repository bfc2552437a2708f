"""The sound bank: one distinct, deterministic clip per audio token; WAV soundtracks."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile

from marple_gym.evidence.audio import AUDIO
from marple_gym.sound import SoundBank, SoundError, write_soundtrack
from marple_gym.sound.bank import parse_token


@pytest.fixture(scope="module")
def clips() -> np.ndarray:
    bank = SoundBank()
    return np.stack([bank.clip(i) for i in range(len(AUDIO))])


def test_every_token_has_a_short_clip_and_only_silence_is_silent(clips):
    bank = SoundBank()
    assert clips.shape == (len(AUDIO), int(bank.sample_rate * bank.duration))
    assert clips.dtype == np.float32
    peaks = np.abs(clips).max(axis=1)
    assert peaks[AUDIO.index["silence"]] == 0
    others = np.delete(peaks, AUDIO.index["silence"])
    assert np.all(others > 0.7) and np.all(others <= 0.81)
    assert np.all(np.abs(clips[:, :10]) < 0.05) and np.all(np.abs(clips[:, -10:]) < 0.05)  # faded ends


def test_no_two_tokens_sound_alike(clips):
    sounding = np.delete(clips, AUDIO.index["silence"], axis=0).astype(np.float64)
    names = [t for t in AUDIO.tokens if t != "silence"]
    waves = sounding / np.linalg.norm(sounding, axis=1, keepdims=True)
    spectra = np.abs(np.fft.rfft(sounding, axis=1))
    spectra /= np.linalg.norm(spectra, axis=1, keepdims=True)
    for similarity, limit in ((waves @ waves.T, 0.9), (spectra @ spectra.T, 0.98)):
        np.fill_diagonal(similarity, 0)
        i, j = np.unravel_index(np.abs(similarity).argmax(), similarity.shape)
        assert abs(similarity[i, j]) < limit, (names[i], names[j], similarity[i, j])


def test_clips_are_deterministic_given_the_seed():
    a, b = SoundBank(seed=1), SoundBank(seed=1)
    assert np.array_equal(a.clip("footstep"), b.clip("footstep"))
    assert np.array_equal(a.clip("idle_shower"), b.clip(AUDIO.index["idle_shower"]))
    assert not np.array_equal(a.clip("idle_shower"), SoundBank(seed=2).clip("idle_shower"))


def test_tokens_parse_into_verb_and_thing():
    assert parse_token("toggle_on_laundry") == ("toggle_on", "laundry")
    assert parse_token("pickup_pot_plant") == ("pickup", "pot_plant")
    assert parse_token("close_electric_refrigerator") == ("close", "electric_refrigerator")
    assert parse_token("footstep") == ("footstep", "")


def test_unknown_tokens_and_bad_settings_are_reported():
    with pytest.raises(SoundError, match="unknown audio token"):
        SoundBank().clip("moo")
    with pytest.raises(SoundError, match="out of range"):
        SoundBank().clip(len(AUDIO))
    with pytest.raises(SoundError):
        SoundBank(duration=0)


def test_wav_files_and_soundtracks(tmp_path):
    bank = SoundBank(sample_rate=8000, duration=0.25)
    path = bank.write("open_closet", tmp_path / "open.wav")
    data, sr = soundfile.read(path)
    assert sr == 8000 and len(data) == 2000
    assert np.allclose(data, bank.clip("open_closet"), atol=1e-4)

    tokens = [0, 1, AUDIO.index["toggle_on_laundry"]]
    mono, sr = soundfile.read(write_soundtrack(tmp_path / "mono.wav", [tokens], bank))
    assert mono.shape == (3 * 2000,)
    assert np.allclose(mono[4000:], bank.clip("toggle_on_laundry"), atol=1e-4)  # one clip per step, in order

    stereo, _ = soundfile.read(write_soundtrack(tmp_path / "pair.wav", [tokens, tokens[:1]], bank))
    assert stereo.shape == (6000, 2)
    assert np.abs(stereo[2000:, 1]).max() == 0  # the shorter track is padded with silence

    with pytest.raises(SoundError, match="WAV"):
        write_soundtrack(tmp_path / "x.mp3", [tokens], bank)
    written = bank.write_all(tmp_path / "bank")
    assert len(written) == len(AUDIO) and written[2].name == "002_open_door.wav"


def test_the_stereo_player_plays_both_agents_or_stays_silent_without_a_device():
    from marple_gym.sound.player import StereoPlayer

    player = StereoPlayer()
    player.play(AUDIO.index["footstep"], AUDIO.index["open_door"])  # never raises, device or not
    if player.ok:
        assert player.bank.sample_rate > 0
