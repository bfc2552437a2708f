"""The encoder's cheaper formulations compute what the plain ones do: the readout's attention without keys and
values, the cells' embedding with its own backward, the agent's token and glimpse in one gather."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from marple_agents.config import ModelConfig  # noqa: E402
from marple_agents.networks import build_model  # noqa: E402
from marple_agents.networks.encoder import Block, summed_rows  # noqa: E402
from marple_gym.world.state import CH_AGENT, CH_AGENT_DIR  # noqa: E402


def keys_and_values(block: Block, x: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
    """The readout block written out as attention usually is: every token's key and value, then the softmax."""
    d = x.shape[-1]
    w, b = block.qkv.weight, block.qkv.bias
    q = F.linear(block.norm1(query), w[:d], b[:d])
    k, v = F.linear(block.norm1(x), w[d:], b[d:]).chunk(2, dim=-1)
    attended = F.scaled_dot_product_attention(block._split(q), block._split(k), block._split(v))
    out = query + block.proj(attended.transpose(1, 2).flatten(2))
    return out + block.mlp(block.norm2(out))


def test_the_readout_attends_as_with_keys_and_values_forwards_and_backwards():
    torch.manual_seed(0)
    block = Block(16, heads=2, mlp_ratio=2).double()
    for p in block.parameters():  # biases too: the key bias drops out of the softmax, the value bias must not
        torch.nn.init.normal_(p, std=0.3)
    x = torch.randn(5, 30, 16, dtype=torch.float64, requires_grad=True)
    query = torch.randn(5, 1, 16, dtype=torch.float64)
    ours, theirs = block(x, query=query), keys_and_values(block, x, query)
    assert torch.allclose(ours, theirs, atol=1e-12)
    grads = [torch.autograd.grad(out.square().sum(), [*block.parameters(), x]) for out in (ours, theirs)]
    assert all(torch.allclose(a, b, atol=1e-10) for a, b in zip(*grads))


def test_summed_rows_give_the_embedding_bags_sums_and_gradients():
    torch.manual_seed(1)
    table = torch.randn(40, 8, dtype=torch.float64, requires_grad=True)
    codes = torch.randint(0, 40, (200, 7))  # repeated codes: their gradients add up
    weights = torch.randn(200, 8, dtype=torch.float64)
    ours = summed_rows(table, codes)
    theirs = F.embedding_bag(codes, table, mode="sum")
    assert torch.allclose(ours, theirs)
    (mine,) = torch.autograd.grad((ours * weights).sum(), table)
    (plain,) = torch.autograd.grad((theirs * weights).sum(), table)
    assert torch.allclose(mine, plain)


@pytest.mark.parametrize("conditioning", ["vision", "language"])
def test_a_policy_with_a_glimpse_reads_the_agents_token_and_glimpse_as_two_lookups_would(conditioning):
    """The agent's own token and its glimpse come from one gather; the answer is that of reading them apart, also
    where the agent is shown without a direction (its glimpse masked out, its own token still read)."""
    torch.manual_seed(2)
    net = build_model(ModelConfig(conditioning=conditioning, width=16, depth=1, glimpse=2)).double().eval()
    vision = torch.randint(0, 3, (4, 7, 9, 8), dtype=torch.uint8)
    vision[..., CH_AGENT] = vision[..., CH_AGENT_DIR] = 0  # one agent per grid, one of them with no direction
    for row, (y, x) in enumerate([(0, 0), (3, 4), (6, 8), (2, 7)]):
        vision[row, y, x, CH_AGENT], vision[row, y, x, CH_AGENT_DIR] = 1, 0 if row == 3 else 1 + row
    encoder = net.encoder
    encoded = encoder.encode(vision)
    x = encoded.tokens
    index, valid = encoder.glimpse_cells(encoded)
    z = x[torch.arange(4), encoded.agent][:, None]
    seen = x.gather(1, index[..., None].expand(-1, -1, x.shape[-1])) * valid[..., None]
    z = z + encoder.glimpse_proj(seen.flatten(1))[:, None]
    for block in encoder.readouts:
        z = block(x, query=z)
    apart = torch.cat([encoder.norm(z[:, 0]), encoder.pool_norm(x.mean(dim=1))], dim=-1)
    assert not valid[3].any() and encoded.direction[3] == -1
    assert torch.allclose(encoder.readout(encoded), apart, atol=1e-12)
