"""No caller. A helper's axis parameter counted from the end (`dim=-1`) is one of several its
callers pass, so what it reduces is not shown as if the default were the only one (the
old hover, `Tensor[B, T, 1]`, was wrong for every other axis): no shape is claimed there.
The input's own shape still is."""
import torch
from torch import nn


def sparsemax_threshold(x, dim=-1):
    max_val, _ = x.max(dim=dim, keepdim=True)
   #^ none
    shifted = x - max_val
    return shifted


class Sparsemax(nn.Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        assert x.dim() == 3
        out = sparsemax_threshold(x, self.dim)
                                 #^ Tensor[B, T, C]
        return out.softmax(dim=self.dim)
