"""A goal- and belief-conditioned policy: pi(action | house, goal, belief), learned by behaviour cloning.

The analogue of BIP-ALM's fine-tuned language model: it reads what MMToM-QA's prompt gives it (the state,
the goal, the belief as possible places) and scores the next action. Its inputs, per step:

* the vision array, with what lies on and in furniture taken out (:func:`policy_vision`): where the goal is,
  the network must learn from the belief, not read off the true state;
* the belief as marks on the cells: 1 on the cells of every piece it holds possible, 2 on the cell where the
  object was seen (:func:`belief_marks`);
* the goal's object type, and the agent's last action (0 none or failed, 1 + action when it succeeded), which
  the searching agent's "close what you opened in vain" needs.

The network is the project's grid encoder (:class:`~marple_agents.networks.encoder.GridEncoder`) with the marks,
the goal and the last action added to the cells' tokens before its readout, and the project's action head.
Checkpoints are the project's safe policy files (:mod:`marple_agents.checkpoints`), marked as belief policies.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from marple_agents.checkpoints import load_payload, read_checkpoint, save_checkpoint
from marple_agents.config import ModelConfig
from marple_agents.networks.encoder import init_weights
from marple_agents.networks.policies import action_head, encoder
from marple_gym.beliefs.belief import ObjectBelief
from marple_gym.beliefs.locations import locations_of, pieces_of
from marple_gym.world.actions import NUM_ACTIONS, Outcome
from marple_gym.world.assets import ASSETS
from marple_gym.world.house import House
from marple_gym.world.state import CH_AGENT, CH_OBJ, CH_OBJ_ID, WorldState

KIND = "belief-policy"
"""The ``meta["kind"]`` of a belief policy's checkpoint."""
MARKS = 3  # 0 nothing, 1 a possible place, 2 where the object was seen


class BeliefPolicyNet(nn.Module):
    """Logits of pi(action | vision, belief marks, goal, last action) (see the module docs)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.encoder = encoder(cfg)
        self.marks = nn.Embedding(MARKS, cfg.width)
        self.goal = nn.Embedding(len(ASSETS.object_names), cfg.width)
        self.last = nn.Embedding(NUM_ACTIONS + 1, cfg.width)
        self.head = action_head(cfg)
        init_weights(self)

    def forward(
        self, vision: torch.Tensor, marks: torch.Tensor, goal: torch.Tensor, last: torch.Tensor
    ) -> torch.Tensor:
        """(B, H, W, 8) codes, (B, H, W) marks, (B,) goal codes, (B,) last actions -> (B, 10) action logits."""
        cells = self.encoder.encode(vision)
        extra = self.marks(marks.flatten(1).long()) + (self.goal(goal.long()) + self.last(last.long()))[:, None]
        return self.head(self.encoder.readout(cells._replace(tokens=cells.tokens + extra)))


def policy_vision(house: House, state: WorldState) -> np.ndarray:
    """The state's vision array without the objects lying on or in furniture (a new array)."""
    grid = state.grid.copy()
    hidden = _furniture_cells(house) & (grid[..., CH_AGENT] == 0)
    grid[hidden, CH_OBJ : CH_OBJ_ID + 1] = 0
    return grid


def _furniture_cells(house: House) -> np.ndarray:
    mask = np.zeros((house.height, house.width), dtype=bool)
    for f in pieces_of(locations_of(house).all):
        mask[house.fur_cells[f]] = True
    return mask


def belief_marks(house: House, belief: ObjectBelief) -> np.ndarray:
    """(H, W) uint8 marks of a belief (see the module docs)."""
    marks = np.zeros((house.height, house.width), dtype=np.uint8)
    for f in pieces_of(belief.support):
        marks[house.fur_cells[f]] = 1
    if belief.cell is not None:
        marks[belief.cell[1], belief.cell[0]] = 2
    return marks


def last_code(outcome: Outcome | None) -> int:
    """0 before the first action or after a failed one, else 1 + the action."""
    return 0 if outcome is None or not outcome.success else 1 + int(outcome.action)


class BeliefPolicy:
    """A trained belief policy on a device, answering action distributions for batches of inputs."""

    def __init__(self, net: BeliefPolicyNet, config: ModelConfig, meta: dict[str, Any], device: str = "cpu") -> None:
        self.net = net.to(device).eval()
        self.config = config
        self.meta = meta
        self.device = device

    @torch.no_grad()
    def probabilities(
        self, vision: np.ndarray, marks: np.ndarray, goal: Sequence[int], last: Sequence[int], batch: int = 512
    ) -> np.ndarray:
        """(N, 10) action probabilities of N inputs (vision (N, H, W, 8), marks (N, H, W))."""
        out = []
        for i in range(0, len(vision), batch):
            logits = self.net(
                torch.from_numpy(np.ascontiguousarray(vision[i : i + batch])).to(self.device),
                torch.from_numpy(np.ascontiguousarray(marks[i : i + batch])).to(self.device),
                torch.as_tensor(np.asarray(goal[i : i + batch]), device=self.device),
                torch.as_tensor(np.asarray(last[i : i + batch]), device=self.device),
            )
            out.append(torch.softmax(logits.float(), dim=-1).cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, NUM_ACTIONS))

    def save(self, path: str | Path) -> Path:
        return save_checkpoint(path, self.net, self.config, {**self.meta, "kind": KIND})


def load_belief_policy(path: str | Path, device: str = "cpu") -> BeliefPolicy:
    """A belief policy from its checkpoint (:class:`CheckpointError` for a file that is not one)."""
    payload = read_checkpoint(path, BeliefPolicyNet, KIND)
    net, config, meta = load_payload(payload, str(path), BeliefPolicyNet)
    return BeliefPolicy(net, config, meta, device)
