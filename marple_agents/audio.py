"""Audio refinement: P(a | vision, audio) proportional to P(audio | a) P(a | vision).

P(audio | a) is the simulator's own action-to-sound mapping
(``marple_gym.evidence.AUDIO.likelihood``, 0 or 1), so nothing is learned:
the sound heard masks the actions that could not have made it and the rest
are renormalised. Works with the output of either policy.
"""

from __future__ import annotations

import numpy as np

from marple_gym.evidence import AUDIO


def refine_with_audio(probs: np.ndarray, audio_tokens: np.ndarray) -> np.ndarray:
    """Posterior over actions given the sound each row's action made.

    ``probs``: (B, 10) P(a | vision); ``audio_tokens``: (B,) token ids. Rows in
    which the sound rules out every action the policy allows fall back to
    ``probs`` (the policy and the evidence disagree; keep the policy's view).
    """
    probs = np.asarray(probs, dtype=np.float32)
    tokens = np.asarray(audio_tokens, dtype=np.int64).reshape(-1)
    if probs.ndim != 2 or probs.shape != (len(tokens), AUDIO.likelihood.shape[1]):
        raise ValueError(
            f"probs must be (B, {AUDIO.likelihood.shape[1]}) for B = {len(tokens)} tokens, got {probs.shape}"
        )
    if len(tokens) and (tokens.min() < 0 or tokens.max() >= len(AUDIO.tokens)):
        raise ValueError(f"audio tokens must be in 0..{len(AUDIO.tokens) - 1}")
    posterior = probs * AUDIO.likelihood[tokens]
    total = posterior.sum(axis=1, keepdims=True)
    return np.where(total > 0, posterior / np.where(total > 0, total, 1.0), probs).astype(np.float32)
