"""Layers of one type appended in a loop of unknown count (`Conv2d(3, c)` first, then
`Conv2d(c, c)`) are one layer whose differing sizes are not known, and a Sequential runs
the layers added after that loop last (`add_module("conv_last", Conv2d(c, hidden))`), so
the stem is `Tensor[n, hidden_dim, ?, ?]`, not unknown. A use inside an `if` on the input's own dims (`if kv_heads == 1:` then a pattern
with `1` there) tells nothing about the input's dims on the other way."""
import torch
from einops import rearrange
from torch import nn


class ConvStem(nn.Module):
    def __init__(self, hidden_dim, widths):
        super().__init__()
        self.proj = nn.Sequential()
        prev = 3
        for i, width in enumerate(widths):
            self.proj.add_module(f"conv_{i}", nn.Conv2d(prev, width, kernel_size=3, stride=2, padding=1))
            prev = width
        self.proj.add_module("conv_last", nn.Conv2d(prev, hidden_dim, kernel_size=1))

    def forward(self, x):
        n, c, h, w = x.shape
        x = self.proj(x)
       #^ Tensor[n, hidden_dim, ?, ?]
        return x.flatten(2).transpose(1, 2)


def attend(q, k):
    heads, kv_heads = q.shape[1], k.shape[1]
    if kv_heads == 1:
        k = rearrange(k, 'b 1 n d -> b n d')
        sim = torch.einsum('b h i d, b j d -> b h i j', q, k)
    else:
        sim = torch.einsum('b h i d, b h j d -> b h i j', q, k)
    return sim.softmax(dim=-1)


class Attend(nn.Module):
    def forward(self, q, k):
        b, h, n, d = q.shape
        sim = attend(q, k)
       #^ Tensor[max(N, b), ?, n, H]
        return sim

# oracle: ConvStem(hidden_dim=8, widths=[4, 6])(torch.randn(2, 3, 16, 16))
# oracle: Attend()(torch.randn(2, 4, 5, 8), torch.randn(2, 4, 5, 8))
