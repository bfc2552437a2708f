"""A Vision Transformer over the m x n x 8 vision array: one token per cell (patch 1 x 1).

Each cell's channels are categorical, so each is looked up in its own embedding
table and the embeddings are summed into the cell's token. Two fixed 2-D
sine-cosine position embeddings are added:

* the cell's absolute position (x, y), as in a ViT;
* (``egocentric``) the cell's offset from the agent in the agent's own frame
  (cells ahead, cells to the right). Which action comes next depends on where
  the target lies relative to the agent and its heading; with this embedding
  that is read off a token instead of being learned from a few houses.

Both are functions of the grid, not tables, so any grid size works.

The object-id channel is left out: ids are instance indices, arbitrary from
house to house, and the type and state channels already describe the object,
so embedding them would only invite the model to memorise training houses.

With ``glimpse`` r > 0 the readout also gets the (2r + 1)^2 cells around the
agent laid out in its own frame (ahead, right), projected to one vector and
added to the agent's token. It is what MiniGrid agents see as their view: with
it, what lies just ahead (a wall, the furniture to act on) is read off directly
instead of being found by attention, and a small model learns to move in
seconds rather than minutes. The paper's model has none (``glimpse=0``).

The last blocks of the encoder are evaluated only at the agent's own cell
(the readout token): a policy needs that token alone, and a readout block
costs one token's attention instead of one per cell. On a CPU, where full
self-attention over 400 cells dominates the cost, the small preset has no
self-attention block at all: one readout block and the glimpse.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from marple_gym.evidence import channel_sizes
from marple_gym.world.state import CH_AGENT, CH_AGENT_DIR, CH_OBJ_ID, NUM_CHANNELS

EMBEDDED_CHANNELS = tuple(c for c in range(NUM_CHANNELS) if c != CH_OBJ_ID)
TEMPERATURE = 1000.0  # longest wavelength of the sine-cosine embeddings, in cells: plenty for any house

# Unit vectors (dx, dy) of the four directions: 0 east, 1 south, 2 west, 3 north (y grows downwards).
HEADINGS = ((1, 0), (0, 1), (-1, 0), (0, -1))


def sincos(a: torch.Tensor, b: torch.Tensor, dim: int) -> torch.Tensor:
    """Sine-cosine embedding of coordinate pairs: (...) and (...) -> (..., dim), a quarter per sin/cos and axis."""
    k = dim // 4
    omega = TEMPERATURE ** (-torch.arange(k, device=a.device, dtype=torch.float32) / max(1, k - 1))
    a = a.to(torch.float32)[..., None] * omega
    b = b.to(torch.float32)[..., None] * omega
    return torch.cat([a.sin(), a.cos(), b.sin(), b.cos()], dim=-1)


class _SummedRows(torch.autograd.Function):
    """:func:`summed_rows` with a backward that adds the gradient into the table one column of codes at a time."""

    @staticmethod
    def forward(ctx, table: torch.Tensor, codes: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(codes)
        ctx.rows = len(table)
        return F.embedding_bag(codes, table, mode="sum")

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        (codes,) = ctx.saved_tensors
        table = grad.new_zeros(ctx.rows, grad.shape[1])
        for column in codes.unbind(1):
            table.index_add_(0, column, grad)
        return table, None


def summed_rows(table: torch.Tensor, codes: torch.Tensor) -> torch.Tensor:
    """The rows ``codes`` (N, C) name in ``table`` (V, D), summed per row of codes: (N, D).

    On the CPU the table's gradient is added in one ``index_add_`` per column of codes, about a third of the
    cost of ``embedding_bag``'s own backward, which sorts every code (half of a small policy's training step,
    where each of 400 cells sums seven rows); elsewhere ``embedding_bag`` as it is.
    """
    if table.device.type == "cpu":
        return _SummedRows.apply(table, codes)
    return F.embedding_bag(codes, table, mode="sum")


class CellEmbedding(nn.Module):
    """Sum of one embedding per used channel: (B, H, W, 8) integer codes -> (B, H*W, width)."""

    def __init__(self, width: int) -> None:
        super().__init__()
        sizes = [channel_sizes()[c] for c in EMBEDDED_CHANNELS]
        # One table with per-channel offsets, its rows summed in one gather-and-add forwards and backwards
        # instead of seven lookups (the backward of plain lookups dominated).
        self.register_buffer("channels", torch.tensor(EMBEDDED_CHANNELS), persistent=False)
        self.register_buffer("offsets", torch.tensor([0, *sizes[:-1]]).cumsum(0), persistent=False)
        self.table = nn.EmbeddingBag(sum(sizes), width, mode="sum")

    def forward(self, vision: torch.Tensor, extra: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        """``extra``: one more row to add to each cell's sum, as (B, H*W) indices into a (V, width) table of its
        own (fixed: the egocentric offsets), summed in the same pass instead of gathered and added after it."""
        b, h, w, _ = vision.shape
        codes = vision.index_select(-1, self.channels).long() + self.offsets
        table = self.table.weight
        if extra is not None:
            index, rows = extra
            codes = torch.cat([codes, (index + len(table)).view(b, h, w, 1)], dim=-1)
            table = torch.cat([table, rows.to(table.dtype)])
        return summed_rows(table, codes.view(b * h * w, -1)).view(b, h * w, -1)


class Block(nn.Module):
    """Pre-norm transformer block: multi-head attention, then a GELU MLP.

    Without ``query`` it is self-attention over all tokens. With a ``query``
    (B, 1, D) it updates only that token, attending to all of ``x``: a readout
    block, as cheap as one token's worth of attention.
    """

    def __init__(self, width: int, heads: int, mlp_ratio: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.heads = heads
        self.dropout = dropout
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(
            nn.Linear(width, mlp_ratio * width), nn.GELU(), nn.Dropout(dropout), nn.Linear(mlp_ratio * width, width)
        )

    def _split(self, t: torch.Tensor) -> torch.Tensor:
        b, n, d = t.shape
        return t.view(b, n, self.heads, d // self.heads).transpose(1, 2)

    def forward(self, x: torch.Tensor, query: torch.Tensor | None = None) -> torch.Tensor:
        """(B, T, D) -> (B, T, D); with ``query`` (B, 1, D) -> the updated query (B, 1, D)."""
        if query is None:
            q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
            p = self.dropout if self.training else 0.0
            attended = F.scaled_dot_product_attention(self._split(q), self._split(k), self._split(v), dropout_p=p)
            attended = attended.transpose(1, 2).flatten(2)
        else:
            attended, x = self._attend_from(query, x), query
        x = x + self.proj(attended)
        return x + self.mlp(self.norm2(x))

    def _attend_from(self, query: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        """One query token's attention over the tokens ``x``: (B, 1, D) and (B, T, D) -> (B, 1, D).

        The same attention as with keys and values, computed without them: a query's score with a key,
        q . (W_k n + b_k), is (W_k^T q) . n plus a term the same for every token (which the softmax ignores), and
        the weighted values, sum_t a_t (W_v n_t + b_v), are W_v (sum_t a_t n_t) + b_v sum_t a_t. So each token
        costs two dot products per head instead of its keys and values (a 2D x D product): most of a small
        readout's work when the tokens are a house's cells.
        """
        b, _, d = x.shape
        heads, e = self.heads, d // self.heads
        w, bias = self.qkv.weight.view(3, heads, e, d), self.qkv.bias.view(3, heads, e)
        q = torch.einsum("bd,hed->bhe", self.norm1(query[:, 0]), w[0]) + bias[0]
        cells = self.norm1(x)
        keys = torch.einsum("bhe,hed->bhd", q * e**-0.5, w[1])  # W_k^T q, scaled: (B, heads, D)
        scores = torch.bmm(keys, cells.transpose(1, 2))
        weights = F.dropout(scores.softmax(dim=-1), self.dropout, self.training)
        mixed = torch.bmm(weights, cells)  # (B, heads, D)
        attended = torch.einsum("bhd,hed->bhe", mixed, w[2]) + weights.sum(dim=-1, keepdim=True) * bias[2]
        return attended.reshape(b, 1, d)


class Encoded(NamedTuple):
    """The encoder's output: what the readout needs."""

    tokens: torch.Tensor  # (B, H*W, width) cell tokens after the self-attention blocks
    agent: torch.Tensor  # (B,) flat index of the agent's cell
    direction: torch.Tensor  # (B,) 0 east, 1 south, 2 west, 3 north; -1 where no agent is shown
    shape: tuple[int, int]  # (H, W)


class GridEncoder(nn.Module):
    """Cell tokens with position embeddings, ``depth - readout_depth`` self-attention blocks over all cells,
    then ``readout_depth`` blocks in which the agent's token alone attends to every cell.

    The readout blocks take the cells' tokens as they leave the self-attention
    blocks; a language-conditioned policy adds its subgoal to them first.
    """

    def __init__(
        self,
        width: int,
        depth: int,
        readout_depth: int,
        heads: int,
        mlp_ratio: int,
        positions: str,
        dropout: float,
        glimpse: int = 0,
    ) -> None:
        super().__init__()
        self.width = width
        self.positions = positions
        self.glimpse = glimpse
        self.glimpse_proj = nn.Linear((2 * glimpse + 1) ** 2 * width, width) if glimpse else None
        self.cells = CellEmbedding(width)
        self.blocks = nn.ModuleList(Block(width, heads, mlp_ratio, dropout) for _ in range(depth - readout_depth))
        self.readouts = nn.ModuleList(Block(width, heads, mlp_ratio, dropout) for _ in range(readout_depth))
        self.norm = nn.LayerNorm(width)
        self.pool_norm = nn.LayerNorm(width)
        # Fixed embeddings, cached per grid size and device: absolute positions, and egocentric offsets.
        self._positions: dict[tuple, torch.Tensor] = {}
        self._offsets: dict[tuple, torch.Tensor] = {}

    def absolute(self, h: int, w: int, device: torch.device) -> torch.Tensor:
        key = (h, w, str(device))
        if key not in self._positions:
            ys, xs = torch.meshgrid(torch.arange(h, device=device), torch.arange(w, device=device), indexing="ij")
            self._positions[key] = sincos(xs.flatten(), ys.flatten(), self.width)
        return self._positions[key]

    @staticmethod
    def agent_cells(vision: torch.Tensor) -> torch.Tensor:
        """(B,) flat index of the agent's cell (the first cell with an agent; 0 where there is none)."""
        return (vision[..., CH_AGENT] > 0).flatten(1).to(torch.uint8).argmax(dim=1)

    def offset_table(self, reach: int, device: torch.device) -> torch.Tensor:
        """Embeddings of every (ahead, right) offset in [-reach, reach]^2, row (ahead + reach) * (2 reach + 1)
        + right + reach, and a last row of zeros (no agent, no egocentric signal)."""
        key = (reach, str(device))
        if key not in self._offsets:
            span = torch.arange(-reach, reach + 1, device=device)
            ahead, right = torch.meshgrid(span, span, indexing="ij")
            table = sincos(ahead.flatten(), right.flatten(), self.width)
            self._offsets[key] = torch.cat([table, table.new_zeros(1, self.width)])
        return self._offsets[key]

    @staticmethod
    def agent_direction(vision: torch.Tensor, agent: torch.Tensor) -> torch.Tensor:
        """(B,) the agent's direction 0..3 (-1 where no agent is shown)."""
        rows = torch.arange(len(vision), device=vision.device)
        return vision.flatten(1, 2)[rows, agent, CH_AGENT_DIR].long() - 1

    @staticmethod
    def heading(direction: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, 1) x and y components of each direction's unit vector (east where there is no agent)."""
        heading = torch.tensor(HEADINGS, device=direction.device)[direction.clamp(min=0)]
        return heading[:, :1], heading[:, 1:]

    def relative(self, vision: torch.Tensor, agent: torch.Tensor, direction: torch.Tensor) -> torch.Tensor:
        """(B, H*W, width) embedding of each cell's (ahead, right) offset from the agent."""
        index, table = self.relative_rows(vision, agent, direction)
        return table[index]

    def relative_rows(
        self, vision: torch.Tensor, agent: torch.Tensor, direction: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`relative` as (B, H*W) row indices into the offsets' table, and the table."""
        _, h, w, _ = vision.shape
        reach = max(h, w) - 1
        table = self.offset_table(reach, vision.device)
        ay, ax = agent // w, agent % w
        hx, hy = self.heading(direction)
        cells = torch.arange(h * w, device=vision.device)
        dx, dy = (cells % w)[None] - ax[:, None], (cells // w)[None] - ay[:, None]
        index = (dx * hx + dy * hy + reach) * (2 * reach + 1) + (dy * hx - dx * hy + reach)
        return torch.where((direction >= 0)[:, None], index, len(table) - 1), table

    def encode(self, vision: torch.Tensor) -> Encoded:
        """(B, H, W, 8) codes -> cell tokens after the self-attention blocks, and where the agent is."""
        _, h, w, _ = vision.shape
        agent = self.agent_cells(vision)
        direction = self.agent_direction(vision, agent)
        # The egocentric offsets' rows are summed with the cells' own (one gather-and-add pass, not three).
        egocentric = self.relative_rows(vision, agent, direction) if self.positions != "absolute" else None
        x = self.cells(vision, egocentric)
        if self.positions != "egocentric":
            x = x + self.absolute(h, w, vision.device)
        for block in self.blocks:
            x = block(x)
        return Encoded(x, agent, direction, (h, w))

    def glimpse_cells(self, encoded: Encoded) -> tuple[torch.Tensor, torch.Tensor]:
        """Flat indices (B, K) of the (2r + 1)^2 cells around the agent, row-major over (ahead, right) from
        (-r, -r), and whether each lies on the grid (B, K) (off the grid, or no agent: masked out)."""
        h, w = encoded.shape
        r = self.glimpse
        span = torch.arange(-r, r + 1, device=encoded.agent.device)
        ahead, right = (t.flatten()[None] for t in torch.meshgrid(span, span, indexing="ij"))
        hx, hy = self.heading(encoded.direction)
        ay, ax = encoded.agent[:, None] // w, encoded.agent[:, None] % w
        x = ax + ahead * hx - right * hy  # "right" of a heading (hx, hy) is (-hy, hx) with y growing downwards
        y = ay + ahead * hy + right * hx
        valid = (x >= 0) & (x < w) & (y >= 0) & (y < h) & (encoded.direction >= 0)[:, None]
        return torch.where(valid, y * w + x, 0), valid

    def readout(self, encoded: Encoded) -> torch.Tensor:
        """The readout blocks from the agent's token, joined with the mean of all tokens: (B, 2 * width)."""
        x = encoded.tokens
        if self.glimpse_proj is None:
            z = x[torch.arange(len(x), device=x.device), encoded.agent][:, None]
        else:
            # The agent's token and its glimpse in one gather (the agent's cell is the glimpse's centre, given here
            # also where the glimpse is masked out), so that the backward passes over the cells once, not twice.
            index, valid = self.glimpse_cells(encoded)
            centre = index.shape[1] // 2
            index = torch.cat([index[:, :centre], encoded.agent[:, None], index[:, centre + 1 :]], dim=1)
            seen = x.gather(1, index[..., None].expand(-1, -1, x.shape[-1]))
            z = seen[:, centre : centre + 1] + self.glimpse_proj((seen * valid[..., None]).flatten(1))[:, None]
        for block in self.readouts:
            z = block(x, query=z)
        mean = x.sum(dim=1) / x.shape[1]  # not x.mean(): its backward spends a pass over the cells dividing
        return torch.cat([self.norm(z[:, 0]), self.pool_norm(mean)], dim=-1)


def init_weights(module: nn.Module) -> None:
    """Truncated-normal linear and embedding weights, zero biases (the usual ViT initialisation)."""
    for m in module.modules():
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
        if isinstance(m, (nn.Embedding, nn.EmbeddingBag)):  # seven channel embeddings are summed: unit variance
            nn.init.normal_(m.weight, std=len(EMBEDDED_CHANNELS) ** -0.5)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)


def mlp(sizes: list[int], activation: type[nn.Module] = nn.ReLU) -> nn.Sequential:
    """Linear layers of the given sizes with ``activation`` between them."""
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        if i:
            layers.append(activation())
        layers.append(nn.Linear(a, b))
    return nn.Sequential(*layers)


def count_parameters(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())
