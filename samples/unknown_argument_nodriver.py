"""A call whose argument the analysis cannot tell, with no example call.

`sin` below comes from ops the analysis does not follow (a numpy grid), so the lambda is
called with an argument of unknown shape. The lambda is analysed with made-up
symbols for it (its hover says what holds for any input), but those symbols are the lambda's
own: in `Attention.forward` a `C` of the lambda is not the `C` of `Attention`'s input, so past
the call its dims are unknown and `q * sin` is no error."""
from math import sqrt

import numpy as np
import torch
from torch import nn
from einops import rearrange


class Rotary(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("scales", torch.linspace(1.0, 5.0, dim // 2))

    def forward(self, x):
        n = int(sqrt(x.shape[-2]))
        grid = np.stack(np.meshgrid(np.arange(n), np.arange(n)), -1)
        table = torch.from_numpy(grid).to(x)[..., None] * self.scales
        sin, cos = map(lambda t: rearrange(t, "i j c d -> (i j) (c d)"), (table.sin(), table.cos()))
       #^ Tensor[?, ?]
        return sin, cos


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.rotary = Rotary(dim)
        self.to_q = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        sin, cos = self.rotary(x)
        q = self.to_q(x)
       #^ Tensor[b, n, dim]
        return q * cos + q * sin
