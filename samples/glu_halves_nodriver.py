"""Halves of a dim not known to be even: `res, gate = x.chunk(2, dim=-1)` (a gated unit).
How many pieces `chunk` makes is not known (one when the dim is 1), but the unpack runs only
when there are two, and the first piece is the larger: `(d + 1)//2`, then the rest."""
import torch
from torch import nn


class GatedHalves(nn.Module):
    def forward(self, x):
        b, n, d = x.shape
        x = x * 0.5
       #^ Tensor[b, n, d]
        res, gate = x.chunk(2, dim=-1)
       #^ Tensor[b, n, (d + 1)//2]
        gate = gate.sigmoid()
       #^ Tensor[b, n, d - (d + 1)//2]
        out = torch.cat([res, gate], dim=-1)
       #^ Tensor[b, n, d]
        return out

# oracle: GatedHalves()(torch.randn(2, 9, 15))
