"""Playing the bank's clips through pygame's mixer, one sound per ear."""

from __future__ import annotations

import logging

import numpy as np

from marple_gym.sound.bank import SoundBank

log = logging.getLogger(__name__)


class StereoPlayer:
    """Plays two tokens at once, the first in the left ear and the second in the right.

    Without a working audio device it stays silent and says so once in the log:
    the study then shows the sounds as text only.
    """

    def __init__(self, duration: float = 0.5) -> None:
        import pygame  # loaded when sound plays

        self.pg = pygame
        self.ok = False
        try:
            pygame.mixer.init(frequency=22050, size=-16, channels=2)
            rate, _, channels = pygame.mixer.get_init()
        except pygame.error as exc:
            log.warning("no audio output (%s): sounds are shown as text only", exc)
            return
        self.channels = channels
        self.bank = SoundBank(sample_rate=rate, duration=duration)  # the device's rate, whatever it granted
        self.ok = True

    def play(self, left: int, right: int) -> None:
        if not self.ok:
            return
        pair = np.stack([self.bank.clip(left), self.bank.clip(right)], axis=1)
        samples = pair if self.channels == 2 else pair.mean(axis=1, keepdims=True).repeat(self.channels, axis=1)
        try:
            self.pg.sndarray.make_sound(np.ascontiguousarray((samples * 32767).astype(np.int16))).play()
        except (self.pg.error, ValueError) as exc:
            log.warning("could not play a sound (%s): sounds are shown as text only", exc)
            self.ok = False
