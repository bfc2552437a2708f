"""How much arithmetic a policy network does: FLOPs per training sample and per inference row, counted.

torch's :class:`~torch.utils.flop_counter.FlopCounterMode` counts the matrix
products (linear layers, attention) of one pass of the network built on the
meta device, so nothing is allocated and a paper-size model is counted in
about a second. Model FLOPs utilisation (MFU) is these FLOPs times samples per
second over the device's peak; the usual 6 x parameters x tokens rule agrees
within a few per cent for the paper's model (all of whose blocks see every
cell).
"""

from __future__ import annotations

import functools

import torch
from torch.utils.flop_counter import FlopCounterMode

from marple_agents.config import ModelConfig
from marple_agents.inputs import SUBGOAL_FIELDS
from marple_agents.networks import build_model
from marple_gym.world.state import NUM_CHANNELS

GRID = (20, 20)
"""The paper's grid: every preset's houses are 20 x 20."""


def _inputs(batch: int, grid: tuple[int, int]) -> tuple[torch.Tensor, torch.Tensor]:
    return (
        torch.zeros(batch, *grid, NUM_CHANNELS, dtype=torch.uint8),
        torch.zeros(batch, len(SUBGOAL_FIELDS), dtype=torch.long),
    )


@functools.cache
def training_flops(config: ModelConfig, grid: tuple[int, int] = GRID) -> float:
    """FLOPs of one training sample: the forward pass (action head, and the decoders of a language model) and
    its backward pass."""
    counter = FlopCounterMode(display=False)
    with torch.device("meta"):
        net = build_model(config)
        vision, subgoal = _inputs(2, grid)
    with counter:
        logits, decoded = net(vision, subgoal)
        loss = logits.float().sum() + sum(d.float().sum() for d in (decoded or {}).values())
        loss.backward()
    return counter.get_total_flops() / 2


@functools.cache
def forward_flops(config: ModelConfig, grid: tuple[int, int] = GRID) -> float:
    """FLOPs of one row of ``AgentPolicy.action_probs`` (the action head alone, as rollouts ask)."""
    counter = FlopCounterMode(display=False)
    with torch.device("meta"):
        net = build_model(config)
        vision, subgoal = _inputs(2, grid)
    with counter, torch.no_grad():
        net.act(vision, subgoal)
    return counter.get_total_flops() / 2
