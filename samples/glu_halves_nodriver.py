"""Halves of a dim not known to be even: `res, gate = x.chunk(2, dim=-1)` (a gated unit).
How many pieces `chunk` makes is not known (one when the dim is 1), but the unpack runs only
when there are two, and the first piece is the larger: `(d + 1)//2`, then the rest."""
import torch
from torch import nn


class SpatialGate(nn.Module):
    def __init__(self, dim, seq_len):
        super().__init__()
        self.norm = nn.LayerNorm(dim - (dim + 1) // 2)
        self.proj = nn.Conv1d(seq_len, seq_len, 1)

    def forward(self, x):
        b, n, d = x.shape
        x = x * 0.5
       #^ Tensor[b, n, d]
        res, gate = x.chunk(2, dim=-1)
       #^ Tensor[b, n, (d + 1)//2]
        gate = self.proj(self.norm(gate))
       #^ Tensor[b, seq_len, d - (d + 1)//2]
        return gate * res

# oracle: SpatialGate(16, 9)(torch.randn(2, 9, 16))
