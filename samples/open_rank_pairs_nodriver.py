"""Pairwise differences as point-cloud attention writes them, with no example call: a
Linear takes the points at any rank, but `pos[:, :, None, :]` writes a `:` for each of
their dims (the last `:` does nothing unless it is there to say so): rank 3, and the
pairs are `Tensor[B, T, T, 3]` (the MLP's Linear(3, ...) reads 3), then `dim`. The
features x are read by position the same way after a Linear gave their last dim, so
their pairs are `[x_B, x_T, x_T, dim]`; the sum of the two pairs names the points' dims
after them."""
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
        #^ Tensor[x_B, x_T, x_T, 3]
        rel_pos_emb = self.pos_mlp(rel_pos)
        #^ Tensor[x_B, x_T, x_T, dim]
        qk_rel = q[:, :, None, :] - k[:, None, :, :]
        #^ Tensor[x_B, x_T, x_T, dim]
        return qk_rel + rel_pos_emb


# oracle: PointLayer(16)(torch.randn(2, 12, 16), torch.randn(2, 12, 3))
