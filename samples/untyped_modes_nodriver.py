"""A constructor parameter with no default may be an int or a tuple: `n_modes=16` for a 1-D
operator, `n_modes=(16, 16)` for a 2-D one. In a class nobody builds, a test of its type
(`isinstance(n_modes, int)`) is not decided, so both ways run: the number of spatial dims,
and with it the rank of the input, stays open instead of the 1-D guess (rank 3) that a
2-D model contradicts. A helper that takes 1-D input on one way of an `if` and 2-D on
another does not pin its input's rank either."""
import torch
import torch.nn.functional as F
from torch import nn


def resample(x, axis, size):
    if len(axis) == 1:
        return F.interpolate(x, size=size[0], mode="linear")
    y = F.interpolate(x, size=size, mode="bicubic")
   #^ none
    return y


class SpectralSkip(nn.Module):
    def __init__(self, channels, n_modes):
        super().__init__()
        if isinstance(n_modes, int):
            n_modes = [n_modes]
        self.n_dim = len(n_modes)
        conv = nn.Conv1d if self.n_dim == 1 else nn.Conv2d
        self.skip = conv(channels, channels, 1)

    def forward(self, x):
        y = self.skip(x)
       #^ none
        out = resample(y, list(range(2, x.ndim)), [s * 2 for s in x.shape[2:]])
       #^ none
        return out


# oracle: SpectralSkip(4, (3, 3))(torch.randn(2, 4, 6, 6))
