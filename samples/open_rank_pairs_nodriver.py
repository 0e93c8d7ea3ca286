"""Pairwise differences as point-cloud attention writes them, with no example call: the
points' rank is not decided (a Linear takes any), but `pos[:, :, None, :]` needs rank 3 or
more and keeps the last dim last at every such rank, and so does the difference of two
such pairs: `Tensor[..., pos_C]`, then `Tensor[..., dim]` after the MLP. The features x
are read by position the same way after a Linear gave their last dim: a batch of
sequences by convention (`[x_B, x_T, dim]`), so their pairs are `[x_B, x_T, x_T, dim]`."""
# exactness: open
import torch
from torch import nn


class PointLayer(nn.Module):
    def __init__(self, dim, hidden=64):
        super().__init__()
        self.to_qk = nn.Linear(dim, dim * 2, bias=False)
        self.pos_mlp = nn.Sequential(nn.Linear(3, hidden), nn.ReLU(), nn.Linear(hidden, dim))

    def forward(self, x, pos):
        q, k = self.to_qk(x).chunk(2, dim=-1)
        rel_pos = pos[:, :, None, :] - pos[:, None, :, :]
        #^ Tensor[..., pos_C]
        rel_pos_emb = self.pos_mlp(rel_pos)
        #^ Tensor[..., dim]
        qk_rel = q[:, :, None, :] - k[:, None, :, :]
        #^ Tensor[x_B, x_T, x_T, dim]
        return qk_rel + rel_pos_emb


# oracle: PointLayer(16)(torch.randn(2, 12, 16), torch.randn(2, 12, 3))
