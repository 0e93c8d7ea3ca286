"""A float chosen by a flag, with no example call.

`self.scale = 0.5 if scale_residual else 1.0`: the model nobody builds may be built either
way, so the scale is one of two floats. Joined, it was Unknown, and so was every tensor it
scales; it is a float of unknown value, which scales a tensor without changing its shape."""
import torch
from torch import nn


class ScaledResidual(nn.Module):
    def __init__(self, dim, hidden, scale_residual=False):
        super().__init__()
        self.scale = 0.5 if scale_residual else 1.0
        self.ff = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        b, n, d = x.shape
        out = x + self.scale * self.ff(x)
       #^ Tensor[b, n, dim]
        return out


# oracle: ScaledResidual(8, 16)(torch.randn(2, 5, 8))
# oracle: ScaledResidual(8, 16, scale_residual=True)(torch.randn(2, 5, 8))
