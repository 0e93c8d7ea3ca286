"""No caller. A size read from a tensor (`x.size(0)`, `x.shape[0]`) is an int even when its
value is not known, so `torch.zeros(x.size(0))` is a tensor of one dim: joined to `x` by
`torch.cat`, it tells x's rank. And an einops pattern that names an axis its input lacks
fails whatever the tensor is: it is reported also on a way only an optional input opens
(`if mask is not None:`), though the attention's own run is left for its callers', which
pass no mask."""
import torch
from einops import rearrange
from torch import nn


def append_zero_column(x):
    zeros = torch.zeros(x.size(0), dtype=x.dtype).unsqueeze(1)
   #^ Tensor[B, 1]
    out = torch.cat([x, zeros], dim=1)
   #^ Tensor[B, T + 1]
    return out


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)

    def forward(self, x, mask=None):
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        dots = q @ k.transpose(-1, -2)
        if mask is not None:
            pair = rearrange(mask, "b i -> b i ()") * rearrange(mask, "b j -> b () jx")  # error: illegal-value
            dots = dots.masked_fill(~pair, -1e9)
        return dots.softmax(dim=-1) @ v


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.attn = Attention(dim, heads)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        return x + self.attn(self.norm(x))
