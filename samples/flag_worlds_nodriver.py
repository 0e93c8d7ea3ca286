"""A flag read both when the layers are built and when they are applied, with no example call.

`nn.Linear(dim, dim * mult * (2 if glu else 1))` is as wide as the flag says, and `forward`
tests the same flag: built once with both values joined, the width would be unknown on
either way of `if not self.glu:`. The class is built once per value of the flag instead, and
each way of `forward` meets the layer its value built. (Only flags the instance keeps get
worlds: a flag used in `__init__` alone is joined there.)

A value the model is not built with by default is a guess, like a way of an `if` on it: its
shapes are shown, its diagnostics are not (`Gate(dim, legacy=True)` is broken, but nothing
says anyone builds it so)."""
import torch
from torch import nn


class FeedForward(nn.Module):
    def __init__(self, dim, mult=4, glu=False):
        super().__init__()
        self.glu = glu
        self.w1 = nn.Linear(dim, dim * mult * (2 if glu else 1))
        self.act = nn.GELU()
        self.w2 = nn.Linear(dim * mult, dim)

    def forward(self, x):
        if not self.glu:
            x = self.w1(x)
           #^ Tensor[..., dim*mult]
            x = self.act(x)
        else:
            x, v = self.w1(x).chunk(2, dim=-1)
           #^ Tensor[..., dim*mult]
            x = self.act(x) * v
        return self.w2(x)
              #^ Tensor[..., dim]


class Gate(nn.Module):
    def __init__(self, dim, legacy=False):
        super().__init__()
        self.legacy = legacy
        self.proj = nn.Linear(dim, dim * (3 if legacy else 2))
        self.out = nn.Linear(dim * 2, dim)

    def forward(self, x):
        return self.out(self.proj(x))
                       #^ Tensor[...]


# oracle: FeedForward(dim=8, mult=2)(torch.randn(2, 5, 8))
# oracle: FeedForward(dim=8, mult=2, glu=True)(torch.randn(3, 8))
# oracle: Gate(dim=8)(torch.randn(3, 8))
