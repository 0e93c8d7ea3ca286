"""A layer norm over channels, written by hand, with no example call: the input is reduced
over dim 1 and scaled by a parameter made to broadcast over it, `(1, dim, 1, 1)`. Model code
shapes such a parameter like the input it is applied to, so with nothing else pinning the
input's rank, it has the parameter's rank, 4. The centred input `x - mean` is a tensor
because `mean` was computed from it (no number would do there), so the ops after it still
tell the input's rank."""
import torch
from torch import nn


class ChanLayerNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.g = nn.Parameter(torch.ones(1, dim, 1, 1))
        self.b = nn.Parameter(torch.zeros(1, dim, 1, 1))

    def forward(self, x):
        std = torch.var(x, dim=1, unbiased=False, keepdim=True).sqrt()
        #^ Tensor[N, 1, H, W]
        mean = torch.mean(x, dim=1, keepdim=True)
        #^ Tensor[N, 1, H, W]
        out = (x - mean) / (std + self.eps) * self.g + self.b
        #^ Tensor[N, dim, H, W]
        return out


# oracle: ChanLayerNorm(8)(torch.randn(2, 8, 5, 7))
