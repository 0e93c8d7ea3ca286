"""One input fed to layers that need different sizes of it, in defs nobody calls: the first
layer pins the made-up dim (`C == 3` after `Conv2d(3, ...)`, `D == dim` after
`Linear(dim, ...)`), and a layer that needs another value fails for every input: an error.
Layers that agree on it give none."""
import torch
from torch import nn


class TwoStems(nn.Module):
    def __init__(self):
        super().__init__()
        self.rgb = nn.Conv2d(3, 8, 3)
        self.rgba = nn.Conv2d(4, 8, 3)

    def forward(self, x):
        a = self.rgb(x)
        b = self.rgba(x)  # error: shape-mismatch
        return a + b


class Projections(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_q = nn.Linear(dim, dim)
        self.to_k = nn.Linear(dim + 1, dim)

    def forward(self, x):
        q = self.to_q(x)
        k = self.to_k(x)  # error: shape-mismatch
        return q @ k.transpose(-2, -1)


class Agreeing(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_q = nn.Linear(dim, dim)
        self.to_v = nn.Linear(dim, 2 * dim)

    def forward(self, x):
        q = self.to_q(x)
        v = self.to_v(x)
       #^ Tensor[..., 2*dim]
        return q, v

# oracle: Agreeing(4)(torch.randn(2, 3, 4))
