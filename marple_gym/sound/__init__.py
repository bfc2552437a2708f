"""Sounds for the audio evidence: one synthesised clip per audio token, and episode soundtracks."""

from marple_gym.sound.bank import SoundBank, SoundError, write_soundtrack

__all__ = ["SoundBank", "SoundError", "write_soundtrack"]
