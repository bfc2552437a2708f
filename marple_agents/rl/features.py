"""A stable-baselines3 features extractor for MARPLE's symbolic code array.

The (rows, cols, 8) array holds category codes (room, furniture type, object
type, ...), not intensities, so each channel gets its own embedding table; the
embedded cells go through a small CNN. Every other key of a Dict observation
(direction, carrying, audio, subgoal: one-hot after SB3's preprocessing) is
flattened beside it. Works with ``MultiInputPolicy`` (Dict observations from
:class:`marple_gym.NumericObservation`) and with ``CnnPolicy`` (the bare array,
``NumericObservation(env, keys=("image",))``).
"""

from __future__ import annotations

import gymnasium as gym
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from marple_gym.evidence.vision import channel_sizes


class CodeArrayEmbedding(nn.Module):
    """(B, rows, cols, 8) codes -> (B, features) through per-channel embeddings and a small CNN."""

    def __init__(self, shape: tuple[int, int, int], embed_dim: int = 8, channels: int = 16) -> None:
        super().__init__()
        rows, cols, depth = shape
        sizes = channel_sizes()[:depth]
        self.embeddings = nn.ModuleList(nn.Embedding(size, embed_dim) for size in sizes)
        # stride 2 only where the grid is large, so a 7 x 7 view keeps its cells
        stride = 2 if min(rows, cols) > 9 else 1
        self.cnn = nn.Sequential(
            nn.Conv2d(embed_dim * depth, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, 2 * channels, 3, stride=stride, padding=1),
            nn.ReLU(),
            nn.Conv2d(2 * channels, 2 * channels, 3, stride=stride, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        with torch.no_grad():
            self.out_dim = int(self.cnn(torch.zeros(1, embed_dim * depth, rows, cols)).shape[1])
        self._limits = torch.tensor([s - 1 for s in sizes])

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        codes = codes.long().clamp(min=0)
        codes = torch.minimum(codes, self._limits.to(codes.device))
        embedded = torch.cat([emb(codes[..., c]) for c, emb in enumerate(self.embeddings)], dim=-1)
        return self.cnn(embedded.permute(0, 3, 1, 2))


class CodeArrayExtractor(BaseFeaturesExtractor):
    """SB3 features extractor: the code array embedded, other keys flattened, then one linear layer.

    Use as ``PPO("MultiInputPolicy", env, policy_kwargs={"features_extractor_class": CodeArrayExtractor})``.
    """

    def __init__(self, observation_space: gym.Space, features_dim: int = 128, embed_dim: int = 8) -> None:
        super().__init__(observation_space, features_dim)
        image = observation_space["image"] if isinstance(observation_space, spaces.Dict) else observation_space
        if not (isinstance(image, spaces.Box) and len(image.shape) == 3):
            raise ValueError(f"CodeArrayExtractor needs a (rows, cols, channels) code array, got {image}")
        self.image = CodeArrayEmbedding(image.shape, embed_dim)
        self.others: list[str] = []
        extra = 0
        if isinstance(observation_space, spaces.Dict):
            self.others = [k for k in observation_space.spaces if k != "image"]
            extra = sum(spaces.flatdim(observation_space[k]) for k in self.others)
        self.head = nn.Sequential(nn.Linear(self.image.out_dim + extra, features_dim), nn.ReLU())

    def forward(self, observations) -> torch.Tensor:
        if not isinstance(observations, dict):
            return self.head(self.image(observations))
        parts = [self.image(observations["image"])]
        parts += [observations[k].flatten(1).float() for k in self.others]
        return self.head(torch.cat(parts, dim=1))
