"""The two policy networks: vision only, and conditioned on the current subgoal (the parsed intent).

Both map a batch of vision arrays to logits over the ten actions. The
language-conditioned network also has four decoders that predict the current
subgoal (action, object, furniture, room codes) from vision alone: simulation
inference uses them to guess the next subgoal once a rollout has achieved the
one the intent named.
"""

from __future__ import annotations

import torch
from torch import nn

from marple_agents.config import ModelConfig
from marple_agents.inputs import SUBGOAL_FIELDS
from marple_agents.networks.encoder import Encoded, GridEncoder, init_weights, mlp
from marple_gym.world.actions import NUM_ACTIONS
from marple_gym.world.assets import ASSETS
from marple_gym.world.state import CH_FUR, CH_OBJ, CH_ROOM

SUBGOAL_SIZES: dict[str, int] = {
    "action": NUM_ACTIONS,
    "object": len(ASSETS.object_names),  # code 0: the subgoal names no object
    "furniture": len(ASSETS.furniture_names),
    "room": len(ASSETS.room_types) + 1,  # codes 1..6
}


def action_head(cfg: ModelConfig) -> nn.Sequential:
    """The MLP from the encoder's readout (2 x width) to action logits."""
    return mlp([2 * cfg.width] + [cfg.head_hidden] * (cfg.head_layers - 1) + [NUM_ACTIONS])


def encoder(cfg: ModelConfig) -> GridEncoder:
    return GridEncoder(
        cfg.width, cfg.depth, cfg.readout_depth, cfg.heads, cfg.mlp_ratio, cfg.positions, cfg.dropout, cfg.glimpse
    )


class VisionPolicyNet(nn.Module):
    """Encoder + MLP head: logits of P(next action | vision)."""

    conditioning = "vision"

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.encoder = encoder(cfg)
        self.head = action_head(cfg)
        init_weights(self)

    def act(self, vision: torch.Tensor, subgoal: torch.Tensor | None = None) -> torch.Tensor:
        """(B, H, W, 8) codes -> action logits (B, 10); ``subgoal`` is ignored."""
        return self.head(self.encoder.readout(self.encoder.encode(vision)))

    def forward(self, vision: torch.Tensor, subgoal: torch.Tensor | None = None) -> tuple[torch.Tensor, None]:
        """(action logits, None): the same interface as the language network, which adds its decoders."""
        return self.act(vision), None


class SubgoalEmbedding(nn.Module):
    """(B, 4) subgoal codes, -1 for "none" or "done", -> (B, width): one table per field, summed."""

    def __init__(self, width: int) -> None:
        super().__init__()
        sizes = [SUBGOAL_SIZES[f] + 1 for f in SUBGOAL_FIELDS]  # + 1: code -1 gets a row of its own
        self.register_buffer("offsets", torch.tensor([1, *sizes[:-1]]).cumsum(0), persistent=False)
        self.table = nn.Embedding(sum(sizes), width)

    def forward(self, subgoal: torch.Tensor) -> torch.Tensor:
        return self.table(subgoal.long() + self.offsets).sum(dim=1)


class SubgoalGrounding(nn.Module):
    """Marks the cells a subgoal names: (B, H, W, 8) vision and (B, 4) codes -> (B, H*W, width).

    The intent names an object type, a furniture type and a room; each cell
    gets one of eight embeddings for which of the three it matches. The network
    then learns where to go rather than how to compare codes.
    """

    def __init__(self, width: int) -> None:
        super().__init__()
        self.table = nn.Embedding(8, width)

    def forward(self, vision: torch.Tensor, subgoal: torch.Tensor) -> torch.Tensor:
        cells = vision.flatten(1, 2).long()
        goal = subgoal.long()[:, None]
        furniture = (cells[..., CH_FUR] == goal[..., 2]) & (goal[..., 2] > 0)
        room = (cells[..., CH_ROOM] == goal[..., 3]) & (goal[..., 3] > 0)
        obj = (cells[..., CH_OBJ] == goal[..., 1]) & (goal[..., 1] > 0)
        return self.table(furniture.long() + 2 * room.long() + 4 * obj.long())


class LanguagePolicyNet(nn.Module):
    """The encoder read out twice: once on vision alone for the four subgoal decoders, and once with the
    subgoal added to every cell (its embedding, and marks on the cells it names) for the action head.

    The self-attention blocks see vision only, so they run once for both.
    """

    conditioning = "language"

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.encoder = encoder(cfg)
        self.subgoal = SubgoalEmbedding(cfg.width)
        self.grounding = SubgoalGrounding(cfg.width)
        self.decoders = nn.ModuleDict(
            {f: mlp([2 * cfg.width, cfg.decoder_hidden, SUBGOAL_SIZES[f]]) for f in SUBGOAL_FIELDS}
        )
        self.head = action_head(cfg)
        init_weights(self)

    def decode(self, vision: torch.Tensor, cells: Encoded | None = None):
        """Subgoal logits per field, from vision alone (``cells``: the encoder's output, if already computed)."""
        features = self.encoder.readout(cells or self.encoder.encode(vision))
        return {f: decoder(features) for f, decoder in self.decoders.items()}

    def act(self, vision: torch.Tensor, subgoal: torch.Tensor, cells: Encoded | None = None):
        """Action logits given the subgoal codes."""
        cells = cells or self.encoder.encode(vision)
        tokens = cells.tokens + self.subgoal(subgoal)[:, None] + self.grounding(vision, subgoal)
        return self.head(self.encoder.readout(cells._replace(tokens=tokens)))

    def forward(self, vision: torch.Tensor, subgoal: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """(B, H, W, 8) codes and (B, 4) subgoal codes -> (action logits, subgoal logits per field)."""
        cells = self.encoder.encode(vision)
        return self.act(vision, subgoal, cells), self.decode(vision, cells)


PolicyNet = VisionPolicyNet | LanguagePolicyNet


def build_model(cfg: ModelConfig) -> PolicyNet:
    """The network a config describes (weights freshly initialised; seed torch first for reproducibility)."""
    return LanguagePolicyNet(cfg) if cfg.conditioning == "language" else VisionPolicyNet(cfg)
