"""A model that cannot run as built with its defaults, with no example call.

The hyperparameters are symbols (the model may be built with other values), so a head split
into `heads + 1` groups of `heads * dim_head` channels is not wrong for every model: with
`heads = 1, dim_head = 2` it works. Built with the defaults (8 heads of 64), 512 channels do
not split into 9 groups whatever the input: a warning that names the defaults. The inputs
stay free: a check that fails for some inputs even with the defaults (an odd number of rows
of 8 into rows of 16) gives nothing, and a model that runs with its defaults gets no warning."""
import torch
from torch import nn


class OffByOneHeads(nn.Module):
    def __init__(self, dim, heads=8, dim_head=64):
        super().__init__()
        self.heads = heads
        self.to_q = nn.Linear(dim, heads * dim_head)

    def forward(self, x):
        b, n, _ = x.shape
        q = self.to_q(x)
        return q.view(b, n, self.heads + 1, -1)  # warning: shape-mismatch


class Heads(nn.Module):
    def __init__(self, dim, heads=8, dim_head=64):
        super().__init__()
        self.heads = heads
        self.to_q = nn.Linear(dim, heads * dim_head)

    def forward(self, x):
        b, n, _ = x.shape
        q = self.to_q(x)
        split = q.view(b, n, self.heads, -1)
       #^ Tensor[b, n, heads, dim_head]
        return split


class Pooled(nn.Module):
    def __init__(self, dim, width=8):
        super().__init__()
        self.proj = nn.Linear(dim, width)

    def forward(self, x):
        y = self.proj(x)
        pairs = y.view(-1, 16)
       #^ Tensor[?, 16]
        return pairs


# oracle: OffByOneHeads(16, heads=1, dim_head=2)(torch.randn(2, 5, 16))
# oracle: Heads(16)(torch.randn(2, 5, 16))
# oracle: Pooled(16)(torch.randn(4, 16))
