"""A size the analysis cannot follow (`?`: the channels of a `cat` over a list of unknown
length) is known past a layer that checks it: `BatchNorm2d(c)` of `Tensor[b, ?, h, w]`
ran only if the channels were `c`, so its output is `Tensor[b, c, h, w]`; likewise the
last dim past `LayerNorm(c)` and the channels past `GroupNorm(2, c)`. The layer after it
is then checked against `c`. Broadcasting `?` against a size known to be more than 1 gives
that size (the `?` is 1 or the same, or the op fails)."""
import torch
from torch import nn


class Repeated(nn.Module):
    def __init__(self, c, g, n):
        super().__init__()
        self.n = n
        self.norm = nn.BatchNorm2d(c)
        self.gn = nn.GroupNorm(2, c)
        self.ln = nn.LayerNorm(c)
        self.conv = nn.Conv2d(c, g, 1)

    def forward(self, x):
        b, d, h, w = x.shape
        x = torch.cat([x for _ in range(self.n)], 1)
       #^ Tensor[b, ?, h, w]
        y = self.norm(x)
       #^ Tensor[b, c, h, w]
        y2 = self.gn(x)
       #^ Tensor[b, c, h, w]
        z = self.ln(x.mean((2, 3)))
       #^ Tensor[b, c]
        scaled = x * torch.ones(1, 4, 1, 1)
       #^ Tensor[b, 4, h, w]
        return self.conv(y) + self.conv(y2)


class Mismatched(nn.Module):
    def __init__(self, c, g, n):
        super().__init__()
        self.n = n
        self.norm = nn.BatchNorm2d(c)
        self.conv = nn.Conv2d(c + 1, g, 1)

    def forward(self, x):
        b, d, h, w = x.shape
        y = self.norm(torch.cat([x for _ in range(self.n)], 1))
        return self.conv(y)  # error: shape-mismatch

# oracle: Repeated(4, 3, 2)(torch.randn(2, 2, 5, 5))
