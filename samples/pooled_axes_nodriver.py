"""Axial pooling with no example call: the input is averaged over its last axis and over the
one before, the two are joined along the positions, and a Conv1d reads the result. The
joined value keeps the rank of the two means, so the Conv1d (batched: N, C, L) says the
input has rank 4, and every line has a shape."""
import torch
from torch import nn


class AxialPool(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.proj = nn.Conv1d(dim, hidden, 1)

    def forward(self, x):
        h = x.shape[-2]
        pooled = torch.cat((x.mean(dim=-1), x.mean(dim=-2)), dim=-1)
        #^ Tensor[N, C, H + W]
        out = self.proj(pooled)
        #^ Tensor[N, hidden, H + W]
        return out[..., :h].unsqueeze(-1) + out[..., h:].unsqueeze(-2)


# oracle: AxialPool(8, 16)(torch.randn(2, 8, 5, 7))
