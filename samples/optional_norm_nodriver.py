"""A layer that is one of two modules, picked by a flag the model is built with through
**kwargs (Mega's optional head norm): `nn.Identity()`, or a GroupNorm over `heads * dim`
channels when `norm_heads` is set. With the other flag also set, the heads are doubled and
that GroupNorm would fail; but either flag may be the one never used, so calling the
two-way module reports nothing (no squiggle). Passed through **kwargs the flags are not
known, and each runs both ways: the heads are 4 or 8, not 8 (a flag is no size)."""
# exactness: open
import torch
from torch import einsum, nn
from einops.layers.torch import Rearrange


class MultiHeadEMA(nn.Module):
    def __init__(self, dim, heads, bidirectional=False, norm_heads=False):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.expansion = nn.Parameter(torch.randn(heads * (2 if bidirectional else 1), dim))
        self.bidirectional = bidirectional
        self.norm_heads = nn.Identity()
        if norm_heads:
            self.norm_heads = nn.Sequential(
                Rearrange('b n h d -> b (h d) n'),
                nn.GroupNorm(heads, dim * heads),
                Rearrange('b (h d) n -> b n h d', h=heads),
            )

    def forward(self, x):
        x = einsum('... d, h d -> ... h d', self.proj(x), self.expansion)
        #^ Tensor[B, T, ?, dim]
        if self.bidirectional:
            x, x_reversed = x.chunk(2, dim=-2)
            x = torch.cat((x, torch.flip(x_reversed, dims=(1,))), dim=-2)
        x = self.norm_heads(x)
        return x.sum(dim=-2)


class Layer(nn.Module):
    def __init__(self, dim, causal=True, norm_heads=False):
        super().__init__()
        self.ema = MultiHeadEMA(dim, 4, bidirectional=not causal, norm_heads=norm_heads)

    def forward(self, x):
        return self.ema(x) + x


class Model(nn.Module):
    def __init__(self, dim, **kwargs):
        super().__init__()
        self.layer = Layer(dim, **kwargs)

    def forward(self, x):
        return self.layer(x)


# oracle: Model(8, norm_heads=True)(torch.randn(2, 5, 8))
